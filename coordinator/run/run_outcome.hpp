#pragma once
// How the coordinator ended: its exit code, and OUT/coordinator.outcome.json, which the Slurm
// job script reads because srun's own exit status can hide the coordinator's (and MPI_Abort's
// status is the launcher's to report). Written on every exit path once OUT is known,
// atomically (a temporary file, then rename), after the log is closed; a stale one is removed
// at start. coordinator/README.md documents both.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/log_records.hpp"

namespace hpcreward {

enum ExitCode : int {
  kExitComplete = 0,     // file mode: every candidate has a row; serve mode: stopped by SIGTERM/SIGINT
  kExitError = 1,        // internal error (the log keeps every row written)
  kExitConfigError = 2,  // bad options, config, candidate file, or a log that cannot be used
  kExitNoRanks = 3,      // every benchmark rank of a kind that still had work was quarantined
  kExitStopped = 75,     // stopped before the end (SIGUSR1; file mode also SIGTERM/SIGINT): requeue or --resume
};

inline constexpr const char *kOutcomeFileName = "coordinator.outcome.json";

struct RunOutcome {
  int exit_code = kExitError;
  std::string message;             // one line for people
  std::size_t rows_in_log = 0;     // rows in the log at the end, earlier runs' included
  std::size_t rows_written = 0;    // rows this run wrote
  std::vector<RankEventRecord> lost_ranks;  // ranks this run quarantined
  // Tasks still out on ranks when a stop's grace ended (not in the file): those ranks finish
  // them (up to their task limit) before they read the stop, so MPI_Finalize would wait.
  std::size_t unanswered_at_stop = 0;
};

// How scoring ended (the run's last phase reads it).
struct ScoringEnd {
  bool serve = false;
  bool stopped = false;      // by a stop signal before the end
  std::string signal;        // the first stop signal ("SIGUSR1")
  std::size_t to_score = 0;  // file mode: candidates without a row when the run started
  std::size_t batches = 0;   // serve mode: batches answered
};
// Says how the run ended in outcome.message (from outcome.rows_written too) and returns the
// exit code: kExitStopped or kExitComplete.
int conclude(RunOutcome &outcome, const ScoringEnd &end);

// Why the job must end with MPI_Abort: MPI_Finalize waits for every rank, forever for a
// quarantined one, and up to their task limit for ranks still busy with tasks a stop's grace
// did not cover (past a Slurm warning). Empty: MPI_Finalize is safe.
std::string finalize_blocker(const RunOutcome &outcome);

// "complete", "stopped", "no_ranks", "error" or "config_error", by exit code.
const char *outcome_name(int exit_code);

// {"exit_code", "outcome", "message", "rows_in_log", "rows_written",
//  "lost_ranks": [{"rank", "host", "time", "reason"}], "time": Unix seconds now}
nlohmann::json outcome_json(const RunOutcome &outcome, double now);

// Writes OUT/coordinator.outcome.json atomically (creating OUT if needed). Returns an empty
// string, or why it could not (the caller says so on stderr; the exit code still tells).
std::string write_outcome_file(const std::filesystem::path &out_dir, const RunOutcome &outcome);
// Removes a stale one (from an earlier run in OUT); quiet when there is none.
void remove_outcome_file(const std::filesystem::path &out_dir);

}  // namespace hpcreward
