#pragma once
// What the coordinator and the benchmark ranks send each other. Plain structs; the
// encodings (messages_binary.hpp for tasks and results, messages_json.hpp for the hello) are the
// wire format, so nothing here knows MPI.
#include <cstdint>
#include <string>
#include <vector>

#include "common/problem.hpp"
#include "common/status.hpp"
#include "common/technique_summary.hpp"
#include "common/yardsticks.hpp"

namespace hpcreward {

// One candidate to compile, verify and time. The code is already extracted.
struct BenchTask {
  std::int64_t sequence = 0;  // unique within the run; matches the result to its row
  std::string candidate_id;
  Problem problem;
  std::string stage;
  std::vector<std::string> compiler_flags;
  std::vector<std::string> techniques_allowed;   // the stage's rules, checked on the rank
  std::vector<std::string> techniques_required;  // against what detection finds
  std::vector<std::string> libraries;  // beyond the toolkit the stage allows (common/stage_libraries.hpp)
  std::string source;
  // The run's seed for this task, kept in its row. Inputs are not drawn from it: the runners draw
  // them from the kernel for every call, so no candidate can predict them (docs/reward-integrity.md).
  std::uint64_t seed = 0;
};

// What a benchmark rank measured. Times are seconds; the harness owns every clock.
struct Measurement {
  Status status = Status::runtime_error;
  std::string reason;
  double gflops = 0;    // 2mnk / median_s at the nominal shape
  double median_s = 0;  // per call
  double min_s = 0;
  double iqr_s = 0;
  double cv = 0;  // standard deviation / mean of the timed calls
  int reps = 0;   // timed calls
  double max_error = 0;  // worst relative normwise error seen by any check
  double compile_s = 0;  // wall time split: static checks + compiler + object audit + technique detection,
  double verify_s = 0;   // full checks at every shape,
  double time_s = 0;     // warm-up and timed calls
  TechniqueSummary techniques;  // filled once the candidate compiled
  // The rank's yardsticks for the task's problem (common/yardsticks.hpp), on every result of
  // a rank that measured them, whatever the status: a row can be scored again in any reward mode.
  Yardsticks yardsticks;
};

// A measurement that is only a failure: its status and reason, no timings.
inline Measurement failed_measurement(Status status, std::string reason) {
  Measurement measurement;
  measurement.status = status;
  measurement.reason = std::move(reason);
  return measurement;
}
inline Measurement failed_measurement(const Verdict &verdict) {
  return failed_measurement(verdict.status, verdict.reason);
}

struct BenchResult {
  std::int64_t sequence = 0;
  Measurement measurement;
  int rank = 0;
  std::string host;
  std::string device;  // "cpu", or the GPU it ran on: "cuda:0 NVIDIA H100 80GB HBM3"
};

// The GPU a GPU rank times on (RankInfo::gpu); read by the rank's probe child, since the
// rank itself never creates a CUDA context (each candidate's child gets its own).
struct GpuInfo {
  int ordinal = -1;  // the node's device number (the rank's node-local index)
  std::string name;  // "NVIDIA H100 80GB HBM3"
  std::string uuid;
  std::string compute_capability;  // "9.0"
  std::string arch;                // nvcc's target: "sm_90a" on Hopper, else "sm_XY"
  std::uint64_t memory_bytes = 0;
  std::uint64_t l2_bytes = 0;
  int multiprocessors = 0;
  std::string driver_version;   // "13.0" (what the driver supports)
  std::string runtime_version;  // of the CUDA runtime the runner was built with
  int connections = 0;  // CUDA_DEVICE_MAX_CONNECTIONS its candidates ran with (0: not recorded)
};

// Sent once by every benchmark rank when it starts; goes into the log's provenance.
struct RankInfo {
  int rank = 0;
  std::string host;
  std::string cpu_model;  // /proc/cpuinfo's model name (common/cpu_model.hpp); "" when unknown
  int cores = 0;  // CPUs in the rank's affinity mask
  std::string compiler_version;
  std::string blas_version;
  double peak_gflops_f64 = 0;  // OpenBLAS dgemm on the rank's CPUs, measured at start
  double peak_gflops_f32 = 0;  // OpenBLAS sgemm likewise
  // GPU ranks: cuBLAS SGEMM without tensor cores (peak_gflops_f32 is the better of it and
  // TF32), what fractions of "cuBLAS SGEMM" are quoted against; 0 elsewhere.
  double sgemm_fp32_gflops = 0;
  bool avx512 = false;  // the rank's CPU runs AVX-512F code (and the rank was not told otherwise)
  std::string kind = "cpu";  // "cpu" ranks score C problems, "gpu" ranks CUDA problems
  // Tasks the coordinator may hand the rank at once. A GPU rank compiles the next candidates
  // on CPU cores while its GPU times one, so it takes more than one; CPU ranks take 1.
  int slots = 1;
  // GPU ranks: peak_gflops_f64/f32 above and this are cuBLAS D/S/HGEMM at the largest size,
  // measured at start (the ceiling behind the peak guard).
  double peak_gflops_f16 = 0;
  double peak_gflops_bf16 = 0;  // GPU ranks: cuBLAS bf16 GEMM likewise
  GpuInfo gpu;  // GPU ranks only
  // The most wall-clock seconds one task can take on this rank (its compile and run limits;
  // bench_node/rank/bench_cli.hpp task_time_limit_s). The coordinator quarantines a rank that holds
  // tasks and has not answered for this plus its margin. 0: not reported (no deadline).
  double task_limit_s = 0;
  // Why the rank's host may hide which CPUs share a physical core (a virtual machine: timed
  // runs on "separate" vCPUs may share one); "" when nothing says so. CPU ranks report it.
  std::string core_sharing_hidden;
  // CPU ranks: why OpenBLAS's kernels are not the CPU's best (narrower than its widest ISA, so
  // yardsticks read low and ratio rewards high: bench_node/measure/openblas_kernel.hpp); "" if they are.
  std::string blas_warning;
  // The rank runs hpcreward-bench --null-measurement: it answers every task at once with a
  // runtime_error "null measurement" row and measures nothing (coordinator benchmarks only).
  bool null_measurement = false;
  // GPU ranks: the CUTLASS release of the CuTe headers its compiler is given (stages with
  // "libraries": ["cute"]), "4.2.0"; "" when it has none.
  std::string cute;
};

}  // namespace hpcreward
