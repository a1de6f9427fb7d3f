#include "bench_node/cpu/runner_frame.hpp"

#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <new>

#include "bench_node/process/host_memory.hpp"
#include "bench_node/process/result_envelope.hpp"
#include "bench_node/process/runner_pipes.hpp"
#include "bench_node/process/write_all.hpp"

namespace hpcreward {

bool asks_for_help(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) return true;
  return false;
}

Measurement measure_or_report(const std::function<Measurement()> &measure) {
  try {
    return measure();
  } catch (const std::bad_alloc &) {
    return failed_measurement(Status::runtime_error, out_of_host_memory());
  } catch (const std::exception &error) {
    return failed_measurement(Status::runtime_error, std::string("harness error: ") + error.what());
  }
}

int run_measurer(int argc, char **argv, const Measurer &measurer) {
  if (asks_for_help(argc, argv)) {
    std::fputs(runner_usage().c_str(), stdout);
    std::fputs(measurer.more_usage.c_str(), stdout);
    return 0;
  }
  ::prctl(PR_SET_DUMPABLE, 0);  // out of reach of /proc/<pid>/mem (sandbox/capabilities.hpp)
  RunnerArgs args;
  try {
    args = parse_runner_args(argc, argv);
  } catch (const std::exception &error) {
    std::fprintf(stderr, "%s: %s\n", measurer.program, error.what());
    return 2;
  }
  const std::string token = read_token(args.token_fd);

  const Measurement measurement = measure_or_report([&] { return measurer.measure(args); });
  write_all(args.result_fd, encode_result(token, measurement));
  ::_exit(0);
}

}  // namespace hpcreward
