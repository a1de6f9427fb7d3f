#pragma once
// What every measurer does around its harness (hpcreward-runner, hpcreward-gpu-runner): --help,
// out of reach of /proc/<pid>/mem, the command line (runner_args.hpp), the rank's token, the
// measurement, and exactly one JSON object {"token", "measurement"} on --result-fd
// (process/result_envelope.hpp). Whatever the measurement throws becomes a runtime_error
// measurement, so the rank always gets an answer it can check.
#include <functional>
#include <string>

#include "bench_node/cpu/runner_args.hpp"
#include "common/messages.hpp"

namespace hpcreward {

struct Measurer {
  const char *program;     // for errors on stderr: "hpcreward-runner"
  std::string more_usage;  // after runner_usage() for --help; may be empty
  // Verifies and times the candidate. May throw: std::bad_alloc is reported as out of host
  // memory, any other exception as a harness error with its message.
  Measurement (*measure)(const RunnerArgs &args);
};

// Whether the command line asks for --help (or -h).
bool asks_for_help(int argc, char **argv);

// What `measure` returns, or a runtime_error measurement for what it throws: std::bad_alloc
// as out of host memory, anything else as a harness error with its message.
Measurement measure_or_report(const std::function<Measurement()> &measure);

// The whole life of a measurer: returns 0 after --help, 2 for a bad command line; otherwise
// it writes the result and ends the process with _exit(0).
int run_measurer(int argc, char **argv, const Measurer &measurer);

}  // namespace hpcreward
