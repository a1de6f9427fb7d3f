#include "common/node_name.hpp"

#include <unistd.h>

#include <cstdlib>

namespace hpcreward {

std::string node_name() {
  if (const char *slurm = std::getenv("SLURMD_NODENAME"); slurm != nullptr && *slurm != '\0') return slurm;
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

}  // namespace hpcreward
