#include "bench_node/cpu/runner_args.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include <boost/program_options.hpp>

#include "common/number_text.hpp"

namespace hpcreward {

namespace po = boost::program_options;

namespace {

po::options_description runner_options() {
  po::options_description options("hpcreward-runner: loads one candidate, verifies and times it");
  options.add_options()
      ("help", "this text")
      ("object", po::value<std::string>()->required(), "candidate shared object (.so)")
      ("precision", po::value<std::string>()->required(), "f64, f32 or f16 (GPU)")
      ("layout", po::value<std::string>()->default_value("nn"), "operand layout: nn, tn, nt, tt, then -batched")
      ("nominal", po::value<std::string>()->required(), "nominal shape [B*]MxNxK (timed)")
      ("check", po::value<std::vector<std::string>>()->composing(), "check shape [B*]MxNxK (repeatable)")
      ("tolerance", po::value<double>()->required(), "bound on ||C-Cref||_F/(||A||_F ||B||_F)")
      ("accumulation", po::value<std::string>()->default_value("f32"),
       "GPU f16: the accumulation the problem allows, f32 or f16 (its own residual bound)")
      ("warmup-s", po::value<double>()->required(), "most warm-up time")
      ("warmup-min-s", po::value<double>()->default_value(TimingOptions{}.warmup_min_s), "least warm-up time")
      ("warmup-calls", po::value<int>()->default_value(TimingOptions{}.warmup_calls),
       "warm-up calls whose times must agree")
      ("warmup-settle", po::value<double>()->default_value(TimingOptions{}.warmup_settle),
       "relative spread at which they agree (0: warm up for --warmup-s)")
      ("min-reps", po::value<int>()->required(), "timed calls before the RSE may stop")
      ("min-time-s", po::value<double>()->default_value(TimingOptions{}.min_time_s),
       "least timed seconds before the RSE may stop")
      ("max-reps", po::value<int>()->required(), "most timed calls")
      ("target-rse", po::value<double>()->required(), "relative standard error to stop at")
      ("time-cap-s", po::value<double>()->required(), "timing loop time cap")
      ("result-fd", po::value<int>()->default_value(3), "pipe the result JSON is written to")
      ("token-fd", po::value<int>()->default_value(4), "pipe the result token is read from")
      ("progress-fd", po::value<int>()->default_value(-1),
       "pipe to mark progress on before calls into the candidate (the rank's watchdog); -1: none")
      ("element-tolerance", po::value<double>()->default_value(0), "GPU: bound on |C-Cref|_ij/(|A||B|)_ij")
      ("ring-bytes", po::value<std::uint64_t>()->default_value(0), "GPU: device memory for the timing ring")
      ("l2-bytes", po::value<std::uint64_t>()->default_value(0), "GPU: the device's L2 size")
      ("check-threads", po::value<int>()->default_value(0),
       "CPU: the OpenMP team of the full checks, in an executor of their own (0: the timed calls' executor)")
      ("no-threads", po::bool_switch(), "CPU: the candidate may start no thread (a stage without OpenMP)")
      ("gated", po::bool_switch(), "GPU: started ahead of its turn, waits at the gate (fd 7)");
  return options;
}

Shape shape_option(const std::string &text) {
  auto shape = parse_shape(text);
  if (!shape) throw std::invalid_argument("bad shape: " + text);
  return *shape;
}

}  // namespace

bool compiler_flags_offer_threads(const std::vector<std::string> &flags) {
  return std::any_of(flags.begin(), flags.end(), [](const std::string &flag) {
    return flag == "-fopenmp" || flag == "-pthread";
  });
}

int check_threads_for(int share, const std::vector<std::string> &flags) {
  const bool openmp = std::find(flags.begin(), flags.end(), "-fopenmp") != flags.end();
  return openmp && share < kFewestCheckThreads ? kFewestCheckThreads : 0;
}

RunnerArgs runner_args_for(const std::string &object_path, const Problem &problem, const TimingOptions &timing) {
  RunnerArgs args;
  args.object_path = object_path;
  args.precision = problem.precision;
  args.layout = problem.layout;
  args.nominal = problem.nominal;
  args.check_shapes = problem.check_shapes;
  args.tolerance = problem.tolerance;
  args.accumulation = problem.accumulation;
  args.element_tolerance = problem.element_tolerance;
  args.timing = timing;
  return args;
}

std::vector<std::string> to_arguments(const RunnerArgs &args) {
  std::vector<std::string> out = {
      "--object", args.object_path,
      "--precision", std::string(to_string(args.precision)),
      "--layout", to_string(args.layout),
      "--nominal", to_string(args.nominal),
      "--tolerance", number_text(args.tolerance, 17),
      "--warmup-s", number_text(args.timing.warmup_s, 17),
      "--warmup-min-s", number_text(args.timing.warmup_min_s, 17),
      "--warmup-calls", std::to_string(args.timing.warmup_calls),
      "--warmup-settle", number_text(args.timing.warmup_settle, 17),
      "--min-reps", std::to_string(args.timing.min_reps),
      "--min-time-s", number_text(args.timing.min_time_s, 17),
      "--max-reps", std::to_string(args.timing.max_reps),
      "--target-rse", number_text(args.timing.target_rse, 17),
      "--time-cap-s", number_text(args.timing.time_cap_s, 17),
      "--result-fd", std::to_string(args.result_fd),
      "--token-fd", std::to_string(args.token_fd),
  };
  if (args.accumulation != Accumulation::f32)
    out.insert(out.end(), {"--accumulation", std::string(to_string(args.accumulation))});
  if (args.element_tolerance > 0) {
    out.push_back("--element-tolerance");
    out.push_back(number_text(args.element_tolerance, 17));
  }
  if (args.progress_fd >= 0) out.insert(out.end(), {"--progress-fd", std::to_string(args.progress_fd)});
  if (args.ring_bytes > 0) out.insert(out.end(), {"--ring-bytes", std::to_string(args.ring_bytes)});
  if (args.l2_bytes > 0) out.insert(out.end(), {"--l2-bytes", std::to_string(args.l2_bytes)});
  if (args.gated) out.push_back("--gated");
  if (!args.threads) out.push_back("--no-threads");
  if (args.check_threads > 0) out.insert(out.end(), {"--check-threads", std::to_string(args.check_threads)});
  for (const Shape &shape : args.check_shapes) {
    out.push_back("--check");
    out.push_back(to_string(shape));
  }
  return out;
}

RunnerArgs parse_runner_args(int argc, const char *const *argv) {
  po::variables_map values;
  po::store(po::parse_command_line(argc, argv, runner_options()), values);
  po::notify(values);
  RunnerArgs args;
  args.object_path = values["object"].as<std::string>();
  auto precision = parse_precision(values["precision"].as<std::string>());
  if (!precision) throw std::invalid_argument("bad precision: " + values["precision"].as<std::string>());
  args.precision = *precision;
  const std::optional<Layout> layout = parse_layout(values["layout"].as<std::string>());
  if (!layout) throw std::invalid_argument("bad layout: " + values["layout"].as<std::string>());
  args.layout = *layout;
  args.nominal = shape_option(values["nominal"].as<std::string>());
  if (values.count("check"))
    for (const std::string &text : values["check"].as<std::vector<std::string>>())
      args.check_shapes.push_back(shape_option(text));
  args.tolerance = values["tolerance"].as<double>();
  const std::optional<Accumulation> accumulation = parse_accumulation(values["accumulation"].as<std::string>());
  if (!accumulation) throw std::invalid_argument("bad accumulation: " + values["accumulation"].as<std::string>());
  args.accumulation = *accumulation;
  args.timing.warmup_s = values["warmup-s"].as<double>();
  args.timing.warmup_min_s = values["warmup-min-s"].as<double>();
  args.timing.warmup_calls = values["warmup-calls"].as<int>();
  args.timing.warmup_settle = values["warmup-settle"].as<double>();
  args.timing.min_reps = values["min-reps"].as<int>();
  args.timing.min_time_s = values["min-time-s"].as<double>();
  args.timing.max_reps = values["max-reps"].as<int>();
  args.timing.target_rse = values["target-rse"].as<double>();
  args.timing.time_cap_s = values["time-cap-s"].as<double>();
  args.result_fd = values["result-fd"].as<int>();
  args.token_fd = values["token-fd"].as<int>();
  args.progress_fd = values["progress-fd"].as<int>();
  args.element_tolerance = values["element-tolerance"].as<double>();
  args.ring_bytes = values["ring-bytes"].as<std::uint64_t>();
  args.l2_bytes = values["l2-bytes"].as<std::uint64_t>();
  args.gated = values["gated"].as<bool>();
  args.threads = !values["no-threads"].as<bool>();
  args.check_threads = values["check-threads"].as<int>();
  if (args.check_threads < 0) throw std::invalid_argument("--check-threads must not be negative");
  return args;
}

std::string runner_usage() {
  std::ostringstream text;
  text << runner_options()
       << "\nStarted by hpcreward-bench inside its sandbox; not meant to be run by hand on\n"
          "untrusted code. Writes {\"token\":..., \"measurement\":...} to --result-fd.\n"
          "Never loads the candidate: it starts hpcreward-executor (next to it), which loads\n"
          "the object, installs a seccomp filter before calling it (a disallowed system call\n"
          "kills it with SIGSYS: bench_node/sandbox) and calls it on the runner's command.\n";
  return text.str();
}

}  // namespace hpcreward
