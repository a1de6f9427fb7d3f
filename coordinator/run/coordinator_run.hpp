#pragma once
// One run of the coordinator (rank 0), from its options to its exit code, in named phases:
// open the log (or resume it), read the candidates and start the benchmark ranks (refusing
// what no rank can score), rebuild the ladder's state and open the writer, wire the scoring,
// then serve batches (serve_run.hpp) or score the file, and finish: the summary, the outcome.
// main.cpp parses the options, gives it the MPI world and writes the outcome file.
#include <cstdio>
#include <functional>

#include "coordinator/run/bench_world.hpp"
#include "coordinator/run/console.hpp"
#include "coordinator/run/options.hpp"
#include "coordinator/run/run_outcome.hpp"

namespace hpcreward {

// Runs the coordinator over `world`. `outcome` is kept up to date as it goes (rows, lost
// ranks), so it tells what happened however the run ends. Returns the exit code
// (kExitComplete, or kExitStopped after a stop signal); throws on errors, NoRanksLeft when
// every rank of a kind that still had work was quarantined. The log is closed when it returns.
int run_coordinator(CoordinatorOptions options, BenchWorld &world, Console &console, RunOutcome &outcome);

// Runs `run` (which returns an exit code) into `outcome`: what it throws becomes the exit
// code and the message, also said on `errors`: NoRanksLeft kExitNoRanks,
// std::invalid_argument kExitConfigError (bad options, config or input), anything else
// kExitError.
void run_to_outcome(RunOutcome &outcome, std::FILE *errors, const std::function<int()> &run);

}  // namespace hpcreward
