#include "coordinator/run/run_log.hpp"

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "coordinator/scoring/row_writer.hpp"

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

namespace {

ProblemCatalog logged_catalog(const LoggedRun &logged) {
  const nlohmann::json config = nlohmann::json::parse(logged.provenance.config_json, nullptr, false);
  if (config.is_object() && config.contains("problem_catalog"))
    return parse_problem_catalog(config["problem_catalog"].dump(), "the log's provenance");
  return load_problem_catalog("default");
}

}  // namespace

void check_resumed_problems(const LoggedRun &logged, const ProblemCatalog &catalog) {
  if (!logged.resumed) return;
  const ProblemCatalog before = logged_catalog(logged);
  std::set<std::string> checked;
  for (const RewardRow &row : logged.rows) {
    if (!checked.insert(row.problem).second) continue;
    const Problem *now = catalog.find(row.problem);
    const Problem *then = before.find(row.problem);
    if (!now)
      throw std::invalid_argument("--resume: the log holds rows of problem " + row.problem + ", which the problem catalog " +
                                  catalog.source + " does not define; resume with the catalog the run began with (" +
                                  before.name + ")");
    if (then && !same_definition(*now, *then))
      throw std::invalid_argument("--resume: problem " + row.problem + " of " + catalog.source +
                                  " is not the one the log's rows were scored on (shape, precision, accumulation, check "
                                  "shapes or tolerances differ from the run's start); resume with the catalog it began with (" +
                                  before.name + ")");
  }
}

void check_resumed_reward_mode(const LoggedRun &logged, const RewardMode &mode) {
  if (!logged.resumed || logged.provenance.reward_mode == mode.text()) return;
  throw std::invalid_argument("--resume: the log's rewards are in reward mode " + logged.provenance.reward_mode +
                              ", not " + mode.text() + "; resume with --reward-mode " +
                              logged.provenance.reward_mode +
                              " (every row keeps its GFLOPS and yardsticks: hpcreward_report.rescore scores a log "
                              "again in another mode)");
}

std::uint64_t logged_seed(const LoggedRun &logged) { return std::stoull(logged.provenance.seed); }

SqdState ladder_state(const LadderConfig &ladder, const RankSupport &support, const LoggedRun &logged,
                      const std::map<int, RankInfo> &rank_info, std::vector<ArchiveRecord> &missing_archive) {
  if (!logged.resumed) return SqdState(ladder, support);
  return SqdState::rebuild(
      ladder, support, logged.rows, logged.events, logged.archive,
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
