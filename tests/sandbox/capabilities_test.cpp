// An executor without capabilities cannot read its non-dumpable measurer's memory through
// /proc/<pid>/mem, even when root runs both (sandbox/capabilities.hpp). The GPU executor's
// seccomp filter cannot refuse a read-only open, so this is what keeps the measurer's clock
// and secrets out of its reach. Each side runs in forked children; nothing is read.
#include "bench_node/sandbox/capabilities.hpp"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/opens_parent_memory.hpp"

namespace hpcreward {
namespace {

using test::child_opens_parent_memory;
using test::kOpened;
using test::kRefused;
using test::Opened;

// A "measurer" (non-dumpable when asked) whose own child, the "executor" (without
// capabilities when asked), tries to open the measurer's memory.
Opened executor_opens_measurer_memory(bool measurer_undumpable, bool executor_drops) {
  return child_opens_parent_memory([&] { return !measurer_undumpable || ::prctl(PR_SET_DUMPABLE, 0) == 0; },
                                   [&] { return !executor_drops || drop_all_capabilities(); });
}

int yama_ptrace_scope() {
  std::ifstream file("/proc/sys/kernel/yama/ptrace_scope");
  int scope = 0;
  return file >> scope ? scope : 0;
}

TEST(Capabilities, ANonDumpableMeasurersMemoryIsOutOfAnExecutorsReach) {
  EXPECT_EQ(executor_opens_measurer_memory(true, true), kRefused);
}

TEST(Capabilities, WhatEachMeasureDoesAlone) {
  // The test can fail: root with its capabilities opens a dumpable parent's memory.
  if (::geteuid() != 0 || yama_ptrace_scope() >= 3) GTEST_SKIP() << "needs root, and ptrace allowed at all";
  EXPECT_EQ(executor_opens_measurer_memory(false, false), kOpened) << "the control: nothing keeps root out";
  EXPECT_EQ(executor_opens_measurer_memory(true, false), kOpened) << "root's CAP_SYS_PTRACE passes non-dumpable";
  EXPECT_EQ(executor_opens_measurer_memory(false, true), kRefused) << "without capabilities: the parent's caps exceed";
}

}  // namespace
}  // namespace hpcreward
