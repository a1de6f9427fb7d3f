#pragma once
// Runs a function in a forked child process (no exec) and hands back the text it returns.
// The checker's parser runs this way: a macro bomb, an input that crashes libclang or
// exhausts its memory costs the child, never the rank. The child gets an address-space
// limit (its current size plus a budget), a CPU-time limit and a wall-clock deadline, has
// stdout and stderr on /dev/null, and leaves with _exit (no atexit handlers, no flushing
// of the parent's buffers).
#include <cstdint>
#include <functional>
#include <string>

namespace hpcreward::source_checks {

struct ForkLimits {
  double deadline_s = 10;                   // wall clock, then SIGKILL
  std::uint64_t memory_bytes = 2ULL << 30;  // address space on top of what the process has
  // > 0: killed unless its first part was sent by then (run_forked_in_parts), so a later
  // phase's budget never lengthens the first phase's limit.
  double first_part_deadline_s = 0;
};

struct ForkOutcome {
  enum class End { returned, timed_out, out_of_memory, crashed, not_started };
  End end = End::not_started;
  std::string output;  // what the function returned (End::returned; run_forked_in_parts: any)
  std::string detail;  // the signal or error otherwise
};

// Never throws for anything the child does. `work` may throw: std::bad_alloc reads as
// out_of_memory, anything else as crashed.
ForkOutcome run_forked(const std::function<std::string()> &work, const ForkLimits &limits);

// The same, for work done in phases: `work` sends each phase's answer as soon as it has it,
// and `output` keeps what was sent before the child ended, however it ended (the caller
// learns which phases finished).
using Send = std::function<void(const std::string &)>;
ForkOutcome run_forked_in_parts(const std::function<void(const Send &)> &work,
                                const ForkLimits &limits);

}  // namespace hpcreward::source_checks
