#include "bench_node/process/cpu_affinity.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>

namespace hpcreward {

int affinity_cpu_count() {
  const std::size_t count = affinity_cpus().size();
  if (count > 0) return static_cast<int>(count);
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<int>(online) : 1;
}

std::vector<int> affinity_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

bool set_affinity(const std::vector<int> &cpus) {
  if (cpus.empty()) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus)
    if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof set, &set) == 0;
}

std::vector<int> partition_cpus(const std::vector<int> &cpus, int index, int count) {
  if (cpus.empty() || count <= 1 || index < 0 || index >= count) return cpus;
  const int total = static_cast<int>(cpus.size());
  if (count >= total) return {cpus[static_cast<std::size_t>(index % total)]};
  const int per = total / count, extra = total % count;
  const int begin = index * per + std::min(index, extra);
  const int size = per + (index < extra ? 1 : 0);
  return std::vector<int>(cpus.begin() + begin, cpus.begin() + begin + size);
}

std::string describe_cpus(const std::vector<int> &cpus) {
  std::string text;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!text.empty()) text += ",";
    text += std::to_string(cpus[i]);
    if (j > i) text += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return text;
}

}  // namespace hpcreward
