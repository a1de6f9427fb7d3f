// The writer's batched flushes (LogFlushPolicy): what a crash keeps, what a reader sees, and
// that no row ever reaches the file before its source.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "common/sha256.hpp"
#include "results/reward_log.hpp"
#include "child_that_dies.hpp"
#include "test_support.hpp"

namespace hpcreward {
namespace {

using test_support::in_child_that_dies;

using test_support::sample_archive_record;
using test_support::sample_event;
using test_support::sample_provenance;
using test_support::sample_row;
using test_support::TempDir;

std::string source_of(int i) { return "void matmul() { /* " + std::to_string(i) + " */ }\n"; }
RewardRow row_of(int i) { return sample_row(i, sha256_hex(source_of(i))); }

// Never flushes by itself within a test (no age limit, more rows than any test appends).
LogFlushPolicy manual() { return {1000000, 1 << 30, std::chrono::milliseconds(0)}; }


TEST(BatchedFlush, RowsWaitUntilFlushThenReadersSeeThem) {
  TempDir dir;
  const auto path = dir.path() / "rewards.h5";
  RewardLogWriter writer(path, sample_provenance());
  writer.set_flush_policy(manual());
  for (int i = 0; i < 5; ++i) writer.append(row_of(i), source_of(i));
  EXPECT_EQ(writer.rows(), 5u);
  EXPECT_EQ(writer.unflushed_rows(), 5u);
  EXPECT_TRUE(read_rewards(path).empty());
  EXPECT_EQ(read_source(path, sha256_hex(source_of(0))), std::nullopt);

  writer.flush();
  EXPECT_EQ(writer.unflushed_rows(), 0u);
  const std::vector<RewardRow> read = read_rewards(path);
  ASSERT_EQ(read.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(read[i].candidate_id, row_of(i).candidate_id);
    EXPECT_EQ(read_source(path, read[i].source_sha256), source_of(i)) << "row " << i;
  }
}

TEST(BatchedFlush, ASourceSeenTwiceBeforeAFlushIsStoredOnce) {
  TempDir dir;
  const auto path = dir.path() / "rewards.h5";
  {
    RewardLogWriter writer(path, sample_provenance());
    writer.set_flush_policy(manual());
    writer.append(row_of(0), source_of(0));
    writer.append(row_of(0), source_of(0));
    writer.append(row_of(1), source_of(1));
  }  // closing flushes
  const std::vector<RewardRow> read = read_rewards(path);
  ASSERT_EQ(read.size(), 3u);
  EXPECT_EQ(read_source(path, sha256_hex(source_of(0))), source_of(0));
  EXPECT_EQ(read_source(path, sha256_hex(source_of(1))), source_of(1));
}

TEST(BatchedFlush, TheRowLimitFlushes) {
  TempDir dir;
  const auto path = dir.path() / "rewards.h5";
  RewardLogWriter writer(path, sample_provenance());
  writer.set_flush_policy({3, 1 << 30, std::chrono::milliseconds(0)});
  for (int i = 0; i < 7; ++i) writer.append(row_of(i), source_of(i));
  EXPECT_EQ(read_rewards(path).size(), 6u);
  EXPECT_EQ(writer.unflushed_rows(), 1u);
}

TEST(BatchedFlush, TheSourceByteLimitFlushes) {
  TempDir dir;
  const auto path = dir.path() / "rewards.h5";
  RewardLogWriter writer(path, sample_provenance());
  writer.set_flush_policy({1000, source_of(0).size() + 1, std::chrono::milliseconds(0)});
  writer.append(row_of(0), source_of(0));
  EXPECT_EQ(writer.unflushed_rows(), 1u);
  writer.append(row_of(1), source_of(1));
  EXPECT_EQ(writer.unflushed_rows(), 0u);
  EXPECT_EQ(read_rewards(path).size(), 2u);
}

TEST(BatchedFlush, EventsArchiveAndRankEventsFlushTheRowsBeforeThem) {
  TempDir dir;
  const auto path = dir.path() / "rewards.h5";
  RewardLogWriter writer(path, sample_provenance());
  writer.set_flush_policy(manual());
  writer.append(row_of(0), source_of(0));
  writer.append_event(sample_event(0));
  EXPECT_EQ(read_rewards(path).size(), 1u);
  writer.append(row_of(1), source_of(1));
  writer.append_archive(sample_archive_record(0));
  EXPECT_EQ(read_rewards(path).size(), 2u);
  writer.append(row_of(2), source_of(2));
  writer.append_rank_event({1700000000.0, 1, "node1", "quarantined", "no answer"});
  EXPECT_EQ(read_rewards(path).size(), 3u);
  EXPECT_EQ(writer.unflushed_rows(), 0u);
}

TEST(BatchedFlush, ACrashLosesOnlyUnflushedRowsAndEveryKeptRowHasItsSource) {
  TempDir dir;
  const auto path = dir.path() / "rewards.h5";
  in_child_that_dies([&] {
    auto *writer = new RewardLogWriter(path, sample_provenance());  // never closed
    writer->set_flush_policy(manual());
    for (int i = 0; i < 4; ++i) writer->append(row_of(i), source_of(i));
    writer->flush();
    for (int i = 4; i < 9; ++i) writer->append(row_of(i), source_of(i));
  });
  {
    RewardLogWriter resumed(path, RewardLogWriter::Resume{});
    EXPECT_EQ(resumed.rows(), 4u);
    // The resume scores the lost rows again; their sources are stored now, once.
    for (int i = 4; i < 9; ++i) resumed.append(row_of(i), source_of(i));
  }
  const std::vector<RewardRow> read = read_rewards(path);
  ASSERT_EQ(read.size(), 9u);
  for (int i = 0; i < 9; ++i) {
    EXPECT_EQ(read[i].candidate_id, row_of(i).candidate_id) << "each candidate once, in order";
    EXPECT_EQ(read_source(path, read[i].source_sha256), source_of(i)) << "row " << i;
  }
}

TEST(BatchedFlush, AZeroRowLimitIsRefused) {
  TempDir dir;
  RewardLogWriter writer(dir.path() / "rewards.h5", sample_provenance());
  EXPECT_THROW(writer.set_flush_policy({0, 1, std::chrono::milliseconds(0)}), std::invalid_argument);
}

}  // namespace
}  // namespace hpcreward
