#pragma once
// The name of the node a process runs on, as users know it: under Slurm the node's Slurm
// name (several Slurm nodes may share one machine in tests; on clusters it is the name in
// squeue and sinfo), else the host name.
#include <string>

namespace hpcreward {

// SLURMD_NODENAME when that variable is set and not empty, else gethostname ("unknown" if
// that fails).
std::string node_name();

}  // namespace hpcreward
