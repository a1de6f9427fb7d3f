// The GPU ranks of a node take turns setting a run up: while one holds its turn, no other
// holder of the node's file gets one.
#include "bench_node/gpu/setup_turns.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <optional>

namespace hpcreward {
namespace {

// Whether another open file description of `path` could take the lock now.
bool free_now(const std::string &path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  EXPECT_GE(fd, 0);
  const bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
  if (!free) {
    EXPECT_EQ(errno, EWOULDBLOCK);
  }
  ::close(fd);
  return free;
}

TEST(SetupTurns, ATurnExcludesEveryOtherHolderUntilItEnds) {
  const std::string path = (std::filesystem::temp_directory_path() / ("setup-turns-" + std::to_string(::getpid()))).string();
  {
    SetupTurns turns(path), other_rank(path);
    ASSERT_TRUE(turns.active()) << turns.why_not();
    {
      const SetupTurns::Turn turn = turns.take();
      EXPECT_FALSE(free_now(path)) << "another rank would wait";
    }
    EXPECT_TRUE(free_now(path)) << "released when the turn ends";
    {
      const SetupTurns::Turn turn = other_rank.take();
      EXPECT_FALSE(free_now(path));
    }
  }
  std::filesystem::remove(path);
}

TEST(SetupTurns, ATurnNotHadInTimeIsTakenWithoutTheLock) {
  const std::string path = (std::filesystem::temp_directory_path() / ("setup-turns-wait-" + std::to_string(::getpid()))).string();
  {
    SetupTurns turns(path), stuck_rank(path);
    std::optional<SetupTurns::Turn> held(stuck_rank.take());
    {
      const SetupTurns::Turn mine = turns.take(0.01);  // returns: a stuck holder never stalls a run
      held.reset();
      EXPECT_TRUE(free_now(path)) << "the turn taken without the lock holds nothing";
    }
  }
  std::filesystem::remove(path);
}

TEST(SetupTurns, ALinkInPlaceOfTheFileIsNotFollowed) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string target = (dir / ("setup-turns-target-" + std::to_string(::getpid()))).string();
  const std::string link = (dir / ("setup-turns-link-" + std::to_string(::getpid()))).string();
  std::filesystem::create_symlink(target, link);
  SetupTurns turns(link);
  EXPECT_FALSE(turns.active());
  EXPECT_FALSE(std::filesystem::exists(target)) << "nothing created where the link points";
  std::filesystem::remove(link);
}

TEST(SetupTurns, WithoutAFileEverySetUpStartsAtOnce) {
  SetupTurns off("");
  EXPECT_FALSE(off.active());
  const SetupTurns::Turn turn = off.take();  // does not block
  SetupTurns unopenable("/proc/no-such-dir/turns.lock");
  EXPECT_FALSE(unopenable.active());
  EXPECT_NE(unopenable.why_not().find("cannot open"), std::string::npos);
}

}  // namespace
}  // namespace hpcreward
