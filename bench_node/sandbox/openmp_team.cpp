#include "bench_node/sandbox/openmp_team.hpp"

#include <dlfcn.h>

namespace hpcreward {

void start_openmp_team() {
  // RTLD_NOLOAD: libgomp only if the candidate brought it; its own handle, so a candidate
  // that defines a GOMP_parallel of its own is never the one called here.
  void *libgomp = ::dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD | RTLD_LOCAL);
  if (libgomp == nullptr) return;
  // void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags):
  // 0 threads is the default team (OMP_NUM_THREADS), flags 0 the default binding.
  using Parallel = void (*)(void (*)(void *), void *, unsigned, unsigned);
  if (auto parallel = reinterpret_cast<Parallel>(::dlsym(libgomp, "GOMP_parallel")))
    parallel([](void *) {}, nullptr, 0, 0);
  ::dlclose(libgomp);  // drops the reference RTLD_NOLOAD took; the candidate's stays
}

}  // namespace hpcreward
