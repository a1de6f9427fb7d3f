// The GPU ranks of a node take turns setting a run up: while one holds its turn, no other
// process can bind the node's name; a turn not had in time, or held by a stranger, is taken
// without it. (That no candidate can hold it is tested with the executors' filters:
// tests/sandbox/hostile_calls_test.cpp, bind_an_abstract_socket_name.)
#include "bench_node/gpu/setup_turns.hpp"

#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <thread>

namespace hpcreward {
namespace {

using Outcome = SetupTurns::Outcome;

std::string test_name(const char *what) {
  return std::string("hpcreward-test-setup-turns.") + what + "." + std::to_string(::getpid());
}

// A socket bound to `name` in the abstract namespace (listening when asked), or -1 with errno.
int bind_name(const std::string &name, bool listening) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path + 1, name.data(), name.size());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  if (::bind(fd, reinterpret_cast<const sockaddr *>(&address), length) != 0) {
    const int error = errno;
    ::close(fd);
    errno = error;
    return -1;
  }
  if (listening) ::listen(fd, 8);
  return fd;
}

// Whether another process could take the turn now.
bool free_now(const std::string &name) {
  const int fd = bind_name(name, false);
  if (fd < 0) {
    EXPECT_EQ(errno, EADDRINUSE);
    return false;
  }
  ::close(fd);
  return true;
}

// "auto" takes turns where they were measured to help (two GPU ranks on a node) and not where
// they became the bound (four).
TEST(SetupTurns, AutoTakesTurnsWithAtMostTwoGpuRanksOnTheNode) {
  EXPECT_TRUE(setup_turns_wanted("auto", 1));
  EXPECT_TRUE(setup_turns_wanted("auto", 2));
  EXPECT_FALSE(setup_turns_wanted("auto", 3));
  EXPECT_FALSE(setup_turns_wanted("auto", 4));
  EXPECT_TRUE(setup_turns_wanted("1", 8));
  EXPECT_FALSE(setup_turns_wanted("0", 2));
}

TEST(SetupTurns, ATurnExcludesEveryOtherHolderUntilItEnds) {
  const std::string name = test_name("excludes");
  SetupTurns turns(name), other_rank(name);
  {
    const SetupTurns::Turn turn = turns.take();
    EXPECT_EQ(turn.outcome(), Outcome::held);
    EXPECT_FALSE(free_now(name)) << "another rank would wait";
  }
  EXPECT_TRUE(free_now(name)) << "released when the turn ends";
  const SetupTurns::Turn turn = other_rank.take();
  EXPECT_EQ(turn.outcome(), Outcome::held);
  EXPECT_FALSE(free_now(name));
}

TEST(SetupTurns, ATurnNotHadInTimeIsTakenWithoutIt) {
  const std::string name = test_name("wait");
  SetupTurns turns(name), stuck_rank(name);
  std::optional<SetupTurns::Turn> held(stuck_rank.take());
  ASSERT_EQ(held->outcome(), Outcome::held);
  const SetupTurns::Turn mine = turns.take(0.01);  // returns: a stuck holder never stalls a run
  EXPECT_EQ(mine.outcome(), Outcome::waited_out) << "the holder is this user's: waited for, then gone without";
  held.reset();
  EXPECT_TRUE(free_now(name)) << "the turn taken without holds nothing";
}

// A waiter keeps trying while a rank of its user holds the turn, and has it once that one lets go.
TEST(SetupTurns, AWaiterHasTheTurnOnceItsHolderLetsGo) {
  const std::string name = test_name("handover");
  SetupTurns turns(name), other_rank(name);
  std::optional<SetupTurns::Turn> held(other_rank.take());
  ASSERT_EQ(held->outcome(), Outcome::held);
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    held.reset();
  });
  const SetupTurns::Turn mine = turns.take(600);
  releaser.join();
  EXPECT_EQ(mine.outcome(), Outcome::held);
  EXPECT_FALSE(free_now(name));
}

// A forked process that does `act` (returning a byte it says to the test), then waits to be
// killed; killed and reaped when this goes out of scope, or by kill().
class Holder {
 public:
  explicit Holder(const std::function<char()> &act) {
    int ready[2];
    if (::pipe(ready) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::alarm(60);
      const char byte = act();
      if (::write(ready[1], &byte, 1) != 1) ::_exit(1);
      for (;;) ::pause();
    }
    ::close(ready[1]);
    if (pid_ > 0 && ::read(ready[0], &said_, 1) != 1) said_ = 0;
    ::close(ready[0]);
  }
  ~Holder() { kill(); }
  void kill() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }
  char said() const { return said_; }

 private:
  pid_t pid_ = -1;
  char said_ = 0;
};

TEST(SetupTurns, TheTurnGoesWithAHolderThatDies) {
  const std::string name = test_name("dies");
  Holder holder([&] {
    const auto *turn = new SetupTurns::Turn(SetupTurns(name).take());  // kept until the process dies
    return turn->outcome() == Outcome::held ? 'h' : 'x';
  });
  ASSERT_EQ(holder.said(), 'h');
  EXPECT_FALSE(free_now(name));
  holder.kill();
  SetupTurns turns(name);
  EXPECT_EQ(turns.take(0).outcome(), Outcome::held) << "the kernel freed the name with its holder";
}

// Ranks listen while they hold the turn; a name bound by something that never does is not a
// rank's, and waiting for it would cost every set-up the whole wait.
TEST(SetupTurns, AHolderThatNeverAnswersIsNotWaitedFor) {
  const std::string name = test_name("silent");
  const int squatter = bind_name(name, false);
  ASSERT_GE(squatter, 0);
  SetupTurns turns(name);
  EXPECT_EQ(turns.take(600).outcome(), Outcome::foreign_holder);
  ::close(squatter);
  EXPECT_EQ(turns.take(0).outcome(), Outcome::held);
}

// Abstract names have no owner: another user's process can bind this user's name first.
TEST(SetupTurns, AnotherUsersHolderIsNotWaitedFor) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to hold the name as another user";
  const std::string name = test_name("stranger");
  const Holder stranger([&] {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) return 's';
    return bind_name(name, true) >= 0 ? 'h' : 'x';  // held open until the process is killed
  });
  if (stranger.said() == 's') GTEST_SKIP() << "root here cannot become another user (a container without CAP_SETUID)";
  ASSERT_EQ(stranger.said(), 'h');
  SetupTurns turns(name);
  EXPECT_EQ(turns.take(600).outcome(), Outcome::foreign_holder);
}

TEST(SetupTurns, WithoutANameEverySetUpStartsAtOnce) {
  SetupTurns off("");
  EXPECT_FALSE(off.active());
  EXPECT_EQ(off.take().outcome(), Outcome::off);
  EXPECT_NE(default_setup_turns_name().find(std::to_string(::getuid())), std::string::npos)
      << "one name per user: two users' jobs on a node do not wait for each other";
}

}  // namespace
}  // namespace hpcreward
