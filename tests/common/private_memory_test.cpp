// A rank made private (common/private_memory.hpp) keeps its memory from another process of the
// job's user, as a GPU executor is: the control shows the same process opens a dumpable rank's
// /proc/<pid>/mem. Run as root, the "rank" first becomes nobody (root's capabilities would let
// the control through for the wrong reason). Each side runs in forked children; nothing is read.
#include "common/private_memory.hpp"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/opens_parent_memory.hpp"

namespace hpcreward {
namespace {

constexpr uid_t kNobody = 65534;

// A "rank" (private when asked, else explicitly dumpable: a change of user clears the flag)
// whose own child, the "executor", tries to open the rank's memory.
test::Opened executor_opens_rank_memory(bool rank_private) {
  return test::child_opens_parent_memory(
      [&] {
        if (::geteuid() == 0 &&
            (::setresgid(kNobody, kNobody, kNobody) != 0 || ::setresuid(kNobody, kNobody, kNobody) != 0))
          return false;
        return rank_private ? make_rank_memory_private() : ::prctl(PR_SET_DUMPABLE, 1) == 0;
      },
      [] { return true; });
}

int yama_ptrace_scope() {
  std::ifstream file("/proc/sys/kernel/yama/ptrace_scope");
  int scope = 0;
  return file >> scope ? scope : 0;
}

TEST(PrivateMemory, APrivateRanksMemoryIsOutOfReachOfTheUsersOtherProcesses) {
  EXPECT_EQ(executor_opens_rank_memory(true), test::kRefused);
}

TEST(PrivateMemory, TheControlOpensADumpableRanksMemory) {
  // Yama from scope 1 refuses a child's access to its parent whatever the flag.
  if (yama_ptrace_scope() >= 1) GTEST_SKIP() << "Yama already keeps a child out of its parent";
  EXPECT_EQ(executor_opens_rank_memory(false), test::kOpened);
}

TEST(PrivateMemory, TurnsOffOpenMpisSingleCopyTransport) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::unsetenv("OMPI_MCA_btl_vader_single_copy_mechanism");
    const bool made = make_rank_memory_private();
    const char *mechanism = std::getenv("OMPI_MCA_btl_vader_single_copy_mechanism");
    ::_exit(made && mechanism && std::string(mechanism) == "none" && ::prctl(PR_GET_DUMPABLE) == 0 ? 0 : 1);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {}
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace
}  // namespace hpcreward
