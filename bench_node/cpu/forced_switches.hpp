#pragma once
// Thread switches at arbitrary instructions, for the executor of an OpenMP stage's full checks.
// An unsynchronized `+=` on shared data loses an update only when another thread runs between
// one thread's load and its store. On a rank with one CPU for the candidate, the scheduler's
// time slices (milliseconds) are longer than a check's parallel regions, so the team's threads
// run one after another and a race never shows. A timer for each thread of the team, signalling
// it every few tens of microseconds, whose handler yields the CPU, makes the
// threads interleave at arbitrary points as they would on several cores. Only the checks'
// executor gets it: the timed calls keep an undisturbed CPU.
//
// When: after the OpenMP team is started (openmp_team.hpp), before the seccomp filter
// (timer_create and sigaction are not allowed after it). The
// handler makes one system call, sched_yield, which both filters allow; SA_RESTART keeps the
// candidate's and libgomp's waits going.
#include <string>

namespace hpcreward {

// Arms the timers: every thread of the candidate's OpenMP team (the calling thread alone when
// the candidate has no OpenMP), each every `period_us` microseconds. ""
// on success, else what failed (the checks then run without, as before).
std::string start_forced_switches(int period_us);

// The period the checks' executor uses: short next to a thread's share of a check call, so a
// race shows in nearly every call (ForcedSwitchesShowARaceOnOneCpu passes at 200 us too; 100
// leaves a margin); each switch costs a context switch, so the checks on one CPU take a few
// times longer (untimed; the run's limit absorbs it).
inline constexpr int kForcedSwitchPeriodUs = 100;

}  // namespace hpcreward
