#include "coordinator/run_log.hpp"

#include <string>

#include "coordinator/row_writer.hpp"

namespace hpcreward {

LoggedRun read_logged_run(const std::filesystem::path &log_path) {
  LoggedRun logged;
  logged.resumed = true;
  logged.provenance = read_provenance(log_path);
  logged.rows = read_rewards(log_path);
  logged.events = read_stage_events(log_path);
  logged.archive = read_archive(log_path);
  return logged;
}

std::uint64_t logged_seed(const LoggedRun &logged) { return std::stoull(logged.provenance.seed); }

SqdState ladder_state(const LadderConfig &ladder, bool host_has_avx512, const LoggedRun &logged,
                      const std::map<int, RankInfo> &rank_info, std::vector<ArchiveRecord> &missing_archive) {
  if (!logged.resumed) return SqdState(ladder, host_has_avx512);
  return SqdState::rebuild(
      ladder, host_has_avx512, logged.rows, logged.events, logged.archive,
      [&](const RewardRow &row) { return rank_blas_gflops(rank_info, row.rank, row.problem); }, missing_archive);
}

std::unique_ptr<RewardLogWriter> open_log_writer(const std::filesystem::path &log_path,
                                                 const std::optional<Provenance> &new_log,
                                                 const std::vector<ArchiveRecord> &missing_archive) {
  auto writer = new_log ? std::make_unique<RewardLogWriter>(log_path, *new_log)
                        : std::make_unique<RewardLogWriter>(log_path, RewardLogWriter::Resume{});
  for (const ArchiveRecord &record : missing_archive) writer->append_archive(record);
  writer->set_flush_policy(LogFlushPolicy::batched());
  return writer;
}

}  // namespace hpcreward
