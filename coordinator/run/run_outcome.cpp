#include "coordinator/run/run_outcome.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace hpcreward {

const char *outcome_name(int exit_code) {
  switch (exit_code) {
    case kExitComplete: return "complete";
    case kExitConfigError: return "config_error";
    case kExitNoRanks: return "no_ranks";
    case kExitStopped: return "stopped";
    default: return "error";
  }
}

int conclude(RunOutcome &outcome, const ScoringEnd &end) {
  if (end.stopped) {
    outcome.message =
        end.serve ? "stopped by " + end.signal +
                        " for a requeue: batches not done were failed with \"retry\"; rerun with --resume"
                  : "stopped by " + end.signal + " before the end: " + std::to_string(end.to_score - outcome.rows_written) +
                        " of " + std::to_string(end.to_score) +
                        " candidates to score have no row; requeue the job or rerun with --resume";
    return kExitStopped;
  }
  outcome.message = end.serve ? "serve mode stopped by " + end.signal + ": " + std::to_string(end.batches) +
                                    " batches answered"
                              : "every candidate has a row";
  return kExitComplete;
}

std::string finalize_blocker(const RunOutcome &outcome) {
  if (!outcome.lost_ranks.empty()) {
    std::string ranks;
    for (const RankEventRecord &event : outcome.lost_ranks)
      ranks += (ranks.empty() ? "" : ", ") + std::to_string(event.rank);
    return "MPI_Finalize would wait forever for quarantined rank" +
           std::string(outcome.lost_ranks.size() == 1 ? " " : "s ") + ranks;
  }
  if (outcome.exit_code == kExitStopped && outcome.unanswered_at_stop > 0)
    return "MPI_Finalize would wait for ranks still busy with " + std::to_string(outcome.unanswered_at_stop) +
           " task(s) the stop's grace did not cover";
  return "";
}

nlohmann::json outcome_json(const RunOutcome &outcome, double now) {
  nlohmann::json lost = nlohmann::json::array();
  for (const RankEventRecord &event : outcome.lost_ranks)
    lost.push_back({{"rank", event.rank}, {"host", event.host}, {"time", event.time}, {"reason", event.reason}});
  return {{"exit_code", outcome.exit_code},     {"outcome", outcome_name(outcome.exit_code)},
          {"message", outcome.message},         {"rows_in_log", outcome.rows_in_log},
          {"rows_written", outcome.rows_written}, {"lost_ranks", lost},
          {"time", now}};
}

std::string write_outcome_file(const std::filesystem::path &out_dir, const RunOutcome &outcome) {
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  // Messages quote candidates and compilers, which need not be valid UTF-8: replace, don't throw.
  const std::string text =
      outcome_json(outcome, now).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::error_code error;
  std::filesystem::create_directories(out_dir, error);
  const std::filesystem::path target = out_dir / kOutcomeFileName;
  const std::filesystem::path temporary =
      out_dir / (std::string(kOutcomeFileName) + ".tmp." + std::to_string(::getpid()));
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return "cannot create " + temporary.string() + ": " + std::strerror(errno);
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      std::filesystem::remove(temporary, error);
      return "cannot write " + temporary.string() + ": " + why;
    }
    written += static_cast<std::size_t>(n);
  }
  // On disk before the rename: a reader never sees a name without its content.
  ::fsync(fd);
  ::close(fd);
  std::filesystem::rename(temporary, target, error);
  if (error) {
    const std::string why = error.message();
    std::filesystem::remove(temporary, error);
    return "cannot rename " + temporary.string() + " to " + target.string() + ": " + why;
  }
  return "";
}

void remove_outcome_file(const std::filesystem::path &out_dir) {
  std::error_code ignored;
  std::filesystem::remove(out_dir / kOutcomeFileName, ignored);
}

}  // namespace hpcreward
