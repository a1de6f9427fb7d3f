// hpcreward-gpu-runner: the measurer of one CUDA candidate, or the GPU's probe for its rank.
// It never loads the candidate: it starts hpcreward-gpu-executor (next to it), the process and
// CUDA context the candidate runs in, and shares with it only a control page and the operand
// pool (gpu_executor.hpp). An illegal address or a trap poisons the executor's context; this
// process and its context, where every check is made, are out of the candidate's reach.
//
// Started by hpcreward-bench (GPU mode) with fork+execv inside its sandbox (own process group,
// limits, private directory, deadline, CUDA_VISIBLE_DEVICES naming the rank's GPU). Modes:
//   (default)  reads the token from --token-fd, starts the executor, creates its own context,
//              cuBLAS and the operand pool, runs the harness (which has the executor load the
//              object under the GPU seccomp filter), writes {"token", "measurement"} to
//              --result-fd
//   --probe [--ceiling-size N]   writes {"token", "probe": {"gpu", "ceilings"}}
//   --canary                     writes {"token", "canary": "" or what went wrong}
#include <cuda_runtime.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "bench_node/gpu/cublas_reference.hpp"
#include "bench_node/gpu/cuda_call.hpp"
#include "bench_node/gpu/exported_device_memory.hpp"
#include "bench_node/gpu/gpu_executor.hpp"
#include "bench_node/gpu/gpu_harness.hpp"
#include "bench_node/gpu/gpu_probe.hpp"
#include "bench_node/gpu/start_gate.hpp"
#include "bench_node/process/child_process.hpp"
#include "bench_node/cpu/runner_frame.hpp"
#include "bench_node/process/runner_pipes.hpp"
#include "bench_node/process/write_all.hpp"
#include "common/messages_json.hpp"

namespace hpcreward {
namespace {

// hpcreward-gpu-executor, next to this program.
std::string executor_program() {
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "hpcreward-gpu-executor").string();
}

// With a gate (start_gate.hpp) the measurer is started ahead of its candidate's turn: it sets
// up on 'p', says 'r', and touches the GPU again only on 'g'.
Measurement run_candidate(const RunnerArgs &args) {
  const gpu::StartGate gate(args.gated ? kChildGateFd : -1);
  gpu::GpuHarnessConfig config;
  config.precision = args.precision;
  config.nominal = args.nominal;
  config.check_shapes = args.check_shapes;
  config.tolerance = args.tolerance;
  config.element_tolerance = args.element_tolerance;
  config.timing = args.timing;
  if (args.ring_bytes > 0) config.ring_bytes = args.ring_bytes;
  if (args.l2_bytes > 0) config.l2_bytes = args.l2_bytes;
  const auto stopped = [] {
    return failed_measurement(Status::runtime_error, "the rank stopped waiting for this run (it is stopping)");
  };

  // Before 'p': the processes and their drivers' start, host work only (no context yet).
  gpu::GpuExecutor executor({.program = executor_program(), .object = args.object_path});
  int devices = 0;
  gpu::cuda_call(cudaGetDeviceCount(&devices), "initialising the CUDA driver");
  if (!gate.await(gpu::kGatePrepare)) return stopped();
  // The executor's context while this process creates its own.
  executor.start_context();
  gpu::cuda_call(cudaSetDevice(0), "cudaSetDevice");
  gpu::cuda_call(cudaFree(nullptr), "creating the CUDA context");
  gpu::Cublas cublas;
  if (gate.gated()) gpu::load_gpu_code(cublas, config);
  if (Verdict verdict = executor.await_context(); !verdict.ok()) return failed_measurement(verdict.status, verdict.reason);
  gate.say(gpu::kGateReady);
  if (!gate.await(gpu::kGateGo)) return stopped();

  if (std::string canary = gpu::run_canary(); !canary.empty())
    return failed_measurement(Status::runtime_error, "the GPU failed its check before the candidate: " + canary);
  gpu::ExportedDeviceMemory pool(gpu::operand_pool_bytes(config));
  if (Verdict verdict = executor.open_pool(pool.fd(), pool.bytes()); !verdict.ok())
    return failed_measurement(verdict.status, verdict.reason);
  config.calibrated = [&gate] { gate.say(gpu::kGateCalibrated); };
  config.may_time = [&gate] { return gate.await(gpu::kGateTime); };
  return gpu::run_gpu_harness(executor, pool, config, cublas);
}

// A CUDA error says which call failed; the frame reports anything else.
Measurement measure_candidate(const RunnerArgs &args) {
  try {
    return run_candidate(args);
  } catch (const gpu::CudaError &error) {
    return failed_measurement(Status::runtime_error, std::string("CUDA error: ") + error.what());
  }
}

std::string probe(int ceiling_size) {
  gpu::cuda_call(cudaSetDevice(0), "cudaSetDevice");
  gpu::cuda_call(cudaFree(nullptr), "creating the CUDA context");
  const GpuInfo info = gpu::describe_device();
  const GpuCeilings ceilings = gpu::measure_ceilings(ceiling_size, 20);
  nlohmann::json gpu;
  to_json(gpu, info);
  return nlohmann::json{{"gpu", gpu},
                        {"ceilings", {{"f64", ceilings.f64}, {"f32", ceilings.f32}, {"f32_fp32", ceilings.f32_fp32}, {"f16", ceilings.f16}},},
                        {"ceiling_size", ceiling_size}}
      .dump();
}

int option_int(int argc, char **argv, const char *name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::atoi(argv[i + 1]);
  return fallback;
}

bool has_flag(int argc, char **argv, const char *name) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return true;
  return false;
}

// --probe and --canary: {"token", "probe" or "canary"} (or "error") on --result-fd.
int probe_or_canary(int argc, char **argv) {
  const int result_fd = option_int(argc, argv, "--result-fd", 3);
  const std::string token = read_token(option_int(argc, argv, "--token-fd", 4));
  nlohmann::json out{{"token", token}};
  try {
    if (has_flag(argc, argv, "--probe"))
      out["probe"] = nlohmann::json::parse(probe(option_int(argc, argv, "--ceiling-size", 8192)));
    else
      out["canary"] = gpu::run_canary();
  } catch (const std::exception &error) {
    out["error"] = error.what();
  }
  write_all(result_fd, out.dump());
  ::_exit(0);
}

}  // namespace
}  // namespace hpcreward

int main(int argc, char **argv) {
  using namespace hpcreward;
  if (!asks_for_help(argc, argv) && (has_flag(argc, argv, "--probe") || has_flag(argc, argv, "--canary")))
    return probe_or_canary(argc, argv);
  return run_measurer(argc, argv,
                      {"hpcreward-gpu-runner",
                       "\nhpcreward-gpu-runner also takes --probe [--ceiling-size N] and --canary (with\n"
                       "--result-fd and --token-fd only); see bench_node/gpu/README.md.\n",
                       &measure_candidate});
}
