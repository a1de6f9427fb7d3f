#pragma once
// Why a process ran out of host memory, with its RLIMIT_DATA when one is set (the GPU
// children's --gpu-host-memory-mb): the reason a measurer or an executor reports.
#include <sys/resource.h>

#include <cstddef>
#include <cstdio>
#include <string>

namespace hpcreward {

// Into `out` without allocating: a process out of memory can still say so.
inline void out_of_host_memory(char *out, std::size_t bytes) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_DATA, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
    std::snprintf(out, bytes, "out of host memory");
  else
    std::snprintf(out, bytes, "out of host memory (the limit is %llu MiB of heap and private mappings)",
                  static_cast<unsigned long long>(limit.rlim_cur >> 20));
}

inline std::string out_of_host_memory() {
  char text[128];
  out_of_host_memory(text, sizeof text);
  return text;
}

}  // namespace hpcreward
