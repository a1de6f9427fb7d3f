// Every system call number the kernel could know, under the CPU executor's exact filter: each
// one the filter does not name must kill the process. The names the filter has rules for are
// listed here too, so a call added to the allow-list has to be added to this test by hand, and
// a call a new kernel brings (fchmodat2 came with 6.6) can never pass unnoticed: it is killed.
// The named ones (allowed with conditions, or failed with an errno) are the hostile calls'
// business (hostile_calls_test.cpp).
#include <seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/sandbox/filtered_child.hpp"

namespace hpcreward {
namespace {

using namespace hpcreward::testing;

// Beyond every number Linux has used so far (about 470 in 2026), with room for years of new ones.
constexpr int kHighestNumberTried = 1023;

// The names the CPU filter has a rule for (seccomp_filter.cpp): allowed, allowed with argument
// conditions, or failed with an errno.
const std::vector<const char *> kNamedByTheCpuFilter = {
    "brk", "munmap", "mremap", "mprotect", "mmap", "madvise", "mbind", "clone", "clone3", "futex",
    "set_robust_list", "rseq", "exit", "gettid", "getpid", "sched_yield", "sched_getaffinity", "getcpu",
    "sched_setaffinity", "rt_sigprocmask", "rt_sigreturn", "restart_syscall", "rt_sigaction", "tgkill",
    "clock_gettime", "clock_getres", "gettimeofday", "time", "nanosleep", "clock_nanosleep", "write", "writev",
    "fstat", "newfstatat", "close", "open", "openat", "ioctl", "getrandom", "sysinfo", "getrlimit", "getrusage",
    "exit_group", "prlimit64", "prctl"};

// Calls the kernel itself exempts from seccomp (Linux 6.14 on): uretprobe (335) and uprobe (336)
// are how the kernel's own probe trampolines return, so no filter sees them. Called from
// anywhere else they do nothing: uretprobe kills the caller with SIGILL, uprobe fails (ENXIO).
// Where an older kernel filters them, they are killed like any other.
const std::set<long> kPassedThroughByTheKernel = {335, 336};

bool did_nothing_outside_a_trampoline(const Ended &ended) {
  return (ended.signaled && (ended.signal == SIGSYS || ended.signal == SIGILL)) ||
         (ended.exited && ended.code == 1);  // the call failed
}

std::set<int> numbers_of(const std::vector<const char *> &names) {
  std::set<int> numbers;
  for (const char *name : names) {
    const int number = seccomp_syscall_resolve_name(name);
    EXPECT_NE(number, __NR_SCMP_ERROR) << name;
    numbers.insert(number);
  }
  return numbers;
}

// The numbers the filter's own code compares the call with, read from its pseudo filter code.
std::set<int> numbers_in_filter(const std::string &text) {
  std::set<int> numbers;
  const std::string mark = "$syscall == ";
  for (std::size_t at = text.find(mark); at != std::string::npos; at = text.find(mark, at + 1))
    numbers.insert(std::stoi(text.substr(at + mark.size())));
  return numbers;
}

// One child per number: the filter, then the call with every argument 0 (a call the filter
// let through by mistake fails on such arguments or does nothing lasting; the test fails on it
// either way, since the child then exits instead of dying by SIGSYS).
Ended call_under_filter(long number, bool threads) {
  return run_filtered([number] { return static_cast<int>(::syscall(number, 0, 0, 0, 0, 0, 0) >= 0 ? 0 : 1); },
                      {.before_install = {},
                       .install = [threads] { install_candidate_filter({.result_fd = -1, .self = 0, .threads = threads}); }},
                      10);
}

class EveryCpuSystemCall : public ::testing::TestWithParam<bool> {};

TEST_P(EveryCpuSystemCall, NamesExactlyTheListedCalls) {
  const bool threads = GetParam();
  std::set<int> expected = numbers_of(kNamedByTheCpuFilter);
  if (!threads) expected.erase(seccomp_syscall_resolve_name("clone"));
  EXPECT_EQ(numbers_in_filter(candidate_filter_text({.result_fd = -1, .self = 0, .threads = threads})), expected);
}

TEST_P(EveryCpuSystemCall, EveryCallNotNamedIsKilled) {
  const bool threads = GetParam();
  std::set<int> named = numbers_of(kNamedByTheCpuFilter);
  if (!threads) named.erase(seccomp_syscall_resolve_name("clone"));
  std::vector<long> survived;
  int tried = 0;
  for (long number = 0; number <= kHighestNumberTried; ++number) {
    if (named.count(static_cast<int>(number)) != 0) continue;
    ++tried;
    const Ended ended = call_under_filter(number, threads);
    if (kPassedThroughByTheKernel.count(number) != 0) {
      EXPECT_TRUE(did_nothing_outside_a_trampoline(ended)) << number << ": " << describe(ended);
      continue;
    }
    if (!(ended.signaled && ended.signal == SIGSYS)) {
      survived.push_back(number);
      ADD_FAILURE() << "system call " << number << " ("
                    << (seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, static_cast<int>(number))
                            ? seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, static_cast<int>(number))
                            : "unnamed")
                    << ") was not killed: " << describe(ended);
    }
  }
  EXPECT_GT(tried, kHighestNumberTried - 60);
  EXPECT_TRUE(survived.empty());
}

// Another ABI's numbering (x32: the number with bit 30 set) reaches the same kernel entry
// points with other numbers: every call of it is killed, the allowed ones too.
TEST_P(EveryCpuSystemCall, X32CallsAreKilledEvenWhereTheNativeOneIsAllowed) {
  const bool threads = GetParam();
  constexpr long kX32 = 0x40000000;
  for (long number : {long{SYS_getpid}, long{SYS_write}, long{SYS_gettid}, long{SYS_fchmodat}, 452L /* fchmodat2 */})
    expect_sigsys(call_under_filter(kX32 | number, threads));
}

INSTANTIATE_TEST_SUITE_P(CpuFilter, EveryCpuSystemCall, ::testing::Values(true, false),
                         [](const auto &info) { return info.param ? "threads" : "one_thread"; });

}  // namespace
}  // namespace hpcreward
