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

}  // namespace
}  // namespace hpcreward
