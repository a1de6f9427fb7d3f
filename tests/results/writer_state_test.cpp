// writer_state: what a reader (summary --json, so the report and watch) tells of a log's writer,
// without a lock of its own: running, closed, or died without closing.
#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <stdexcept>

#include "child_that_dies.hpp"
#include "results/log_file_state.hpp"
#include "results/reward_log.hpp"
#include "test_support.hpp"

namespace hpcreward {
namespace {

using h5::WriterState;
using test_support::sample_provenance;
using test_support::sample_row;
using test_support::TempDir;

TEST(WriterState, RunningWhileTheWriterHoldsTheLogThenClosed) {
  TempDir dir;
  const auto path = dir / "log.h5";
  {
    RewardLogWriter writer(path, sample_provenance());
    writer.append(sample_row(0), "");
    EXPECT_EQ(h5::writer_state(path), WriterState::running);
    writer.append(sample_row(1), "");  // asking got in nobody's way
  }
  EXPECT_EQ(h5::writer_state(path), WriterState::closed);
  EXPECT_EQ(read_rewards(path).size(), 2u);
}

TEST(WriterState, DiedWhenTheWriterStoppedWithoutClosingAndAskingLeavesItResumable) {
  TempDir dir;
  const auto path = dir / "log.h5";
  test_support::in_child_that_dies([&] {
    auto *writer = new RewardLogWriter(path, sample_provenance());  // never closed
    writer->append(sample_row(0), "");
  });
  EXPECT_EQ(h5::writer_state(path), WriterState::died);
  EXPECT_EQ(h5::writer_state(path), WriterState::died);
  RewardLogWriter resumed(path, RewardLogWriter::Resume{});  // no lock was left behind
  EXPECT_EQ(resumed.rows(), 1u);
  EXPECT_EQ(h5::writer_state(path), WriterState::running);
}

TEST(WriterState, AFileThatIsNotHdf5WasNotClosedByAWriterAndAMissingOneIsNamed) {
  TempDir dir;
  const auto text = dir / "notes.h5";
  std::ofstream(text) << "not a log\n";
  EXPECT_EQ(h5::writer_state(text), WriterState::died);
  std::optional<h5::WriterLock> lock = h5::WriterLock::try_acquire(text);
  ASSERT_TRUE(lock);
  EXPECT_EQ(h5::writer_state(text), WriterState::running);  // a writer still creating its log
  lock.reset();
  try {
    h5::writer_state(dir / "absent.h5");
    FAIL() << "no error for a missing file";
  } catch (const std::runtime_error &error) {
    EXPECT_NE(std::string(error.what()).find("absent.h5: cannot open"), std::string::npos) << error.what();
  }
}

TEST(WriterState, NamesEachState) {
  EXPECT_EQ(h5::to_string(WriterState::running), "running");
  EXPECT_EQ(h5::to_string(WriterState::closed), "closed");
  EXPECT_EQ(h5::to_string(WriterState::died), "died");
}

}  // namespace
}  // namespace hpcreward
