// hpcreward-runner: the child that loads one candidate and verifies and times it.
//
// Started by hpcreward-bench with fork+execv inside its sandbox (own process group,
// rlimits, private directory, deadline). It reads the rank's token from --token-fd before
// any candidate code is loaded, loads the candidate, installs the seccomp filter
// (sandbox/seccomp_filter.hpp), runs the harness, writes exactly one JSON object
// {"token", "measurement"} to --result-fd and exits 0 without running any destructors
// or atexit handlers the candidate may have registered.
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <random>
#include <string>

#include "bench_node/harness.hpp"
#include "bench_node/progress_marks.hpp"
#include "bench_node/result_envelope.hpp"
#include "bench_node/runner_pipes.hpp"
#include "bench_node/write_all.hpp"
#include "bench_node/runner_args.hpp"
#include "bench_node/sandbox/seccomp_filter.hpp"

namespace hpcreward {
namespace {

Measurement run_candidate(const RunnerArgs &args) {
  void *handle = ::dlopen(args.object_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char *error = ::dlerror();
    return failed_measurement(Status::compile_error,
                   std::string("cannot load the compiled object: ") + (error ? error : "unknown"));
  }
  ::dlerror();
  void *symbol = ::dlsym(handle, "matmul");
  if (symbol == nullptr) return failed_measurement(Status::format_error, "no matmul entry point");

  HarnessConfig config;
  config.nominal = args.nominal;
  config.check_shapes = args.check_shapes;
  config.tolerance = args.tolerance;
  config.seed = args.seed;
  std::random_device device;  // what the candidate can't predict from the command line
  config.check_seed = (static_cast<std::uint64_t>(device()) << 32) | device();
  config.timing = args.timing;
  // A mark must never block the harness: a full pipe drops it (the rank reads it as silence).
  if (args.progress_fd >= 0) ::fcntl(args.progress_fd, F_SETFL, ::fcntl(args.progress_fd, F_GETFL) | O_NONBLOCK);
  ProgressMarks progress(args.progress_fd);
  config.progress = &progress;

  // The seccomp filter goes on here: after dlopen and dlsym (which open, read and map
  // files) and after everything else the runner itself needs from outside (the token, the
  // random check seed), and before the first call into candidate code. The candidate's
  // constructors already ran inside dlopen, unfiltered: a static check forbids them. No
  // candidate code runs if the filter can't be installed.
  try {
    install_candidate_filter({.result_fd = args.result_fd, .progress_fd = args.progress_fd, .self = 0});
  } catch (const SandboxError &error) {
    return failed_measurement(Status::runtime_error,
                   std::string("could not install the sandbox: ") + error.what());
  }
  if (args.precision == Precision::f16)  // __half problems are CUDA problems (GPU ranks)
    return failed_measurement(Status::format_error, "f16 problems run on GPU ranks, not in hpcreward-runner");
  if (args.precision == Precision::f64)
    return run_harness<double>(reinterpret_cast<MatmulFn<double>>(symbol), config);
  return run_harness<float>(reinterpret_cast<MatmulFn<float>>(symbol), config);
}

}  // namespace
}  // namespace hpcreward

int main(int argc, char **argv) {
  using namespace hpcreward;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::fputs(runner_usage().c_str(), stdout);
      return 0;
    }
  RunnerArgs args;
  try {
    args = parse_runner_args(argc, argv);
  } catch (const std::exception &error) {
    std::fprintf(stderr, "hpcreward-runner: %s\n", error.what());
    return 2;
  }
  const std::string token = read_token(args.token_fd);

  Measurement measurement;
  try {
    measurement = run_candidate(args);
  } catch (const std::bad_alloc &) {
    measurement = failed_measurement(Status::runtime_error, "out of memory (memory limit reached)");
  } catch (const std::exception &error) {
    measurement = failed_measurement(Status::runtime_error, std::string("harness error: ") + error.what());
  }
  write_all(args.result_fd, encode_result(token, measurement));
  ::_exit(0);
}
