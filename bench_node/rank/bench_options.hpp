#pragma once
// How a benchmark rank compiles, sandboxes and times candidates (hpcreward-bench options).
#include <cstdint>
#include <filesystem>
#include <string>

#include "bench_node/measure/timing_options.hpp"

namespace hpcreward {

// CUDA_DEVICE_MAX_CONNECTIONS of a GPU rank's children (--gpu-connections): CUDA's default is 8.
inline constexpr int kDefaultGpuConnections = 4;

// A GPU rank (hpcreward-bench --gpu): scores CUDA problems on one GPU.
struct GpuRankOptions {
  bool enabled = false;
  std::string device = "auto";  // "auto": the rank's index among the GPU ranks of its node; or N
  std::string nvcc;             // default: the nvcc this build found (HPCREWARD_NVCC)
  std::string cuobjdump;        // default: the cuobjdump this build found
  std::string runner;           // hpcreward-gpu-runner; default: next to this executable
  std::string arch;             // nvcc target; default: from the probe (sm_90a on Hopper)
  // cute/ and cutlass/ of the pinned nvidia-cutlass release, for stages that allow CuTe;
  // default: where this build found them (bench_node/cuda/cute_headers.hpp); "none": without.
  std::string cute_include;
  // CUTLASS files as published took over 120 s with the rank's other compiles beside them (an
  // H200 host's 16 cores, 14 compile workers).
  double compile_timeout_s = 300;
  // RLIMIT_AS of nvcc and its children: CUTLASS files as published that instantiate a dozen
  // GemmUniversal configurations took over 8 GiB (cicc out of memory) on an H200 host.
  std::uint64_t compile_memory_limit_mb = 16384;
  double run_timeout_s = 180;       // wall clock for one candidate's verification and timing
  std::uint64_t ring_mb = 8192;     // device memory for the timing ring's buffer sets
  std::uint64_t host_memory_mb = 16384;  // RLIMIT_DATA of each GPU child (bench_node/gpu/README.md)
  // Threads preparing the next candidates while the GPU times; 0: one per CPU the rank is placed
  // on, less two for the measurer and the executor (both wait spinning during a call; a
  // preempted measurer would widen the calibrated overhead that bounds forged events), at least
  // 2 (resolve_gpu_parallelism). Two workers compile about 1.3 candidates a second, less than
  // one H200 scores.
  int compile_workers = 0;
  // Tasks the coordinator may hand this rank at once; 0: compile_workers + 2 (every worker busy,
  // one candidate on the GPU, one ready behind it).
  int slots = 0;
  int ceiling_size = 8192;          // cuBLAS at this size^3 sets the ceilings (the largest problem)
  // Set the next candidate's measurer up while the current one verifies (bench_node/gpu/
  // staged_run.hpp); off: each starts when the one before has ended.
  bool prepare_ahead = true;
  // Cores this rank asks for when it shares its node's CPUs with other benchmark ranks
  // (rank_placement.hpp); 0: default_gpu_rank_cores (8 where the node has them).
  int rank_cores = 0;
  // With prepare_ahead: measurers that serve one candidate after another, their CUDA context,
  // cuBLAS and the checks' GPU code kept (bench_node/gpu/README.md); off: one per candidate.
  bool serving_measurers = true;
  // The node's GPU ranks take turns setting a candidate's contexts up (gpu/setup_turns.hpp):
  // "1", "0", or "auto" (turns while the node has at most kMostGpuRanksTakingTurns GPU ranks).
  std::string setup_turns = "auto";
  // CUDA_DEVICE_MAX_CONNECTIONS of every GPU child (gpu/gpu_child.hpp): fewer work queues make
  // each candidate's executor context quicker to create and tear down.
  int connections = kDefaultGpuConnections;
  // A GPU run's warm-up and timed calls (gpu/gpu_harness.hpp): the most warm-up (--warmup-s's
  // role on the GPU; a staged run also warms up until the next run is set up), and the least
  // time of timed calls, so that a short kernel's median spans as much of the GPU's clock state
  // as a long one's (docs/reports/gpu-harness.md, "a floor on the timed calls"). 0.1 s rather
  // than 0.2: the next run's set-up takes 0.18 s beside it, so the GPU is warm either way, and
  // on an H200 the 64-candidate batch went from 1.83 to 1.96 a second with every kernel's
  // median within 0.3% (docs/reports/gpu-runs.md).
  double warmup_s = 0.1;
  double min_time_s = 0.15;
};

struct BenchOptions {
  std::string cc = "gcc";             // C compiler (a name on PATH or a path)
  std::filesystem::path work_root;    // per-candidate directories go in here; empty: default_work_root(0)
  std::string runner;                 // the hpcreward-runner executable
  double compile_timeout_s = 30;      // wall clock, then the compiler's group is killed
  double run_timeout_s = 60;          // wall clock for the runner: the cap of every run's limit
  // Each run's wall-clock limit scales with its problem (run_time_limit.hpp): this factor x
  // the time of its calls at the per-core peak rate, plus warm-up, timing and start, at least
  // the floor, at most run_timeout_s. 0: every run gets run_timeout_s. Generous: a naive -O0
  // loop runs 250x below an AVX-512 core's FMA peak, and 4x slower again on a loaded node
  // (measured 2026-11-24: 0.4 GFLOPS quiet, 0.13 under load, peak 102 GFLOPS per core).
  double time_limit_factor = 2000;
  double time_limit_floor_s = 5;
  // The rank's per-core f64 ceiling (the higher of OpenBLAS dgemm and the FMA units, measured
  // at start, over its CPUs); 0: not measured, every run gets run_timeout_s.
  double reference_gflops_per_core = 0;
  std::uint64_t memory_limit_mb = 4096;          // RLIMIT_AS of the runner
  std::uint64_t compile_memory_limit_mb = 2048;  // RLIMIT_AS of each compiler process
  std::uint64_t compile_file_size_mb = 64;       // RLIMIT_FSIZE of the compiler
  TimingOptions timing;
  double peak_margin = 1.25;  // ok results above margin x measured OpenBLAS peak are forbidden
  bool keep_workdir = false;  // leave each candidate's directory behind (debugging)
  bool placement = true;      // split a node's CPUs among its ranks by physical cores (rank_placement.hpp)
  // Bind the candidate's OpenMP threads within the rank's CPUs (OMP_PROC_BIND=close,
  // OMP_PLACES=cores, unless set). Only right when no other rank shares those cores:
  // two ranks binding "close" on one CPU set would both start on its first core.
  bool pin_threads = true;
  // The candidate's OpenMP and OpenBLAS threads: the rank's physical cores
  // (rank_placement.hpp), so SMT siblings do not count twice; 0: one per CPU of its mask.
  int threads = 0;
  // Report this rank as lacking AVX-512 in its hello (RankInfo::avx512) even when its CPU
  // has it, so the coordinator runs the ladder as on a host without it. Candidates the rank
  // is sent are still compiled and run as usual.
  bool no_avx512 = false;
  GpuRankOptions gpu;  // used when gpu.enabled (--gpu)
  // --null-measurement: answer every task at once with a runtime_error row ("null measurement")
  // and never compile or run it, so a run measures the coordinator alone (tests/perf/dispatch_bench.py).
  bool null_measurement = false;
};

}  // namespace hpcreward
