#pragma once
// Which kernels OpenBLAS runs on this rank (a DYNAMIC_ARCH build picks them at load, or
// OPENBLAS_CORETYPE forces them), and whether they are the best this CPU can run: a yardstick
// measured with SSE3 kernels on an AVX-512 machine reads several times low, so every ratio
// reward of the rank reads as many times high.
#include <string>

namespace hpcreward {

// The widest vector ISA a set of kernels or a CPU uses: 0 SSE, 1 AVX, 2 AVX2, 3 AVX-512.
int openblas_core_isa(const std::string &core_name);  // -1 for a name not known here
std::string isa_name(int isa);

struct OpenBlasKernel {
  std::string core;       // openblas_get_corename(), e.g. "SkylakeX", "Haswell", "Prescott"
  int core_isa = -1;      // openblas_core_isa(core)
  int cpu_isa = 0;        // what this CPU runs (cpuid, as the kernel reports it to this process)
  std::string forced_by;  // OPENBLAS_CORETYPE's value when set, else ""
  // "" when the kernels use the CPU's widest ISA (or their name is not known here); else one
  // line saying so and what to change.
  std::string warning() const;
};

// This process's OpenBLAS and CPU.
OpenBlasKernel openblas_kernel_here();

}  // namespace hpcreward
