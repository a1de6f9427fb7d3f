// Work directories: private, removed after use, and leftovers of killed ranks removed.
#include "bench_node/process/work_dir.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

namespace hpcreward {
namespace {

namespace fs = std::filesystem;

// A process id that is certainly gone: a child that exited and was reaped.
pid_t gone_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return pid;
}

TEST(WorkDir, IsPrivateAndRemovedUnlessKept) {
  const fs::path root = fs::temp_directory_path() / ("hpcreward-workdir-test-" + std::to_string(::getpid()));
  ensure_private_directory(root);
  fs::path made;
  {
    WorkDir directory(root, "cand-1");
    made = directory.path();
    struct stat info {};
    ASSERT_EQ(::stat(made.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0700u);
    std::ofstream(made / "file") << "x";
  }
  EXPECT_FALSE(fs::exists(made));
  remove_tree(root);
}

TEST(WorkDir, RootsOfRanksThatAreGoneAreRemoved) {
  const fs::path base = default_work_root(0).parent_path();
  const fs::path dead = base / ("hpcreward-bench-7-" + std::to_string(gone_pid()));
  const fs::path alive = default_work_root(7);  // this process: alive
  const fs::path other = base / ("hpcreward-benchmark-notes-" + std::to_string(gone_pid()));
  for (const fs::path &path : {dead, alive, other}) {
    ensure_private_directory(path / "techniques" / "include");
    std::ofstream(path / "techniques" / "include" / "omp.h") << "/* */";
  }
  EXPECT_GE(remove_stale_work_roots(), 1);
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(alive));
  EXPECT_TRUE(fs::exists(other)) << "only default rank roots are touched";
  remove_tree(alive);
  remove_tree(other);
}

}  // namespace
}  // namespace hpcreward
