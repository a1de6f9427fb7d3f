#pragma once
// Why a process ran out of host memory, with its RLIMIT_DATA when one is set (the GPU
// children's --gpu-host-memory-mb): the reason a measurer or an executor reports.
#include <sys/resource.h>

#include <string>

namespace hpcreward {

inline std::string out_of_host_memory() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_DATA, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return "out of host memory";
  return "out of host memory (the limit is " + std::to_string(limit.rlim_cur >> 20) +
         " MiB of heap and private mappings)";
}

}  // namespace hpcreward
