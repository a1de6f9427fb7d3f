#pragma once
// The measurer's side of the separation (docs/design.md "Measuring honestly"): the candidate runs in
// hpcreward-executor, a child process that shares nothing with the measurer but the operand
// region (shared_region.hpp). Clock readings, samples, tolerances, shapes, secrets, reference
// data, the verdict and the result token stay in the measurer's memory, which no code of the
// candidate's can address; the protocol is in executor_protocol.hpp.
//
// Each call is timed from just before SIGCONT to waitid's report of the executor's next stop,
// less the least such round trip measured before the candidate was loaded (the handshake: a
// stop, a continue and two wake-ups, tens of microseconds); at most half of a call's time is
// taken off that way.
#include <signal.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "bench_node/cpu/candidate_calls.hpp"
#include "bench_node/cpu/executor_protocol.hpp"
#include "bench_node/cpu/shared_region.hpp"

namespace hpcreward {

struct ExecutorOptions {
  std::string program;  // hpcreward-executor
  std::string object;   // the candidate's shared object
  std::size_t element_bytes = 8;
  bool batched = false;  // the candidate's signature: Layout::batched
  bool threads = true;   // false: the executor's filter kills any new thread (no OpenMP in the stage)
  // > 0: the OpenMP team the candidate's libgomp starts with (OMP_NUM_THREADS in the executor,
  // so placed before the filter as the timed team is); 0: OMP_NUM_THREADS as inherited.
  int openmp_threads = 0;
  // > 0: a thread switch forced every this many microseconds (forced_switches.hpp): the full
  // checks' executor, where a race must show on few CPUs. 0: none (the timed calls).
  int forced_switches_us = 0;
  std::size_t operand_bytes = 0;  // of the shared region
  int calibration_rounds = 16;
};

class ExecutorProcess : public CandidateCalls {
 public:
  explicit ExecutorProcess(const ExecutorOptions &options);  // allocates the region only
  ~ExecutorProcess() override;  // kills and reaps the executor
  ExecutorProcess(const ExecutorProcess &) = delete;
  ExecutorProcess &operator=(const ExecutorProcess &) = delete;

  // Starts the executor, measures the handshake, loads the candidate under its sandbox. Not
  // ok: the verdict (compile_error for an object that won't load, format_error without
  // matmul, or how the executor ended). Throws std::system_error when it can't be started.
  Verdict start();

  OperandMemory &memory() override { return region_; }
  CallOutcome call(const Shape &shape, const void *a, const void *b, void *c) override;

  double handshake_s() const { return handshake_s_; }

 private:
  // SIGCONT, then the executor's next stop: the seconds from before SIGCONT, or how it ended.
  Verdict resume(double &seconds);
  // The executor's next stop or end (waitid), reaped if it ended.
  siginfo_t next_change() const;
  ExecutorControl &control() const;

  ExecutorOptions options_;
  SharedRegion region_;
  pid_t pid_ = -1;
  double handshake_s_ = 0;
};

// Shared with the GPU measurer (gpu/gpu_executor.hpp).
// What an executor wrote for the measurer to read, as bounded printable text.
std::string untrusted_text(const char *text, std::size_t limit);
// How an executor that ended during a command ended (waitid's report), as a verdict.
Verdict executor_end_verdict(const siginfo_t &info);
// fork + execv of `arguments` with `descriptors` as fds 3, 4, ... and, besides them, only the
// standard streams; RLIMIT_FSIZE 0. Returns the pid (throws std::system_error).
pid_t spawn_executor(std::vector<std::string> arguments, const std::vector<int> &descriptors);

}  // namespace hpcreward
