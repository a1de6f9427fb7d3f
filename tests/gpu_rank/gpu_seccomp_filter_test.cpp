// The GPU runner's seccomp deny-list, read as libseccomp's filter text (nothing is loaded).
#include <gtest/gtest.h>

#include <sys/syscall.h>

#include "bench_node/sandbox/gpu_seccomp_filter.hpp"

namespace hpcreward {
namespace {

TEST(GpuSeccompFilter, KillsNewProcessesAndTheNetworkAndAllowsTheRest) {
  const std::string text = gpu_candidate_filter_text({3, 1234});
  for (long number : {long{__NR_execve}, long{__NR_fork}, long{__NR_socket}, long{__NR_ptrace}, long{__NR_unlink}})
    EXPECT_NE(text.find("if ($syscall == " + std::to_string(number) + ")"), std::string::npos)
        << "no rule for system call " << number << "\n" << text;
  EXPECT_NE(text.find("action KILL_PROCESS"), std::string::npos);
  EXPECT_EQ(text.find("if ($syscall == " + std::to_string(__NR_ioctl) + ")"), std::string::npos)
      << "the CUDA driver's ioctls must pass";
  EXPECT_NE(text.find("# default action\n  action ALLOW"), std::string::npos) << text;
}

}  // namespace
}  // namespace hpcreward
