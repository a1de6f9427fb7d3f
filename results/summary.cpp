#include "results/summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "common/status.hpp"
#include "results/text_table.hpp"

namespace hpcreward {

namespace {

// Tallies for one (problem, stage), or for the whole run.
struct Tally {
  std::string problem;
  std::string stage;
  std::size_t candidates = 0;
  std::size_t ok = 0;
  std::vector<std::pair<std::string, std::size_t>> failures;  // status -> count, first seen first
  std::vector<double> ok_gflops;
  double best_gflops = 0;
  std::string best_candidate;

  void add(const RewardRow &row) {
    ++candidates;
    if (row.status != to_string(Status::ok)) {
      const std::string status = row.status.empty() ? "(no status)" : row.status;
      auto it = std::find_if(failures.begin(), failures.end(),
                             [&](const auto &entry) { return entry.first == status; });
      if (it == failures.end())
        failures.emplace_back(status, 1);
      else
        ++it->second;
      return;
    }
    ++ok;
    if (!std::isfinite(row.gflops)) return;  // a NaN would poison the best and the median
    if (ok_gflops.empty() || row.gflops > best_gflops) {
      best_gflops = row.gflops;
      best_candidate = row.candidate_id;
    }
    ok_gflops.push_back(row.gflops);
  }
};

// Statuses in the order of the status table in DESIGN.md, unknown ones last.
std::size_t status_rank(const std::string &status) {
  const auto known = parse_status(status);
  if (!known) return kAllStatuses.size();
  return static_cast<std::size_t>(std::find(kAllStatuses.begin(), kAllStatuses.end(), *known) -
                                  kAllStatuses.begin());
}

std::string failures_cell(std::vector<std::pair<std::string, std::size_t>> failures) {
  if (failures.empty()) return "-";
  std::stable_sort(failures.begin(), failures.end(), [](const auto &a, const auto &b) {
    return status_rank(a.first) < status_rank(b.first);
  });
  std::string cell;
  for (const auto &[status, count] : failures) {
    if (!cell.empty()) cell += ' ';
    cell += status + '=' + std::to_string(count);
  }
  return cell;
}

std::string gflops_cell(double gflops) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f", gflops);
  return text;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

std::vector<std::string> cells(const Tally &tally, std::string problem, std::string stage) {
  const bool measured = !tally.ok_gflops.empty();
  return {std::move(problem),
          std::move(stage),
          std::to_string(tally.candidates),
          std::to_string(tally.ok),
          measured ? gflops_cell(tally.best_gflops) : "-",
          measured ? gflops_cell(median(tally.ok_gflops)) : "-",
          measured ? tally.best_candidate : "-",
          failures_cell(tally.failures)};
}

}  // namespace

std::string format_summary(const std::vector<RewardRow> &rows) {
  if (rows.empty()) return "no rows in the reward log\n";

  std::vector<Tally> groups;  // first-seen order, as the run progressed
  Tally total;
  for (const RewardRow &row : rows) {
    auto group = std::find_if(groups.begin(), groups.end(), [&](const Tally &tally) {
      return tally.problem == row.problem && tally.stage == row.stage;
    });
    if (group == groups.end()) {
      group = groups.insert(groups.end(), Tally());
      group->problem = row.problem;
      group->stage = row.stage;
    }
    group->add(row);
    total.add(row);
  }

  using Align = TextTable::Align;
  TextTable table({{"problem", Align::left},
                   {"stage", Align::left},
                   {"candidates", Align::right},
                   {"ok", Align::right},
                   {"best GFLOPS", Align::right},
                   {"median GFLOPS", Align::right},
                   {"best candidate", Align::left},
                   {"other statuses", Align::left}});
  for (const Tally &group : groups) table.add_row(cells(group, group.problem, group.stage));
  table.add_row(cells(total, "total", ""));
  return table.render();
}

}  // namespace hpcreward
