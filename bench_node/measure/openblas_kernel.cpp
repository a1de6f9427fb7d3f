#include "bench_node/measure/openblas_kernel.hpp"

#include <cblas.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <utility>

namespace hpcreward {
namespace {

constexpr int kSse = 0, kAvx = 1, kAvx2 = 2, kAvx512 = 3;

// OpenBLAS 0.3's x86-64 DYNAMIC_ARCH core names (driver/others/dynamic.c, corename[]) by the
// widest ISA their kernels use.
constexpr std::pair<std::string_view, int> kCores[] = {
    {"Prescott", kSse},    {"Core2", kSse},       {"Penryn", kSse},       {"Dunnington", kSse},
    {"Nehalem", kSse},     {"Atom", kSse},        {"Opteron", kSse},      {"Opteron_SSE3", kSse},
    {"Barcelona", kSse},   {"Nano", kSse},        {"Katmai", kSse},       {"Coppermine", kSse},
    {"Northwood", kSse},   {"Banias", kSse},      {"Athlon", kSse},       {"Bobcat", kSse},
    {"Sandybridge", kAvx}, {"Bulldozer", kAvx},   {"Piledriver", kAvx},   {"Steamroller", kAvx},
    {"Excavator", kAvx},   {"Haswell", kAvx2},    {"Zen", kAvx2},         {"SkylakeX", kAvx512},
    {"Cooperlake", kAvx512}, {"SapphireRapids", kAvx512},
};

int cpu_isa_here() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return kAvx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return kAvx2;
  if (__builtin_cpu_supports("avx")) return kAvx;
  return kSse;
}

}  // namespace

int openblas_core_isa(const std::string &core_name) {
  for (const auto &[name, isa] : kCores)
    if (core_name.size() == name.size() &&
        std::equal(name.begin(), name.end(), core_name.begin(), [](char a, char b) {
          return (a | 0x20) == (b | 0x20);  // OpenBLAS reports "Haswell", OPENBLAS_CORETYPE may say "HASWELL"
        }))
      return isa;
  return -1;
}

std::string isa_name(int isa) {
  switch (isa) {
    case kSse: return "SSE";
    case kAvx: return "AVX";
    case kAvx2: return "AVX2";
    case kAvx512: return "AVX-512";
    default: return "an ISA not known here";
  }
}

std::string OpenBlasKernel::warning() const {
  if (core_isa < 0 || core_isa >= cpu_isa) return "";
  std::string out = "OpenBLAS runs its " + core + " kernels (" + isa_name(core_isa) + ") on a CPU with " +
                    isa_name(cpu_isa) + ": its yardsticks read low, so fraction and speedup rewards read high";
  out += forced_by.empty() ? " (a build without this CPU's kernels?)"
                           : " (OPENBLAS_CORETYPE=" + forced_by + " forces them: unset it)";
  return out;
}

OpenBlasKernel openblas_kernel_here() {
  OpenBlasKernel kernel;
  const char *name = openblas_get_corename();
  kernel.core = name != nullptr ? name : "";
  kernel.core_isa = openblas_core_isa(kernel.core);
  kernel.cpu_isa = cpu_isa_here();
  if (const char *forced = std::getenv("OPENBLAS_CORETYPE"); forced != nullptr) kernel.forced_by = forced;
  return kernel;
}

}  // namespace hpcreward
