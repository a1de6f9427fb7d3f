#include "results/summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <optional>
#include <utility>

#include "common/status.hpp"
#include "results/text_table.hpp"

namespace hpcreward {

namespace {

// Statuses in the order of the status table in docs/design.md, unknown ones last.
std::size_t status_rank(const std::string &status) {
  const auto known = parse_status(status);
  if (!known) return kAllStatuses.size();
  return static_cast<std::size_t>(std::find(kAllStatuses.begin(), kAllStatuses.end(), *known) -
                                  kAllStatuses.begin());
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

// Tallies for one (problem, stage), or for the whole run.
struct Tally {
  StageSummary counts;  // all but `statuses` order and the median, which snapshot() adds
  std::vector<double> ok_gflops;

  void add(const RewardRow &row) {
    if (counts.candidates == 0 || row.time < counts.first_time) counts.first_time = row.time;
    if (counts.candidates == 0 || row.time > counts.last_time) counts.last_time = row.time;
    ++counts.candidates;
    if (!row.measured_as.empty()) ++counts.reused;
    if (row.archive == "new_niche") ++counts.niches;
    const std::string status = row.status.empty() ? "(no status)" : row.status;
    auto seen = std::find_if(counts.statuses.begin(), counts.statuses.end(),
                             [&](const auto &entry) { return entry.first == status; });
    if (seen == counts.statuses.end())
      counts.statuses.emplace_back(status, 1);  // first seen first, sorted by snapshot()
    else
      ++seen->second;
    if (row.status != to_string(Status::ok)) return;
    ++counts.ok;
    if (!std::isfinite(row.gflops)) return;  // a NaN would poison the best and the median
    if (!counts.best || row.gflops > counts.best->gflops) counts.best = row;
    ok_gflops.push_back(row.gflops);
  }

  StageSummary snapshot() const {
    StageSummary summary = counts;
    std::stable_sort(summary.statuses.begin(), summary.statuses.end(),
                     [](const auto &a, const auto &b) { return status_rank(a.first) < status_rank(b.first); });
    if (!ok_gflops.empty()) summary.median_gflops = median(ok_gflops);
    return summary;
  }
};

std::string failures_cell(const StageSummary &summary) {
  std::string cell;
  for (const auto &[status, count] : summary.statuses) {
    if (status == to_string(Status::ok)) continue;
    if (!cell.empty()) cell += ' ';
    cell += status + '=' + std::to_string(count);
  }
  return cell.empty() ? "-" : cell;
}

std::string gflops_cell(double gflops) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f", gflops);
  return text;
}

std::vector<std::string> cells(const StageSummary &summary, bool with_device, bool with_techniques,
                               bool with_reused) {
  const std::optional<RewardRow> &best = summary.best;
  std::vector<std::string> row = {summary.problem, summary.stage,
                                  std::to_string(summary.candidates), std::to_string(summary.ok)};
  if (with_reused) row.push_back(std::to_string(summary.reused));
  row.push_back(best ? gflops_cell(best->gflops) : "-");
  row.push_back(summary.median_gflops ? gflops_cell(*summary.median_gflops) : "-");
  row.push_back(best ? best->candidate_id : "-");
  if (with_device) row.push_back(best && !best->device.empty() ? best->device : "-");
  if (with_techniques) {
    row.push_back(best && !best->techniques.empty() ? techniques_text(*best) : "-");
    row.push_back(std::to_string(summary.niches));
  }
  row.push_back(failures_cell(summary));
  return row;
}

}  // namespace

struct RunSummary::Tallies {
  std::vector<Tally> groups;  // first-seen order, as the run progressed
  Tally total;
  // Technique columns only when the log has technique data: a schema 1 log, or a run
  // without technique detection, keeps the narrower table.
  bool with_techniques = false;
  // The device column only when a GPU timed something: CPU-only runs (and logs before
  // schema 3) keep the narrower table, where every device would be "cpu" (or empty).
  bool with_device = false;
  // The reused column only when some row reused an identical candidate's measurement.
  bool with_reused = false;
};

RunSummary::RunSummary() : tallies_(std::make_unique<Tallies>()) {
  tallies_->total.counts.problem = "total";
}
RunSummary::~RunSummary() = default;
RunSummary::RunSummary(RunSummary &&) noexcept = default;
RunSummary &RunSummary::operator=(RunSummary &&) noexcept = default;

void RunSummary::add(const RewardRow &row) {
  std::vector<Tally> &groups = tallies_->groups;
  auto group = std::find_if(groups.begin(), groups.end(), [&](const Tally &tally) {
    return tally.counts.problem == row.problem && tally.counts.stage == row.stage;
  });
  if (group == groups.end()) {
    group = groups.insert(groups.end(), Tally());
    group->counts.problem = row.problem;
    group->counts.stage = row.stage;
  }
  group->add(row);
  tallies_->total.add(row);
  tallies_->with_techniques |= !row.techniques.empty() || !row.archive.empty();
  tallies_->with_device |= !row.device.empty() && row.device != "cpu";
  tallies_->with_reused |= !row.measured_as.empty();
}

std::size_t RunSummary::rows() const { return tallies_->total.counts.candidates; }

std::vector<StageSummary> RunSummary::stages() const {
  std::vector<StageSummary> stages;
  stages.reserve(tallies_->groups.size());
  for (const Tally &group : tallies_->groups) stages.push_back(group.snapshot());
  return stages;
}

StageSummary RunSummary::total() const { return tallies_->total.snapshot(); }

TextTable RunSummary::table() const {
  const bool with_techniques = tallies_->with_techniques, with_device = tallies_->with_device,
             with_reused = tallies_->with_reused;
  using Align = TextTable::Align;
  std::vector<TextTable::Column> columns = {{"problem", Align::left},
                                            {"stage", Align::left},
                                            {"candidates", Align::right},
                                            {"ok", Align::right}};
  if (with_reused) columns.push_back({"reused", Align::right});
  columns.push_back({"best GFLOPS", Align::right});
  columns.push_back({"median GFLOPS", Align::right});
  columns.push_back({"best candidate", Align::left});
  if (with_device) columns.push_back({"its device", Align::left});
  if (with_techniques) {
    columns.push_back({"its techniques", Align::left});
    columns.push_back({"niches", Align::right});
  }
  columns.push_back({"other statuses", Align::left});
  TextTable table(std::move(columns));
  for (const StageSummary &stage : stages())
    table.add_row(cells(stage, with_device, with_techniques, with_reused));
  table.add_row(cells(total(), with_device, with_techniques, with_reused));
  return table;
}

std::string RunSummary::format() const {
  if (rows() == 0) return "no rows in the reward log\n";
  return table().render();
}

std::string techniques_text(const RewardRow &row) {
  if (row.techniques.empty()) return "";
  std::string text = row.techniques;
  if (!row.loop_order.empty()) text += ' ' + row.loop_order;
  if (!row.tile_sizes.empty()) text += ' ' + row.tile_sizes;
  return text;
}

std::string format_summary(const std::vector<RewardRow> &rows) {
  RunSummary summary;
  for (const RewardRow &row : rows) summary.add(row);
  return summary.format();
}

namespace {


std::string or_dash(const std::string &text) { return text.empty() ? "-" : text; }

}  // namespace

std::string format_stage_events(const std::vector<StageEventRecord> &events) {
  if (events.empty()) return "no stage events in the reward log\n";
  using Align = TextTable::Align;
  TextTable history({{"time (UTC)", Align::left},
                     {"problem", Align::left},
                     {"from -> to", Align::left},
                     {"rule", Align::left},
                     {"detail", Align::left}});
  struct Current {
    std::string problem;
    std::string stage;
    double since = 0;
    std::size_t events = 0;
  };
  std::vector<Current> current;  // first-seen order
  for (const StageEventRecord &event : events) {
    history.add_row({utc_time_text(event.time), event.problem,
                     or_dash(event.from) + " -> " + or_dash(event.to), or_dash(event.rule),
                     or_dash(event.detail)});
    auto it = std::find_if(current.begin(), current.end(),
                           [&](const Current &c) { return c.problem == event.problem; });
    if (it == current.end()) it = current.insert(current.end(), Current{event.problem, "", 0, 0});
    it->stage = event.to;
    it->since = event.time;
    ++it->events;
  }
  TextTable now({{"problem", Align::left},
                 {"current stage", Align::left},
                 {"since (UTC)", Align::left},
                 {"events", Align::right}});
  for (const Current &c : current)
    now.add_row({c.problem, or_dash(c.stage), utc_time_text(c.since), std::to_string(c.events)});
  return history.render() + "\n" + now.render();
}

std::string format_archive(const std::vector<ArchiveRecord> &records) {
  if (records.empty()) return "the archive is empty\n";
  struct Niche {
    const ArchiveRecord *elite = nullptr;  // the last record of the niche
    std::size_t changes = 0;
  };
  struct Cell {
    std::string problem;
    std::string stage;
    std::map<std::string, Niche> niches;
  };
  std::vector<Cell> cells;  // first-seen order
  for (const ArchiveRecord &record : records) {
    auto cell = std::find_if(cells.begin(), cells.end(), [&](const Cell &c) {
      return c.problem == record.problem && c.stage == record.stage;
    });
    if (cell == cells.end()) cell = cells.insert(cells.end(), Cell{record.problem, record.stage, {}});
    Niche &niche = cell->niches[record.niche];
    niche.elite = &record;
    ++niche.changes;
  }
  using Align = TextTable::Align;
  TextTable table({{"problem", Align::left},
                   {"stage", Align::left},
                   {"niche", Align::left},
                   {"elite", Align::left},
                   {"GFLOPS", Align::right},
                   {"source", Align::left},
                   {"changes", Align::right}});
  for (const Cell &cell : cells) {
    std::vector<std::pair<std::string, Niche>> niches(cell.niches.begin(), cell.niches.end());
    std::stable_sort(niches.begin(), niches.end(), [](const auto &a, const auto &b) {
      return a.second.elite->gflops > b.second.elite->gflops;
    });
    for (const auto &[key, niche] : niches)
      table.add_row({cell.problem, cell.stage, or_dash(key), or_dash(niche.elite->candidate_id),
                     gflops_cell(niche.elite->gflops),
                     or_dash(niche.elite->source_sha256.substr(0, 12)),
                     std::to_string(niche.changes)});
  }
  return table.render();
}

std::string utc_time_text(double seconds) {
  if (!std::isfinite(seconds) || seconds <= 0 || seconds > 253402300799.0) return "-";
  const std::time_t whole = static_cast<std::time_t>(seconds);
  std::tm parts{};
  gmtime_r(&whole, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &parts);
  return text;
}

std::string format_rank_events(const std::vector<RankEventRecord> &events) {
  if (events.empty()) return "";
  using Align = TextTable::Align;
  TextTable table({{"rank", Align::right},
                   {"host", Align::left},
                   {"time (UTC)", Align::left},
                   {"event", Align::left},
                   {"reason", Align::left}});
  for (const RankEventRecord &event : events)
    table.add_row({std::to_string(event.rank), or_dash(event.host), utc_time_text(event.time), or_dash(event.event),
                   or_dash(event.reason)});
  const std::string heading = std::to_string(events.size()) +
                              (events.size() == 1 ? " benchmark rank" : " benchmark ranks") +
                              " lost (quarantined: no answer past the deadline; their tasks went to other ranks):\n";
  return heading + table.render();
}

}  // namespace hpcreward
