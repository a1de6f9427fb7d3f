// RunSummary: the end-of-run table tallied row by row (the coordinator keeps no rows for
// it). It must print what format_summary prints for the same rows, however they arrive.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "results/summary.hpp"

namespace hpcreward {
namespace {

RewardRow row(std::string problem, std::string stage, std::string status, double gflops, std::string id,
              std::string device = "cpu", std::string techniques = "") {
  RewardRow r;
  r.problem = std::move(problem);
  r.stage = std::move(stage);
  r.status = std::move(status);
  r.gflops = gflops;
  r.candidate_id = std::move(id);
  r.device = std::move(device);
  r.techniques = std::move(techniques);
  return r;
}

TEST(RunSummary, EmptySaysSo) {
  RunSummary summary;
  EXPECT_EQ(summary.rows(), 0u);
  EXPECT_EQ(summary.format(), "no rows in the reward log\n");
}

TEST(RunSummary, TalliedRowByRowItMatchesTheWholeRowsTable) {
  const std::vector<RewardRow> rows = {
      row("dgemm-256", "o0", "ok", 1.0, "a"),          row("dgemm-256", "o0", "wrong_answer", 0, "b"),
      row("dgemm-256", "o3", "ok", 4.0, "c"),          row("dgemm-256", "o0", "ok", 3.0, "d"),
      row("sgemm-512", "o3", "runtime_error", 0, "e"), row("dgemm-256", "o3", "ok", 2.0, "f")};
  RunSummary summary;
  for (const RewardRow &r : rows) summary.add(r);
  EXPECT_EQ(summary.rows(), rows.size());
  const std::string table = summary.format();
  EXPECT_EQ(table, format_summary(rows));
  EXPECT_NE(table.find("total"), std::string::npos);
  EXPECT_EQ(table.find("its device"), std::string::npos) << "a CPU-only run keeps the narrow table";
  EXPECT_EQ(table.find("its techniques"), std::string::npos);
}

TEST(RunSummary, ALateGpuOrTechniqueRowWidensTheTable) {
  RunSummary summary;
  summary.add(row("dgemm-256", "o0", "ok", 1.0, "a"));
  summary.add(row("dgemm-cuda-1024", "open", "ok", 900.0, "g", "NVIDIA H100", "plain"));
  const std::string table = summary.format();
  EXPECT_NE(table.find("its device"), std::string::npos);
  EXPECT_NE(table.find("NVIDIA H100"), std::string::npos);
  EXPECT_NE(table.find("its techniques"), std::string::npos);
}

TEST(RunSummary, GivesEachStageAndTheTotalAsData) {
  std::vector<RewardRow> rows = {row("dgemm-256", "o0", "ok", 1.0, "a"), row("dgemm-256", "o0", "wrong_answer", 0, "b"),
                                 row("dgemm-256", "o0", "ok", 3.0, "d"), row("dgemm-256", "o0", "odd_status", 0, "x"),
                                 row("dgemm-256", "o0", "format_error", 0, "y"), row("sgemm-512", "o3", "ok", 8.0, "s")};
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i].time = 100.0 + (i == 2 ? -5.0 : double(i));
  rows[2].measured_as = "a";
  rows[2].archive = "new_niche";
  RunSummary summary;
  for (const RewardRow &r : rows) summary.add(r);

  const std::vector<StageSummary> stages = summary.stages();
  ASSERT_EQ(stages.size(), 2u);
  const StageSummary &o0 = stages[0];
  EXPECT_EQ(o0.problem, "dgemm-256");
  EXPECT_EQ(o0.stage, "o0");
  EXPECT_EQ(o0.candidates, 5u);
  EXPECT_EQ(o0.ok, 2u);
  EXPECT_EQ(o0.reused, 1u);
  EXPECT_EQ(o0.niches, 1u);
  using Counts = std::vector<std::pair<std::string, std::size_t>>;
  EXPECT_EQ(o0.statuses, (Counts{{"ok", 2}, {"format_error", 1}, {"wrong_answer", 1}, {"odd_status", 1}}))
      << "in the status table's order, unknown ones last";
  ASSERT_TRUE(o0.best);
  EXPECT_EQ(o0.best->candidate_id, "d");
  EXPECT_EQ(o0.median_gflops, 2.0);
  EXPECT_EQ(o0.first_time, 95.0);
  EXPECT_EQ(o0.last_time, 104.0);
  EXPECT_EQ(stages[1].best->candidate_id, "s");

  const StageSummary total = summary.total();
  EXPECT_EQ(total.problem, "total");
  EXPECT_EQ(total.stage, "");
  EXPECT_EQ(total.candidates, 6u);
  EXPECT_EQ(total.best->candidate_id, "s");
  EXPECT_EQ(total.first_time, 95.0);
  EXPECT_EQ(total.last_time, 105.0);
  EXPECT_EQ(summary.table().rows().size(), 3u) << "a line per stage, then the total";
}

TEST(RunSummary, AStageWithoutAVerifiedRowHasNoBestOrMedian) {
  RunSummary summary;
  summary.add(row("dgemm-256", "o0", "timeout", 0, "t"));
  const StageSummary stage = summary.stages().at(0);
  EXPECT_FALSE(stage.best);
  EXPECT_FALSE(stage.median_gflops);
}

}  // namespace
}  // namespace hpcreward
