#pragma once
// Whether a child can open its parent's /proc/<pid>/mem, each side in forked processes set up
// by the caller: `parent_setup` runs in a forked "parent" (a rank, a measurer), `child_setup` in
// that one's own child, which then tries the open. Nothing is read. Used by the tests of
// non-dumpable ranks (tests/common) and of executors without capabilities (tests/sandbox).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

namespace hpcreward::test {

enum Opened { kRefused = 0, kOpened = 1, kBroken = 2 };

// Each setup returns false when it could not do its part (the result is then kBroken).
template <typename ParentSetup, typename ChildSetup>
Opened child_opens_parent_memory(ParentSetup parent_setup, ChildSetup child_setup) {
  const pid_t parent = ::fork();
  if (parent < 0) return kBroken;
  if (parent == 0) {
    ::alarm(20);
    if (!parent_setup()) ::_exit(kBroken);
    const pid_t child = ::fork();
    if (child < 0) ::_exit(kBroken);
    if (child == 0) {
      ::alarm(20);
      if (!child_setup()) ::_exit(kBroken);
      const std::string path = "/proc/" + std::to_string(::getppid()) + "/mem";
      const int fd = ::open(path.c_str(), O_RDONLY);
      ::_exit(fd >= 0 ? kOpened : kRefused);
    }
    int status = 0;
    while (::waitpid(child, &status, 0) < 0) {}
    ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : kBroken);
  }
  int status = 0;
  while (::waitpid(parent, &status, 0) < 0) {}
  return WIFEXITED(status) ? static_cast<Opened>(WEXITSTATUS(status)) : kBroken;
}

}  // namespace hpcreward::test
