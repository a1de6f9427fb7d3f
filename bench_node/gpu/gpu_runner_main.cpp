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
//   --serve --result-fd N        serves one candidate after another (gate fd 7, start_gate.hpp):
//              each task frame {"token", "arguments": [the default mode's command line]}
//              gets its result frame {"token", "measurement"} on N; its CUDA context, cuBLAS
//              and the checks' GPU code are made once and kept, everything the candidate
//              touches (executor, context, operand pool) is made for each run
//   --probe [--ceiling-size N]   writes {"token", "probe": {"gpu", "ceilings"}}
//   --canary                     writes {"token", "canary": "" or what went wrong}
//   --yardsticks --precision P --layout L --nominal S --l2-bytes N
//                                writes {"token", "yardsticks": {"cublas", "cublaslt": {"gflops", "calls", "iqr"}}}:
//                                the libraries at that problem (library_yardsticks.hpp)
#include <cuda_runtime.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_node/gpu/cublas_reference.hpp"
#include "bench_node/gpu/cuda_call.hpp"
#include "bench_node/gpu/exported_device_memory.hpp"
#include "bench_node/gpu/gpu_executor.hpp"
#include "bench_node/gpu/gpu_harness.hpp"
#include "bench_node/gpu/gpu_probe.hpp"
#include "bench_node/gpu/library_yardsticks.hpp"
#include "bench_node/gpu/start_gate.hpp"
#include "bench_node/process/child_process.hpp"
#include "bench_node/cpu/runner_frame.hpp"
#include "bench_node/process/frames.hpp"
#include "bench_node/process/phase_times.hpp"
#include "bench_node/process/result_envelope.hpp"
#include "bench_node/process/runner_pipes.hpp"
#include "bench_node/process/write_all.hpp"
#include "common/messages_json.hpp"

namespace hpcreward {
namespace {

// hpcreward-gpu-executor, next to this program.
std::string executor_program() {
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "hpcreward-gpu-executor").string();
}

// A fresh executor: its process started, its driver starting; the candidate is named at load.
std::unique_ptr<gpu::GpuExecutor> start_executor() {
  gpu::GpuExecutorOptions options;
  options.program = executor_program();
  return std::make_unique<gpu::GpuExecutor>(std::move(options));
}

// The measurer's own CUDA context and cuBLAS handle, and the GPU code its checks use: made
// once per process (a serving measurer keeps them from one candidate to the next; the
// candidate never reaches them: they are in this process and context only).
class MeasurerGpu {
 public:
  gpu::Cublas &cublas() {
    if (!cublas_) {
      gpu::cuda_call(cudaSetDevice(0), "cudaSetDevice");
      gpu::cuda_call(cudaFree(nullptr), "creating the CUDA context");
      cublas_.emplace();
    }
    return *cublas_;
  }
  // The first call of each cuBLAS and check kernel loads it (50 to 100 ms on an H200): done
  // ahead, for each problem's shapes once.
  void load_gpu_code(const gpu::GpuHarnessConfig &config) {
    std::string key = std::to_string(static_cast<int>(config.precision));
    for (const Shape &shape : config.check_shapes) key += " " + to_string(shape);
    if (loaded_.insert(key + " " + to_string(config.nominal)).second) gpu::load_gpu_code(cublas(), config);
  }

 private:
  std::optional<gpu::Cublas> cublas_;
  std::set<std::string> loaded_;
};

// What a run makes for its candidate, everything the candidate can reach: its executor (process
// and context) and the operand pool. Made again for every run; its owner ends it after the
// result, before the next run calibrates (start_gate.hpp, 'e').
struct RunResources {
  std::unique_ptr<gpu::GpuExecutor> executor;  // a serving measurer's is started before the run
  std::optional<gpu::ExportedDeviceMemory> pool;
  // Told once the run may time (the rank's 't': the next run is set up): a serving measurer
  // starts its next run's executor then.
  std::function<void()> may_time;
  // The pool released, the executor killed and reaped (its context gone); `phases` (may be
  // null) learns how long each took.
  void end(PhaseTimes *phases = nullptr) {
    pool.reset();
    if (phases) phases->mark("ending a run: the operand pool released");
    executor.reset();
    if (phases) phases->mark("ending a run: its executor reaped");
  }
};

// With a gate (start_gate.hpp) the measurer is started ahead of its candidate's turn: it sets
// up on 'p', says 'r', and touches the GPU again only on 'g'. `phases` (may be null) learns
// where the run's time went from 'g' on.
Measurement run_candidate(const RunnerArgs &args, const gpu::StartGate &gate, MeasurerGpu &gpu, RunResources &made,
                          PhaseTimes *phases) {
  gpu::GpuHarnessConfig config = gpu::harness_config(args);
  const auto stopped = [] {
    return failed_measurement(Status::runtime_error, gpu::kGateClosedReason);
  };

  const auto phase_ended = [phases](const char *phase) {
    if (phases) phases->mark(phase);
  };

  // Before 'p': the processes and their drivers' start, host work only (no context yet).
  if (!made.executor) made.executor = start_executor();
  gpu::GpuExecutor &executor = *made.executor;
  executor.set_object(args.object_path);
  int devices = 0;
  gpu::cuda_call(cudaGetDeviceCount(&devices), "initialising the CUDA driver");
  if (!gate.await(gpu::kGatePrepare)) return stopped();
  if (phases) phases->start();
  // The executor's context while this process creates its own (or has it already).
  executor.start_context();
  phase_ended("set-up: the executor's driver");
  gpu::Cublas &cublas = gpu.cublas();
  if (gate.gated()) gpu.load_gpu_code(config);
  if (Verdict verdict = executor.await_context(); !verdict.ok()) return failed_measurement(verdict.status, verdict.reason);
  phase_ended("set-up: the contexts");
  // The pool too: a new allocation, mapped into the executor, no kernel run on it yet (its
  // values come after 'g'), so it costs the run before this one nothing it times.
  gpu::ExportedDeviceMemory &pool = made.pool.emplace(gpu::operand_pool_bytes(config));
  if (Verdict verdict = executor.open_pool(pool.fd(), pool.bytes()); !verdict.ok())
    return failed_measurement(verdict.status, verdict.reason);
  phase_ended("set-up: the operand pool");
  gate.say(gpu::kGateReady);
  if (!gate.await(gpu::kGateGo)) return stopped();
  if (phases) phases->start();  // the wait for 'g' is no phase of this run

  bool quiet = false;  // the run before has ended ('q'): its executor is reaped
  config.quiet = [&gate, &quiet] {
    if (quiet) return gpu::GateWord::arrived;
    const gpu::GateWord word = gate.poll(gpu::kGateQuiet);
    quiet = word == gpu::GateWord::arrived;
    return word;
  };
  config.calibrated = [&gate] { gate.say(gpu::kGateCalibrated); };
  config.may_time = [&gate, &made] {
    const gpu::GateWord word = gate.poll(gpu::kGateTime);
    if (word == gpu::GateWord::arrived && made.may_time) std::exchange(made.may_time, nullptr)();
    return word;
  };
  config.phase_ended = phase_ended;
  const auto steps = [&] {
    // The run before this one has handed its result over and killed its executor: a GPU it
    // broke is not blamed on this candidate.
    if (std::string canary = gpu::run_canary(); !canary.empty())
      return failed_measurement(Status::runtime_error, "the GPU failed its check before the candidate: " + canary);
    phase_ended("canary");
    return gpu::run_gpu_harness(executor, pool, config, cublas);
  };
  // A candidate that took the GPU's memory holds it until its executor is reaped, while this
  // run's canary and references already run.
  const auto out_of_memory = [&phase_ended](const gpu::CudaError &error) {
    if (error.code() != cudaErrorMemoryAllocation) return false;
    cudaGetLastError();  // not sticky: cleared, so that no later check reads it
    phase_ended("out of GPU memory before the run before had ended (attempted again after it)");
    return true;
  };
  return gpu::attempt_again_after_quiet<gpu::CudaError>(gate, quiet, steps, out_of_memory, stopped);
}

// A CUDA error says which call failed; the frame (measure_or_report) reports anything else.
Measurement measure_with(const RunnerArgs &args, const gpu::StartGate &gate, MeasurerGpu &gpu, RunResources &made,
                         PhaseTimes *phases = nullptr) {
  try {
    return run_candidate(args, gate, gpu, made, phases);
  } catch (const gpu::CudaError &error) {
    return failed_measurement(Status::runtime_error, std::string("CUDA error: ") + error.what());
  }
}

// The run's resources end when it returns, before the result is written: the rank starts the
// next run only after this process has exited.
Measurement measure_candidate(const RunnerArgs &args) {
  MeasurerGpu gpu;
  RunResources made;
  return measure_with(args, gpu::StartGate(args.gated ? kChildGateFd : -1), gpu, made);
}

// One served task: {"token", "arguments", "directory"} -> its measurement, as a measurer
// started for it alone would measure it.
Measurement serve_one(const nlohmann::json &task, const gpu::StartGate &gate, MeasurerGpu &gpu, RunResources &made,
                      PhaseTimes &phases) {
  return measure_or_report([&] {
    std::vector<std::string> arguments = task.at("arguments").get<std::vector<std::string>>();
    arguments.insert(arguments.begin(), "hpcreward-gpu-runner");
    std::vector<const char *> argv;
    for (const std::string &argument : arguments) argv.push_back(argument.c_str());
    const RunnerArgs args = parse_runner_args(static_cast<int>(argv.size()), argv.data());
    // The run's private directory is the executor's working directory, as for a measurer
    // started per candidate.
    if (::chdir(task.at("directory").get<std::string>().c_str()) != 0)
      return failed_measurement(Status::runtime_error, "harness error: cannot enter the run's directory");
    return measure_with(args, gate, gpu, made, &phases);
  });
}

// --serve: tasks through the gate until the rank closes it. The rank retires a measurer
// after a run that did not end cleanly (gpu_child.cpp), so a fault in this process's context
// never reaches another candidate.
int serve(int result_fd) {
  ::prctl(PR_SET_DUMPABLE, 0);  // out of reach of /proc/<pid>/mem, as every measurer
  const gpu::StartGate gate(kChildGateFd);
  MeasurerGpu gpu;
  // The next run's executor, started once this measurer's run may time (the next run is set up):
  // its process's start and its driver's (0.1 to 0.25 s in a fresh process; host work, which
  // measurably leaves calls timed on the GPU alone, unlike a context's creation) then happen
  // beside this run's timed calls and are done long before the next set-up. Started at the
  // calibration, they ran beside the other measurer's set-up and slowed its context, which is on
  // the critical path; after 'e', beside the next calibration and into its set-up. A fresh
  // process that has loaded nothing; its candidate is named at load.
  std::unique_ptr<gpu::GpuExecutor> spare;
  const auto start_spare = [&spare] {
    try {
      spare = start_executor();
    } catch (const std::exception &) {
      spare.reset();  // the run starts its own, and says what went wrong
    }
  };
  start_spare();
  PhaseSeconds ending_before;  // its last run's end, said with its next result
  while (std::optional<std::string> text = gate.await_task()) {
    const nlohmann::json task = nlohmann::json::parse(*text, nullptr, false);
    const std::string token = task.is_object() ? task.value("token", "") : "";
    PhaseTimes phases;
    RunResources made;
    made.executor = std::move(spare);
    made.may_time = start_spare;
    const Measurement measurement =
        task.is_object() ? serve_one(task, gate, gpu, made, phases)
                         : failed_measurement(Status::runtime_error, "harness error: the task is not a JSON object");
    // The result goes out first, the executor already killed; the rank lets the next run check
    // and warm the GPU up meanwhile, and calibrate only after 'e', once the executor's context
    // is gone.
    if (made.executor) made.executor->kill();
    PhaseSeconds said = phases.phases();
    said.insert(said.end(), ending_before.begin(), ending_before.end());
    write_all(result_fd, frame(encode_result(token, measurement, said)));
    PhaseTimes ending;
    ending.start();
    made.end(&ending);
    ending_before = ending.phases();
    [[maybe_unused]] const int left = ::chdir("/");  // the run's directory goes with its task
    gate.say(gpu::kGateEnded);
    if (!spare) start_spare();  // a run that never reached its timed calls
  }
  ::_exit(0);
}

std::string probe(int ceiling_size) {
  gpu::cuda_call(cudaSetDevice(0), "cudaSetDevice");
  gpu::cuda_call(cudaFree(nullptr), "creating the CUDA context");
  const GpuInfo info = gpu::describe_device();
  const GpuCeilings ceilings = gpu::measure_ceilings(ceiling_size, 20);
  nlohmann::json gpu;
  to_json(gpu, info);
  return nlohmann::json{{"gpu", gpu},
                        {"ceilings", {{"f64", ceilings.f64}, {"f32", ceilings.f32}, {"f32_fp32", ceilings.f32_fp32}, {"f16", ceilings.f16},
                                      {"bf16", ceilings.bf16}},},
                        {"ceiling_size", ceiling_size}}
      .dump();
}

int option_int(int argc, char **argv, const char *name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::atoi(argv[i + 1]);
  return fallback;
}

std::string option_text(int argc, char **argv, const char *name) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  throw std::invalid_argument(std::string("missing ") + name);
}

nlohmann::json yardsticks(int argc, char **argv) {
  const std::optional<Precision> precision = parse_precision(option_text(argc, argv, "--precision"));
  const std::optional<Layout> layout = parse_layout(option_text(argc, argv, "--layout"));
  const std::optional<Shape> shape = parse_shape(option_text(argc, argv, "--nominal"));
  if (!precision || !layout || !shape) throw std::invalid_argument("--yardsticks: a bad --precision, --layout or --nominal");
  gpu::cuda_call(cudaSetDevice(0), "cudaSetDevice");
  const gpu::LibraryYardsticks measured = gpu::measure_library_yardsticks(
      *precision, *layout, *shape, std::strtoull(option_text(argc, argv, "--l2-bytes").c_str(), nullptr, 10));
  const auto timing = [](const YardstickTiming &t) {
    return nlohmann::json{{"gflops", t.gflops}, {"calls", t.calls}, {"iqr", t.iqr}};
  };
  return {{"cublas", timing(measured.cublas)}, {"cublaslt", timing(measured.cublaslt)}};
}

bool has_flag(int argc, char **argv, const char *name) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return true;
  return false;
}

// --probe, --canary and --yardsticks: {"token", "probe", "canary" or "yardsticks"} (or "error") on --result-fd.
int probe_or_canary(int argc, char **argv) {
  const int result_fd = option_int(argc, argv, "--result-fd", 3);
  const std::string token = read_token(option_int(argc, argv, "--token-fd", 4));
  nlohmann::json out{{"token", token}};
  try {
    if (has_flag(argc, argv, "--probe"))
      out["probe"] = nlohmann::json::parse(probe(option_int(argc, argv, "--ceiling-size", 8192)));
    else if (has_flag(argc, argv, "--yardsticks"))
      out["yardsticks"] = yardsticks(argc, argv);
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
  if (!asks_for_help(argc, argv) &&
      (has_flag(argc, argv, "--probe") || has_flag(argc, argv, "--canary") || has_flag(argc, argv, "--yardsticks")))
    return probe_or_canary(argc, argv);
  if (!asks_for_help(argc, argv) && has_flag(argc, argv, "--serve")) return serve(option_int(argc, argv, "--result-fd", 3));
  return run_measurer(argc, argv,
                      {"hpcreward-gpu-runner",
                       "\nhpcreward-gpu-runner also takes --probe [--ceiling-size N] and --canary (with\n"
                       "--result-fd and --token-fd only), --yardsticks (with --precision, --layout,\n"
                       "--nominal, --l2-bytes), and --serve (with --result-fd; tasks through the gate);\n"
                       "see bench_node/gpu/README.md.\n",
                       &measure_candidate});
}
