#pragma once
// The GPU rank's side of hpcreward-gpu-runner (no CUDA here: the rank never creates a CUDA
// context, so a candidate that poisons one takes only its own child down). Every child sees
// only the rank's GPU (CUDA_VISIBLE_DEVICES) and runs in child_process.hpp's sandbox.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench_node/rank/bench_options.hpp"
#include "bench_node/rank/candidate_runner.hpp"
#include "bench_node/gpu/gpu_ceilings.hpp"
#include "bench_node/gpu/staged_run.hpp"
#include "bench_node/measure/timing_options.hpp"
#include "bench_node/measure/yardstick_timing.hpp"
#include "common/messages.hpp"

namespace hpcreward {

struct GpuChildOptions {
  std::string runner;          // hpcreward-gpu-runner
  std::string visible_device;  // CUDA_VISIBLE_DEVICES for every child: the rank's GPU
  double timeout_s = 180;      // wall clock per candidate
  TimingOptions timing;
  std::uint64_t ring_bytes = 8ULL << 30;
  std::uint64_t l2_bytes = 0;  // from the probe
  // RLIMIT_DATA of every child: host memory (heap, anonymous mappings) it may take. CUDA's
  // address-space reservations are PROT_NONE and don't count; a context, cuBLAS and the
  // harness at 8192^3 take under 2 GiB.
  std::uint64_t host_memory_bytes = 16ULL << 30;
  // Staged runs on measurers that serve one candidate after another (their context, cuBLAS
  // and the checks' GPU code kept), else a measurer started for each candidate.
  bool serving_measurers = true;
  int connections = kDefaultGpuConnections;  // CUDA_DEVICE_MAX_CONNECTIONS of every child
};

// A measurer's runs before it is retired and a fresh one started: bounds whatever its
// process or context might accumulate over many candidates, at one set-up (about 0.3 s on an
// H200) per that many runs.
inline constexpr int kRunsPerMeasurer = 64;

struct ServingMeasurer;  // gpu_child.cpp

// The child's environment: the rank's, plus the GPU it may see, no JIT cache on disk, and
// `connections` work queues (CUDA_DEVICE_MAX_CONNECTIONS).
Environment gpu_child_environment(const std::string &visible_device, int connections);

class GpuSandboxedRunner : public CandidateRunner {
 public:
  explicit GpuSandboxedRunner(GpuChildOptions options);
  ~GpuSandboxedRunner() override;  // stops its serving measurers
  // A measurer started for this candidate alone, run straight through.
  Measurement run(const RunRequest &request) override;
  // A staged run (start_gate.hpp): it waits for prepare(). On a serving measurer not busy with
  // another run (started when there is none), or on a measurer started for it alone
  // (`serving_measurers` off). The request's object and directory must outlive the run; start
  // runs on one thread only.
  std::unique_ptr<StagedRun> start(const RunRequest &request);
  ChildSpec child_spec(const RunRequest &request, const std::string &token, bool gated = false) const;

 private:
  std::vector<std::string> measurer_arguments(const RunRequest &request, bool gated) const;
  std::shared_ptr<ServingMeasurer> idle_measurer();
  ChildSpec serving_spec() const;

  GpuChildOptions options_;
  std::vector<std::shared_ptr<ServingMeasurer>> serving_;
};

struct GpuProbe {
  GpuInfo gpu;
  GpuCeilings ceilings;
};

// The device's properties and ceilings, measured in a child; throws std::runtime_error with
// what went wrong (no GPU, a driver error, a child that died).
GpuProbe probe_gpu(const GpuChildOptions &options, int ceiling_size);

// The canary in a fresh child: "" when the GPU computes right, else what went wrong.
std::string check_gpu(const GpuChildOptions &options);

// cuBLAS's and cuBLASLt's figures at a problem and the timed calls each rests on.
struct GpuYardsticks {
  YardstickTiming cublas, cublaslt;
  Yardsticks figures() const { return {.cublas = cublas.gflops, .cublaslt = cublaslt.gflops}; }
};

// cuBLAS and cuBLASLt at `problem` (library_yardsticks.hpp), in a fresh child; throws
// std::runtime_error with what went wrong.
GpuYardsticks measure_gpu_yardsticks(const GpuChildOptions &options, const Problem &problem);

// The device the rank uses, as CUDA_VISIBLE_DEVICES for its children: entry `index` of the
// inherited CUDA_VISIBLE_DEVICES when set (Slurm's GPU binding), else the number itself.
// Throws std::invalid_argument when the inherited list has no such entry.
std::string visible_device_for(int index, const char *inherited_visible_devices);

}  // namespace hpcreward
