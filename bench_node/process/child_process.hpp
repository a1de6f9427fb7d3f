#pragma once
// Runs one program in a child process the rank can always kill (docs/design.md "Running untrusted
// code"): fork + execve, its own process group, resource limits, stdin from /dev/null,
// stdout+stderr drained into a bounded capture, a wall-clock deadline after which the whole
// group is killed, and the whole group killed again once the child is gone.
//
// Child file descriptors: 0 /dev/null, 1+2 the output pipe, 3 the result pipe (when asked
// for), 4 the token pipe (when a token is given), 6 the progress pipe (when asked for), 7 the
// gate (when asked for); every other descriptor is closed.
//
// The gate is a socket between the rank and a child it starts ahead of its turn: both sides
// write single bytes whose meaning is theirs (the GPU measurer's: start_gate.hpp). A gated
// child's deadline runs from finish(), not from its start.
//
// A child may also serve one run after another (the GPU rank's persistent measurers): the
// rank sends each run's task as a frame through the gate (send_frame: 'T', then frames.hpp's
// frame), the child writes each result as a frame to its result pipe (await_result_frame),
// and the rank stops it (stop) when it has served enough or a run went wrong.
//
// The progress pipe is a watchdog: the child writes a byte now and then (the runner: before
// calls into the candidate), and a child that writes none for `silence_limit_s` is killed like
// one past its deadline. A hung call then costs the silence limit, not the whole run's.
#include <cstddef>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench_node/process/environment.hpp"

namespace hpcreward {

struct ChildLimits {  // setrlimit in the child; nullopt leaves the limit as inherited
  std::optional<std::uint64_t> address_space_bytes;  // RLIMIT_AS
  // RLIMIT_DATA: since Linux 4.7, private writable mappings (heap, anonymous mmap), not
  // PROT_NONE reservations nor shared or read-only ones; where RLIMIT_AS can't be used (CUDA).
  std::optional<std::uint64_t> data_bytes;
  std::optional<std::uint64_t> cpu_seconds;          // RLIMIT_CPU (SIGXCPU, SIGKILL 1 s later)
  std::optional<std::uint64_t> file_size_bytes;      // RLIMIT_FSIZE
  std::optional<std::uint64_t> open_files;           // RLIMIT_NOFILE
  std::uint64_t core_bytes = 0;                      // RLIMIT_CORE
};

struct ChildSpec {
  std::string program;                 // executed as given (no PATH search)
  std::vector<std::string> arguments;  // after argv[0] (argv[0] is `program`)
  Environment environment;             // complete
  std::string working_directory;       // empty: the parent's
  ChildLimits limits;
  double deadline_s = 60;              // wall clock, from fork
  std::size_t output_limit = 4096;     // bytes of stdout+stderr kept; the rest is discarded
  bool result_pipe = false;            // give the child fd 3 and collect what it writes
  std::size_t result_limit = 1 << 20;
  std::optional<std::string> token;    // readable by the child on fd 4
  bool progress_pipe = false;          // give the child fd 6 to report progress on
  double silence_limit_s = 0;          // > 0 (with progress_pipe): kill after this long without progress
  bool gate = false;                   // give the child fd 7, a socket to the parent (RunningChild)
};

// The child's descriptors of the progress pipe and the gate.
inline constexpr int kChildProgressFd = 6;
inline constexpr int kChildGateFd = 7;

struct ChildOutcome {
  bool started = false;  // false: fork, a pipe, chdir, setrlimit or execve failed
  std::string start_error;
  bool timed_out = false;  // killed at the wall-clock deadline
  bool went_silent = false;  // killed after silence_limit_s without progress (timed_out is false)
  std::size_t progress_marks = 0;  // bytes the child wrote to its progress pipe
  bool exited = false;     // exit_code is valid
  int exit_code = 0;
  bool signaled = false;  // signal is valid
  int signal = 0;
  double wall_s = 0;
  double cpu_s = 0;  // user + system of the child and the descendants it waited for
  std::string output;         // the first output_limit bytes of stdout+stderr
  std::size_t output_bytes = 0;  // all bytes seen
  std::string result;         // what the child wrote to fd 3 (up to result_limit)
  bool result_overflow = false;
};

// A child started and not yet finished, for a caller that talks to it through the gate before
// collecting it. Never throws for anything the child does; throws std::bad_alloc only.
class RunningChild {
 public:
  explicit RunningChild(const ChildSpec &spec);  // fork + execve; started() false if that failed
  ~RunningChild();  // a child not finished is killed (its group too) and reaped
  RunningChild(RunningChild &&) noexcept;
  RunningChild(const RunningChild &) = delete;
  RunningChild &operator=(const RunningChild &) = delete;

  bool started() const;
  // One byte through the gate; false when there is no gate or the child closed it.
  bool send(char byte);
  // Until the child has sent `byte` through the gate (now or before: true), closed it or ended,
  // or timeout_s passed (false; every later wait then ends at once too).
  bool await(char byte, double timeout_s);
  // The same for the first of `bytes` to come.
  bool await_any(std::string_view bytes, double timeout_s);
  // Whether an await has seen the child send `byte` (since forget_gate_bytes()); never waits.
  bool said(char byte) const;

  // A child serving runs. One task through the gate: 'T' and the frame of `payload`.
  bool send_frame(const std::string &payload);
  // Forgets the gate bytes seen so far and those sent but not yet read: its next run says
  // them again. Call it once the child has said everything of its run before.
  void forget_gate_bytes();
  // Not yet ended (nor finished or stopped).
  bool running() const;
  // The next frame on the result pipe (its output drained meanwhile); nullopt when the child
  // ended or closed the pipe first, announced a frame over the spec's result_limit, or
  // timeout_s passed.
  std::optional<std::string> await_result_frame(double timeout_s);
  // Kills what is left of its group now and reaps it: its outcome as finish() would give it,
  // with timed_out as asked. Once; finish() and stop() then return the same outcome.
  ChildOutcome stop(bool timed_out);
  // Drains its output until it ends, passes its deadline or goes silent, then kills what is
  // left of its group and reaps it. Once; later calls return the same outcome.
  ChildOutcome finish();

 private:
  struct State;
  void start();
  void reap(std::chrono::steady_clock::time_point started);  // kills the group, reaps, fills the outcome
  std::unique_ptr<State> state_;
};

// RunningChild(spec).finish(). Never throws for anything the child does; throws std::bad_alloc only.
ChildOutcome run_child(const ChildSpec &spec);

// "SIGSEGV (Segmentation fault)"
std::string describe_signal(int signal);

// The first line of `text` that is not blank (trimmed, at most `limit` characters).
std::string first_line(const std::string &text, std::size_t limit = 200);

}  // namespace hpcreward
