#pragma once
// The CPUs this process may run on (its affinity mask, as set by mpirun/srun binding).
namespace hpcreward {

// Number of CPUs in the calling thread's affinity mask; at least 1.
int affinity_cpu_count();

}  // namespace hpcreward
