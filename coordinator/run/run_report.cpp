#include "coordinator/run/run_report.hpp"

#include <cstdio>
#include <map>
#include <utility>

#include "common/number_text.hpp"

namespace hpcreward {

std::string format_progress_line(const RewardRow &row, std::size_t done, std::size_t total) {
  char head[256];
  std::snprintf(head, sizeof head, "[%zu/%zu] %-24s %-9s %-8s %-20s reward %9.2f", done, total,
                row.candidate_id.c_str(), row.problem.c_str(), row.stage.c_str(), row.status.c_str(),
                row.reward);
  std::string line = head;
  if (row.status == "ok") {
    char tail[256];
    // A GPU rank's row names its GPU; CPU rows stay as they were.
    const bool on_gpu = !row.device.empty() && row.device != "cpu";
    std::snprintf(tail, sizeof tail, "  %.2f GFLOPS (median %.3f ms, cv %.3f, rank %d%s%s) %s%s%s",
                  row.gflops, row.median_s * 1e3, row.cv, row.rank, on_gpu ? " on " : "",
                  on_gpu ? row.device.c_str() : "", row.techniques.c_str(), row.archive.empty() ? "" : ", ",
                  row.archive.c_str());
    line += tail;
  } else {
    line += "  " + row.reason.substr(0, 100);
  }
  // An identical candidate answered from an earlier row's measurement, not benchmarked.
  if (!row.measured_as.empty()) line += "  (measured as " + row.measured_as + " of " + row.measured_batch + ")";
  return line;
}

std::string format_stage_event(const StageEvent &event) {
  return "stage: " + event.problem + " " + event.from + " -> " + event.to + " (" + event.rule + ": " +
         event.detail + ")";
}

std::string format_sqd_state(const SqdState &state) {
  std::map<std::string, std::pair<std::size_t, std::size_t>> archive;  // problem -> (niches, stages)
  for (const auto &[cell, niches] : state.archive().all()) {
    archive[cell.first].first += niches.size();
    ++archive[cell.first].second;
  }
  std::string text;
  for (const auto &[problem, stage] : state.stages()) {
    const auto [niches, stages] = archive[problem];
    text += "stage: " + problem + " is at " + stage + "; archive: " + std::to_string(niches) +
            " niches in " + std::to_string(stages) + " stages\n";
  }
  return text;
}

std::vector<std::string> format_rank_deadlines(const std::vector<RankInfo> &ranks, double margin_s) {
  std::vector<std::string> lines;
  std::map<std::pair<std::string, double>, std::vector<int>> groups;
  for (const RankInfo &info : ranks) {
    if (info.task_limit_s <= 0)
      lines.push_back("note: rank " + std::to_string(info.rank) +
                      " reported no task limit (an older hpcreward-bench): it has no answer deadline and is never "
                      "quarantined");
    else
      groups[{info.kind, info.task_limit_s}].push_back(info.rank);
  }
  for (const auto &[group, members] : groups) {
    std::string list;
    for (int rank : members) list += (list.empty() ? "" : ",") + std::to_string(rank);
    lines.push_back("deadline: " + group.first + " rank" + (members.size() == 1 ? " " : "s ") + list +
                    " must answer within " + seconds_text(group.second + margin_s) + " (task limit " +
                    seconds_text(group.second) + " + margin " + seconds_text(margin_s) +
                    ") while holding tasks, or be quarantined");
  }
  return lines;
}

std::string format_run_start(const CoordinatorOptions &options, std::size_t candidates, const StartedRanks &ranks,
                             const std::filesystem::path &log_path, const LoggedRun &logged, const SqdState &state) {
  const std::string on_ranks = std::to_string(ranks.ranks.size()) + " benchmark ranks (" +
                               format_rank_kinds(ranks.capabilities) + "), ladder " + options.ladder_source + " -> " +
                               log_path.string() + "\n";
  std::string text = "hpcreward: ";
  if (options.serve)
    text += std::string(options.resume ? "serving (resumed)" : "serving") + " on " + on_ranks;
  else
    text += std::string(options.resume ? "resuming " : "scoring ") + std::to_string(candidates) + " candidates on " +
            on_ranks;
  if (ranks.null_ranks > 0)
    text += "NULL MEASUREMENT: " + std::to_string(ranks.null_ranks) + " of " + std::to_string(ranks.ranks.size()) +
            " benchmark ranks run hpcreward-bench --null-measurement: they answer every candidate at once with "
            "runtime_error \"null measurement\" and measure nothing. This run measures the coordinator only; the "
            "log's provenance (hosts) marks those ranks null_measurement\n";
  if (logged.resumed)
    text += "resume: the log holds " + std::to_string(logged.rows.size()) + " rows, " +
            std::to_string(logged.events.size()) + " stage events; their candidates are not scored again\n" +
            format_sqd_state(state);
  for (const std::string &line : format_rank_deadlines(ranks.ranks, options.rank_deadline_margin_s)) text += line + "\n";
  return text;
}

std::string format_run_end(const RunSummary &summary, const SqdState &state, const std::vector<RankEventRecord> &lost,
                           const std::filesystem::path &log_path, std::size_t rows, std::size_t rows_written) {
  std::string text = "\n" + summary.format() + "\n" + format_sqd_state(state);
  if (!lost.empty()) text += "\n" + format_rank_events(lost);
  return text + "reward log: " + log_path.string() + " (" + std::to_string(rows) + " rows, " +
         std::to_string(rows_written) + " written now)\n";
}

}  // namespace hpcreward
