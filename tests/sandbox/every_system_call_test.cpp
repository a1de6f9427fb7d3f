// Every system call number the kernel could know, under each executor's exact filter (the CPU
// executor's with and without threads, the GPU executor's after its file rule and size limit):
// each one the filter does not name must kill the process. The names the filter has rules for are
// listed here too, so a call added to the allow-list has to be added to this test by hand, and
// a call a new kernel brings (fchmodat2 came with 6.6) can never pass unnoticed: it is killed.
// The named ones (allowed with conditions, or failed with an errno) are the hostile calls'
// business (hostile_calls_test.cpp).
#include <seccomp.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench_node/sandbox/file_writes.hpp"
#include "bench_node/sandbox/gpu_seccomp_filter.hpp"
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

// The names the GPU filter has a rule for (gpu_seccomp_filter.cpp).
const std::vector<const char *> kNamedByTheGpuFilter = {
    "brk", "munmap", "mremap", "get_mempolicy", "mmap", "mprotect", "madvise", "mbind", "futex", "set_robust_list",
    "rseq", "exit", "gettid", "getpid", "sched_yield", "sched_getaffinity", "getcpu", "sched_get_priority_min",
    "sched_get_priority_max", "sched_setaffinity", "rt_sigprocmask", "rt_sigreturn", "restart_syscall",
    "rt_sigaction", "tgkill", "clock_gettime", "clock_getres", "gettimeofday", "time", "nanosleep",
    "clock_nanosleep", "open", "openat", "read", "readv", "pread64", "write", "writev", "close", "dup", "dup3",
    "fstat", "newfstatat", "statx", "lseek", "getdents64", "readlink", "readlinkat", "access", "faccessat",
    "faccessat2", "getcwd", "poll", "ppoll", "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait",
    "eventfd2", "pipe2", "fcntl", "ioctl", "getrandom", "sysinfo", "uname", "getrlimit", "getrusage", "getuid",
    "geteuid", "getgid", "getegid", "exit_group", "prlimit64", "prctl"};

enum class Executor { cpu_threads, cpu_one_thread, gpu };

std::string name_of(Executor executor) {
  switch (executor) {
    case Executor::cpu_threads: return "cpu_threads";
    case Executor::cpu_one_thread: return "cpu_one_thread";
    case Executor::gpu: return "gpu";
  }
  return "?";
}

// The GPU executor's set-up before its filter (gpu_executor_main.cpp): no file writable but the
// GPU's device files, no file growing.
void install(Executor executor) {
  if (executor == Executor::gpu) {
    const rlimit no_writes{0, 0};
    ::setrlimit(RLIMIT_FSIZE, &no_writes);
    if (landlock_abi() > 0) restrict_file_writes(nvidia_device_files());
    install_gpu_candidate_filter({.result_fd = -1, .self = 0});
  } else {
    install_candidate_filter({.result_fd = -1, .self = 0, .threads = executor == Executor::cpu_threads});
  }
}

std::string filter_text(Executor executor) {
  return executor == Executor::gpu
             ? gpu_candidate_filter_text({.result_fd = -1, .self = 0})
             : candidate_filter_text({.result_fd = -1, .self = 0, .threads = executor == Executor::cpu_threads});
}

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

std::set<int> named_by(Executor executor) {
  std::set<int> named = numbers_of(executor == Executor::gpu ? kNamedByTheGpuFilter : kNamedByTheCpuFilter);
  if (executor == Executor::cpu_one_thread) named.erase(seccomp_syscall_resolve_name("clone"));
  return named;
}

// One child per number: the filter, then the call with every argument 0 (a call the filter
// let through by mistake fails on such arguments or does nothing lasting; the test fails on it
// either way, since the child then exits instead of dying by SIGSYS).
Ended call_under_filter(long number, Executor executor) {
  return run_filtered([number] { return static_cast<int>(::syscall(number, 0, 0, 0, 0, 0, 0) >= 0 ? 0 : 1); },
                      {.before_install = {}, .install = [executor] { install(executor); }}, 10);
}

class EverySystemCall : public ::testing::TestWithParam<Executor> {};

TEST_P(EverySystemCall, NamesExactlyTheListedCalls) {
  EXPECT_EQ(numbers_in_filter(filter_text(GetParam())), named_by(GetParam()));
}

TEST_P(EverySystemCall, EveryCallNotNamedIsKilled) {
  const Executor executor = GetParam();
  const std::set<int> named = named_by(executor);
  std::vector<long> survived;
  int tried = 0;
  for (long number = 0; number <= kHighestNumberTried; ++number) {
    if (named.count(static_cast<int>(number)) != 0) continue;
    ++tried;
    const Ended ended = call_under_filter(number, executor);
    if (kPassedThroughByTheKernel.count(number) != 0) {
      EXPECT_TRUE(did_nothing_outside_a_trampoline(ended)) << number << ": " << describe(ended);
      continue;
    }
    if (!(ended.signaled && ended.signal == SIGSYS)) {
      survived.push_back(number);
      const char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, static_cast<int>(number));
      ADD_FAILURE() << "system call " << number << " (" << (name ? name : "unnamed")
                    << ") was not killed: " << describe(ended);
    }
  }
  EXPECT_GT(tried, kHighestNumberTried - 90);
  EXPECT_TRUE(survived.empty());
}

// Another ABI's numbering (x32: the number with bit 30 set) reaches the same kernel entry
// points with other numbers: every call of it is killed, the allowed ones too.
TEST_P(EverySystemCall, X32CallsAreKilledEvenWhereTheNativeOneIsAllowed) {
  constexpr long kX32 = 0x40000000;
  for (long number : {long{SYS_getpid}, long{SYS_write}, long{SYS_gettid}, long{SYS_ioctl}, long{SYS_fchmodat},
                      452L /* fchmodat2 */})
    expect_sigsys(call_under_filter(kX32 | number, GetParam()));
}

// The metadata calls a deny-list once missed, by name, on a file this process may otherwise
// write: each is killed before it can change anything.
TEST(GpuFilter, KillsEveryMetadataChange) {
  for (const char *name : {"fchmodat2", "setxattr", "lsetxattr", "fsetxattr", "removexattr", "fremovexattr",
                           "utimensat", "futimesat", "utimes", "fchmod", "fchown", "flock"}) {
    int number = seccomp_syscall_resolve_name(name);
    if (number == __NR_SCMP_ERROR && std::string(name) == "fchmodat2") number = 452;  // Linux 6.6, newer than libseccomp 2.5.4
    ASSERT_NE(number, __NR_SCMP_ERROR) << name;
    const Ended ended = call_under_filter(number, Executor::gpu);
    EXPECT_TRUE(ended.signaled && ended.signal == SIGSYS) << name << ": " << describe(ended);
  }
}

INSTANTIATE_TEST_SUITE_P(Executors, EverySystemCall,
                         ::testing::Values(Executor::cpu_threads, Executor::cpu_one_thread, Executor::gpu),
                         [](const auto &info) { return name_of(info.param); });

}  // namespace
}  // namespace hpcreward
