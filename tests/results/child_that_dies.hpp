#pragma once
// Crash tests of the log: the writer runs in a forked child that ends with _exit the moment
// `body` returns, so no destructor runs and the writer never closes, as when rank 0 crashes.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>

namespace hpcreward::test_support {

inline void in_child_that_dies(const std::function<void()> &body) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      body();
      std::_Exit(0);
    } catch (const std::exception &error) {
      std::fprintf(stderr, "child: %s\n", error.what());
      std::_Exit(1);
    }
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child failed";
}

}  // namespace hpcreward::test_support
