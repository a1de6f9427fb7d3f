// RewardLogWriter::rows_of_batch: how serve mode answers a retried batch that has left the
// registry's memory. It must find every row of the batch, flushed or not, in log order.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "results/reward_log.hpp"
#include "test_support.hpp"

namespace hpcreward {
namespace {

using test_support::sample_provenance;
using test_support::sample_row;
using test_support::TempDir;

RewardRow row_in(const std::string &batch_id, int n) {
  RewardRow row = sample_row(n);
  row.batch_id = batch_id;
  return row;
}

TEST(RowsOfBatch, FindsEveryRowOfTheBatchAcrossBlocksAndUnflushed) {
  TempDir dir;
  RewardLogWriter writer(dir.path() / "rewards.h5", sample_provenance());
  writer.set_flush_policy({1001, 1 << 30, std::chrono::milliseconds(0)});
  // 9,000 rows (more than one 4,096-row read block), "wanted" interleaved with others; the
  // last 992 (two of them wanted) not flushed yet.
  std::vector<std::string> expected;
  for (int i = 0; i < 9000; ++i) {
    const bool wanted = i % 1000 == 7 || i == 4095 || i == 4096 || i >= 8998;
    writer.append(row_in(wanted ? "wanted" : "batch-" + std::to_string(i % 5), i), "");
    if (wanted) expected.push_back("cand-" + std::to_string(i));
  }
  ASSERT_GT(writer.unflushed_rows(), 0u);
  std::vector<std::string> found;
  for (const RewardRow &row : writer.rows_of_batch("wanted")) found.push_back(row.candidate_id);
  EXPECT_EQ(found, expected);
  EXPECT_EQ(writer.unflushed_rows(), 0u) << "it flushes first";
  EXPECT_TRUE(writer.rows_of_batch("nobody").empty());
}

TEST(RowsOfBatch, ARangeReadsOnlyThoseRowsClippedToTheLog) {
  TempDir dir;
  RewardLogWriter writer(dir.path() / "rewards.h5", sample_provenance());
  for (int i = 0; i < 10; ++i) writer.append(row_in(i % 2 ? "odd" : "even", i), "");
  std::vector<std::string> found;
  for (const RewardRow &row : writer.rows_of_batch("odd", 3, 8)) found.push_back(row.candidate_id);
  EXPECT_EQ(found, (std::vector<std::string>{"cand-3", "cand-5", "cand-7"}));
  EXPECT_EQ(writer.rows_of_batch("odd", 8, 1000).size(), 1u) << "cand-9: the end is clipped to the log";
  EXPECT_TRUE(writer.rows_of_batch("odd", 20, 30).empty()) << "past the log: nothing";
}

TEST(RowsOfBatch, ALongBatchIdMatchesAsStored) {
  TempDir dir;
  RewardLogWriter writer(dir.path() / "rewards.h5", sample_provenance());
  const std::string long_id(70, 'b');  // the column keeps 64 bytes
  writer.append(row_in(long_id, 0), "");
  writer.append(row_in("short", 1), "");
  const std::vector<RewardRow> rows = writer.rows_of_batch(long_id);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].candidate_id, "cand-0");
}

}  // namespace
}  // namespace hpcreward
