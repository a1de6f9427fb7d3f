#include "bench_node/gpu/gpu_child.hpp"

#include <atomic>
#include <filesystem>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "bench_node/gpu/start_gate.hpp"
#include "bench_node/process/child_process.hpp"
#include "bench_node/process/classify.hpp"
#include "bench_node/process/monotonic_clock.hpp"
#include "bench_node/process/result_envelope.hpp"
#include "bench_node/cpu/runner_args.hpp"
#include "bench_node/cpu/shared_region.hpp"
#include "common/messages_json.hpp"

namespace hpcreward {

namespace {

// CUDA reserves address space far beyond what it uses, so no RLIMIT_AS; RLIMIT_DATA bounds
// host memory instead (it skips PROT_NONE reservations), for the measurer and the executor
// each. No file writes beyond the measurer's one-page control memfd (the driver's device files
// are not files RLIMIT_FSIZE counts; the executor gets 0), CPU time scaled from the wall clock. No
// RLIMIT_NPROC: it counts every process of the user (ranks, nvcc, other jobs) and spares
// root; the seccomp filter refuses new processes instead.
ChildSpec base_spec(const GpuChildOptions &options, double deadline_s) {
  ChildSpec spec;
  spec.program = options.runner;
  spec.environment = gpu_child_environment(options.visible_device, options.connections);
  spec.limits.data_bytes = options.host_memory_bytes;
  spec.limits.cpu_seconds = static_cast<std::uint64_t>(deadline_s * 2) + 10;
  spec.limits.file_size_bytes = SharedRegion::kControlBytes;
  spec.limits.open_files = 256;
  spec.deadline_s = deadline_s;
  spec.output_limit = 4096;
  spec.result_pipe = true;
  spec.result_limit = 64 * 1024;
  return spec;
}

// One probe or canary child: its JSON answer, checked against its token.
nlohmann::json run_service_child(const GpuChildOptions &options, const std::vector<std::string> &arguments,
                                 double deadline_s, const char *what) {
  ChildSpec spec = base_spec(options, deadline_s);
  spec.arguments = arguments;
  spec.token = make_token();
  const ChildOutcome outcome = run_child(spec);
  auto died = [&](const std::string &how) {
    return std::runtime_error(std::string(what) + " child " + how +
                              (outcome.output.empty() ? "" : ": " + first_line(outcome.output, 400)));
  };
  if (!outcome.started) throw died("did not start (" + outcome.start_error + ")");
  if (outcome.timed_out) throw died("ran past its " + std::to_string(static_cast<int>(deadline_s)) + " s");
  if (outcome.signaled) throw died("died of " + describe_signal(outcome.signal));
  nlohmann::json answer = nlohmann::json::parse(outcome.result, nullptr, false);
  if (!answer.is_object() || answer.value("token", "") != *spec.token) throw died("gave no valid answer");
  if (answer.contains("error")) throw std::runtime_error(std::string(what) + ": " + answer["error"].get<std::string>());
  return answer;
}

}  // namespace

Environment gpu_child_environment(const std::string &visible_device, int connections) {
  Environment environment = inherited_environment();
  set_variable(environment, "CUDA_VISIBLE_DEVICES", visible_device, true);
  set_variable(environment, "CUDA_CACHE_DISABLE", "1", true);  // no JIT cache written to $HOME
  set_variable(environment, "CUDA_DEVICE_ORDER", "PCI_BUS_ID", true);
  // Inherited by the executor: each candidate's context is made and torn down on the critical
  // path, and with 4 work queues instead of CUDA's 8 both take about 40% less (bench_node/gpu/README.md).
  set_variable(environment, "CUDA_DEVICE_MAX_CONNECTIONS", std::to_string(connections), true);
  return environment;
}

// The measurer's command line for one candidate (a serving measurer gets it in the task).
std::vector<std::string> GpuSandboxedRunner::measurer_arguments(const RunRequest &request, bool gated) const {
  RunnerArgs args =
      runner_args_for(std::filesystem::absolute(request.object).string(), request.task->problem, options_.timing);
  args.ring_bytes = options_.ring_bytes;
  args.l2_bytes = options_.l2_bytes;
  args.gated = gated;
  return to_arguments(args);
}

ChildSpec GpuSandboxedRunner::child_spec(const RunRequest &request, const std::string &token, bool gated) const {
  ChildSpec spec = base_spec(options_, options_.timeout_s);
  spec.arguments = measurer_arguments(request, gated);
  spec.working_directory = request.directory.string();
  spec.token = token;
  spec.gate = gated;
  return spec;
}

namespace {

// The rank's side of a gated measurer. A wait ends at the byte, at the child's end, or after
// the run's wall-clock limit (a child stuck in its driver then times out in finish()).
class GatedGpuRun : public StagedRun {
 public:
  GatedGpuRun(const ChildSpec &spec, std::string token, double timeout_s)
      : token_(std::move(token)), timeout_s_(timeout_s), cpu_limit_s_(static_cast<double>(*spec.limits.cpu_seconds)),
        child_(spec) {}
  void prepare() override { child_.send(gpu::kGatePrepare); }
  bool await_ready() override { return child_.await(gpu::kGateReady, timeout_s_); }
  void go() override { child_.send(gpu::kGateGo); }
  void quiet() override { child_.send(gpu::kGateQuiet); }
  void await_calibrated() override { child_.await(gpu::kGateCalibrated, timeout_s_); }
  void allow_timing() override { child_.send(gpu::kGateTime); }
  Measurement finish() override { return classify_run(child_.finish(), {token_, timeout_s_, cpu_limit_s_}); }
  void await_ended() override {}  // finish() waited for the process to end, its executor with it

 private:
  std::string token_;
  double timeout_s_, cpu_limit_s_;
  RunningChild child_;
};

}  // namespace

// A measurer serving one candidate after another (hpcreward-gpu-runner --serve). Runs on it
// are made and started on the GPU thread; a run's finish() (another thread) reads only the
// result pipe and sets the flags last.
struct ServingMeasurer {
  explicit ServingMeasurer(const ChildSpec &spec) : child(spec) {}
  RunningChild child;
  int runs = 0;                     // runs begun on it
  std::atomic<bool> busy = false;   // a run on it has not ended (its 'e', or retirement)
  std::atomic<bool> retired = false;  // stopped: no more runs
};

namespace {

// A serving measurer's run: the task through the gate, then the gate's bytes as for a
// measurer started per candidate, then its result frame, then its 'e' once the executor is
// gone. The measurer is retired after a run that did not end with a verdict on the candidate
// (ok or wrong_answer), after kRunsPerMeasurer runs, when its 'e' does not come in time, and
// when the rank drops the run unfinished: what went wrong in a run (a stuck driver call, a
// fault in a context) never meets the next one. It takes no other run before its 'e'.
class ServedGpuRun : public StagedRun {
 public:
  ServedGpuRun(std::shared_ptr<ServingMeasurer> measurer, const nlohmann::json &task, std::string token,
               double timeout_s)
      : measurer_(std::move(measurer)), token_(std::move(token)), timeout_s_(timeout_s) {
    measurer_->busy = true;
    ++measurer_->runs;
    measurer_->child.forget_gate_bytes();
    sent_ = measurer_->child.send_frame(task.dump());
  }
  ~ServedGpuRun() override {
    if (!ended_) retire();  // dropped: whatever it was doing is stopped
  }
  void prepare() override { measurer_->child.send(gpu::kGatePrepare); }
  bool await_ready() override {
    measurer_->child.await_any(std::string{gpu::kGateReady, gpu::kGateEnded}, timeout_s_);
    return measurer_->child.said(gpu::kGateReady);
  }
  void go() override {
    measurer_->child.send(gpu::kGateGo);
    go_s_ = monotonic_seconds();
  }
  void await_calibrated() override {
    measurer_->child.await_any(std::string{gpu::kGateCalibrated, gpu::kGateEnded}, timeout_s_);
  }
  void quiet() override { measurer_->child.send(gpu::kGateQuiet); }
  void allow_timing() override { measurer_->child.send(gpu::kGateTime); }
  Measurement finish() override {
    if (!sent_) {
      clean_ = false;
      return failed_measurement(Status::runtime_error, "the GPU measurer could not take the task (it had ended)");
    }
    const double left = timeout_s_ - (go_s_ > 0 ? monotonic_seconds() - go_s_ : 0);
    const std::optional<std::string> answer = measurer_->child.await_result_frame(left);
    Measurement measurement;
    if (!answer) {  // it ended, broke the framing or ran out of time: how it went, from the process
      const bool late = go_s_ > 0 && monotonic_seconds() - go_s_ >= timeout_s_;
      measurement = classify_run(measurer_->child.stop(late), {token_, timeout_s_, 0});
      clean_ = false;
      return measurement;
    }
    std::optional<DecodedResult> decoded = decode_result(*answer);
    if (!decoded || decoded->token != token_) {
      clean_ = false;
      return failed_measurement(Status::runtime_error, "the GPU measurer's answer was not valid");
    }
    measurement = std::move(decoded->measurement);
    phases_ = std::move(decoded->phases);
    clean_ = measurement.status == Status::ok || measurement.status == Status::wrong_answer;
    return measurement;
  }
  void await_ended() override {
    if (ended_) return;
    // Also after a run that went wrong: a measurer still alive ends its executor first.
    const bool said = measurer_->child.await(gpu::kGateEnded, timeout_s_);
    if (!said || !clean_ || measurer_->runs >= kRunsPerMeasurer) {
      retire();
      return;
    }
    ended_ = true;
    measurer_->busy = false;
  }
  PhaseSeconds phases() const override { return phases_; }

 private:
  // Stopped: its group killed and reaped (the executor with it). No more runs on it.
  void retire() {
    ended_ = true;
    measurer_->child.stop(false);
    measurer_->retired = true;
    measurer_->busy = false;
  }

  std::shared_ptr<ServingMeasurer> measurer_;
  std::string token_;
  double timeout_s_;
  bool sent_ = false;
  bool clean_ = true;   // the run ended with a verdict on the candidate
  bool ended_ = false;  // its measurer is free again or retired
  double go_s_ = 0;
  PhaseSeconds phases_;
};

}  // namespace

GpuSandboxedRunner::GpuSandboxedRunner(GpuChildOptions options) : options_(std::move(options)) {}
GpuSandboxedRunner::~GpuSandboxedRunner() = default;

std::shared_ptr<ServingMeasurer> GpuSandboxedRunner::idle_measurer() {
  for (std::shared_ptr<ServingMeasurer> &measurer : serving_) {
    if (measurer->busy) continue;
    if (measurer->retired || !measurer->child.running()) measurer = std::make_shared<ServingMeasurer>(serving_spec());
    return measurer;
  }
  return serving_.emplace_back(std::make_shared<ServingMeasurer>(serving_spec()));
}

// No RLIMIT_CPU: it would count every run the measurer serves (the per-run wall-clock limit
// bounds each); the working directory is each run's, set by the measurer.
ChildSpec GpuSandboxedRunner::serving_spec() const {
  ChildSpec spec = base_spec(options_, options_.timeout_s);
  spec.limits.cpu_seconds.reset();
  spec.arguments = {"--serve", "--result-fd", "3"};
  spec.working_directory = "/";
  spec.gate = true;
  return spec;
}

std::unique_ptr<StagedRun> GpuSandboxedRunner::start(const RunRequest &request) {
  std::string token = make_token();
  if (!options_.serving_measurers) {
    const ChildSpec spec = child_spec(request, token, true);
    return std::make_unique<GatedGpuRun>(spec, std::move(token), options_.timeout_s);
  }
  const nlohmann::json task{{"token", token},
                            {"arguments", measurer_arguments(request, true)},
                            {"directory", std::filesystem::absolute(request.directory).string()}};
  return std::make_unique<ServedGpuRun>(idle_measurer(), task, std::move(token), options_.timeout_s);
}

Measurement GpuSandboxedRunner::run(const RunRequest &request) {
  const std::string token = make_token();
  const ChildSpec spec = child_spec(request, token);
  const ChildOutcome outcome = run_child(spec);
  return classify_run(outcome, {token, options_.timeout_s, static_cast<double>(*spec.limits.cpu_seconds)});
}

GpuProbe probe_gpu(const GpuChildOptions &options, int ceiling_size) {
  const nlohmann::json answer = run_service_child(
      options, {"--probe", "--ceiling-size", std::to_string(ceiling_size), "--result-fd", "3", "--token-fd", "4"},
      300, "GPU probe");
  const nlohmann::json &probe = answer.at("probe");
  GpuProbe result;
  result.gpu = probe.at("gpu").get<GpuInfo>();
  result.ceilings.f64 = probe.at("ceilings").at("f64").get<double>();
  result.ceilings.f32 = probe.at("ceilings").at("f32").get<double>();
  result.ceilings.f16 = probe.at("ceilings").at("f16").get<double>();
  result.ceilings.f32_fp32 = probe.at("ceilings").value("f32_fp32", 0.0);
  result.ceilings.bf16 = probe.at("ceilings").at("bf16").get<double>();
  return result;
}

std::string check_gpu(const GpuChildOptions &options) {
  try {
    const nlohmann::json answer =
        run_service_child(options, {"--canary", "--result-fd", "3", "--token-fd", "4"}, 60, "GPU canary");
    return answer.value("canary", std::string("no canary answer"));
  } catch (const std::exception &error) {
    return error.what();
  }
}

GpuYardsticks measure_gpu_yardsticks(const GpuChildOptions &options, const Problem &problem) {
  const nlohmann::json answer = run_service_child(
      options,
      {"--yardsticks", "--precision", std::string(to_string(problem.precision)), "--layout", to_string(problem.layout),
       "--nominal", to_string(problem.nominal), "--l2-bytes", std::to_string(options.l2_bytes), "--result-fd", "3",
       "--token-fd", "4"},
      600, "GPU yardsticks");
  const nlohmann::json &measured = answer.at("yardsticks");
  const auto timing = [&](const char *name) {
    const nlohmann::json &t = measured.at(name);
    return YardstickTiming{t.at("gflops").get<double>(), t.at("calls").get<int>(), t.at("iqr").get<double>()};
  };
  return {.cublas = timing("cublas"), .cublaslt = timing("cublaslt")};
}

std::string visible_device_for(int index, const char *inherited) {
  if (inherited == nullptr || *inherited == '\0') return std::to_string(index);
  std::vector<std::string> entries;
  std::string current;
  for (const char *c = inherited;; ++c) {
    if (*c == ',' || *c == '\0') {
      if (!current.empty()) entries.push_back(current);
      current.clear();
      if (*c == '\0') break;
    } else {
      current += *c;
    }
  }
  if (index < 0 || static_cast<std::size_t>(index) >= entries.size())
    throw std::invalid_argument("GPU rank " + std::to_string(index) + " of this node has no GPU: CUDA_VISIBLE_DEVICES=" +
                                inherited + " lists " + std::to_string(entries.size()) +
                                " (start at most that many GPU ranks per node)");
  return entries[static_cast<std::size_t>(index)];
}

}  // namespace hpcreward
