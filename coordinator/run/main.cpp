// hpcreward-coordinator: rank 0. Reads candidates (a file, or with --serve batches that
// trainers send over HTTP), scores them batch by batch on the benchmark ranks (every other
// rank of the MPI world runs hpcreward-bench), moves each problem up the stage ladder and
// writes OUT/rewards.h5 (or goes on with it: --resume). The run itself is
// coordinator_run.hpp; this file starts MPI, parses the options, and ends the job: every exit
// writes OUT/coordinator.outcome.json (run_outcome.hpp), then MPI_Finalize, or MPI_Abort when
// a rank would never let MPI_Finalize return.
#include <mpi.h>

#include <cstdio>
#include <filesystem>
#include <optional>

#include "coordinator/run/console.hpp"
#include "coordinator/run/coordinator_run.hpp"
#include "coordinator/run/mpi_world.hpp"
#include "coordinator/run/options.hpp"
#include "coordinator/run/run_outcome.hpp"
#include "coordinator/run/stop_signals.hpp"
#include "common/private_memory.hpp"

int main(int argc, char **argv) {
  using namespace hpcreward;
  // Before any output: progress lines are buffered (console.hpp); 64 KiB holds a burst of
  // several hundred.
  static char stdout_buffer[1 << 16];
  std::setvbuf(stdout, stdout_buffer, _IOFBF, sizeof stdout_buffer);
  // First: SIGUSR1's default action would kill the coordinator and lose the stop for a requeue;
  // again after MPI_Init, in case an MPI library replaces a handler there.
  install_stop_signals();
  // Before MPI_Init: it turns off a transport MPI_Init would choose.
  if (!make_rank_memory_private()) std::perror("hpcreward-coordinator: cannot make its memory private");
  MPI_Init(&argc, &argv);
  install_stop_signals();
  int rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (rank != 0) {
    std::fprintf(stderr, "hpcreward-coordinator must be rank 0 (it is rank %d)\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  RunOutcome outcome;
  {
    // The world's channel finishes its sends when it goes, before MPI_Finalize below.
    MpiWorld world(world_size);
    Console console(stdout);
    // Where a configuration error's outcome goes when the options do not parse.
    std::optional<std::filesystem::path> out_dir = out_directory_argument(argc, argv);
    bool help = false;
    run_to_outcome(outcome, stderr, [&] {
      std::optional<CoordinatorOptions> options = parse_coordinator_options(argc, argv);
      help = !options;
      if (help) return static_cast<int>(kExitComplete);
      out_dir = options->out;
      remove_outcome_file(*out_dir);  // a stale one would tell the job script a past run's end
      return run_coordinator(std::move(*options), world, console, outcome);
    });
    // The log is closed (run_coordinator's writer is gone, however it ended).
    if (out_dir && !help)
      if (const std::string failed = write_outcome_file(*out_dir, outcome); !failed.empty())
        std::fprintf(stderr, "hpcreward-coordinator: cannot write %s: %s\n", kOutcomeFileName, failed.c_str());
    // Benchmark ranks wait for work until told to stop, whatever happened here.
    world.stop_ranks();
  }
  if (const std::string blocker = finalize_blocker(outcome); !blocker.empty()) {
    std::fprintf(stderr, "hpcreward-coordinator: ending the job with MPI_Abort(%d), not MPI_Finalize: %s (the log is "
                         "closed, %s written)\n",
                 outcome.exit_code, blocker.c_str(), kOutcomeFileName);
    std::fflush(stdout);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, outcome.exit_code);
  }
  MPI_Finalize();
  return outcome.exit_code;
}
