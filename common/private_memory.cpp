#include "common/private_memory.hpp"

#include <sys/prctl.h>

#include <cstdlib>

namespace hpcreward {

bool make_rank_memory_private() {
  // Open MPI 4.1 (Debian 12): the vader BTL's single-copy mechanism. Overrides a value from the
  // command line (mpirun passes --mca settings to ranks as the same variable).
  ::setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 1);
  return ::prctl(PR_SET_DUMPABLE, 0) == 0;
}

}  // namespace hpcreward
