#include "bench_node/gpu/gpu_child.hpp"

#include <stdexcept>

#include <nlohmann/json.hpp>

#include "bench_node/gpu/start_gate.hpp"
#include "bench_node/process/child_process.hpp"
#include "bench_node/process/classify.hpp"
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
  spec.environment = gpu_child_environment(options.visible_device);
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

Environment gpu_child_environment(const std::string &visible_device) {
  Environment environment = inherited_environment();
  set_variable(environment, "CUDA_VISIBLE_DEVICES", visible_device, true);
  set_variable(environment, "CUDA_CACHE_DISABLE", "1", true);  // no JIT cache written to $HOME
  set_variable(environment, "CUDA_DEVICE_ORDER", "PCI_BUS_ID", true);
  return environment;
}

ChildSpec GpuSandboxedRunner::child_spec(const RunRequest &request, const std::string &token, bool gated) const {
  const BenchTask &task = *request.task;
  RunnerArgs args = runner_args_for(request.object.string(), task.problem, options_.timing);
  args.ring_bytes = options_.ring_bytes;
  args.l2_bytes = options_.l2_bytes;
  args.gated = gated;
  ChildSpec spec = base_spec(options_, options_.timeout_s);
  spec.arguments = to_arguments(args);
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
  void await_ready() override { child_.await(gpu::kGateReady, timeout_s_); }
  void go() override { child_.send(gpu::kGateGo); }
  void await_calibrated() override { child_.await(gpu::kGateCalibrated, timeout_s_); }
  void allow_timing() override { child_.send(gpu::kGateTime); }
  Measurement finish() override { return classify_run(child_.finish(), {token_, timeout_s_, cpu_limit_s_}); }

 private:
  std::string token_;
  double timeout_s_, cpu_limit_s_;
  RunningChild child_;
};

}  // namespace

std::unique_ptr<StagedRun> GpuSandboxedRunner::start(const RunRequest &request) {
  std::string token = make_token();
  const ChildSpec spec = child_spec(request, token, true);
  return std::make_unique<GatedGpuRun>(spec, std::move(token), options_.timeout_s);
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
