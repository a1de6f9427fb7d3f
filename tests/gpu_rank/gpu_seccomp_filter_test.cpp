// The GPU executor's allow-list, read as libseccomp's filter text (nothing is loaded): what
// every call not named gets, and the conditions the driver's calls pass under. What the filter
// does when loaded is tests/sandbox/every_system_call_test.cpp's and hostile_calls_test.cpp's.
#include <gtest/gtest.h>

#include <sys/syscall.h>

#include "bench_node/sandbox/gpu_seccomp_filter.hpp"

namespace hpcreward {
namespace {

TEST(GpuSeccompFilter, KillsWhatItDoesNotNameAndConditionsTheDriversCalls) {
  const std::string text = gpu_candidate_filter_text({.result_fd = -1, .self = 1234});
  EXPECT_NE(text.find("# default action\n  action KILL_PROCESS"), std::string::npos) << text;
  for (long number : {long{__NR_ioctl}, long{__NR_mmap}, long{__NR_openat}, long{__NR_poll}})
    EXPECT_NE(text.find("if ($syscall == " + std::to_string(number) + ")"), std::string::npos)
        << "no rule for system call " << number << "\n" << text;
  for (long number : {long{__NR_execve}, long{__NR_clone}, long{__NR_fchmodat}, long{__NR_setxattr},
                      long{__NR_utimensat}, long{__NR_flock}})
    EXPECT_EQ(text.find("if ($syscall == " + std::to_string(number) + ")"), std::string::npos)
        << "system call " << number << " has a rule: it must fall to the default (killed)";
  EXPECT_NE(text.find("1234"), std::string::npos) << "tgkill is not limited to this process\n" << text;
}

}  // namespace
}  // namespace hpcreward
