#pragma once
// gcc makes a vector variant of every exported `__attribute__((simd))` or
// `#pragma omp declare simd` function for each x86-64 ISA (SSE2, AVX, AVX2, AVX-512), whatever
// the stage's flags; gcc 12 has no option to restrict them (a `static` function gets only the
// flags' own). The object's code calls only the variant of its own flags, so the others are
// made unreachable before detection and the load: their bytes are overwritten with int3 (the
// symbol's range from the symbol tables), and a jump into one traps. README.md says why.
#include <filesystem>
#include <string>
#include <vector>

#include "techniques/vector_isa.hpp"

namespace hpcreward::techniques {

struct DisabledClones {
  bool done = false;                 // false: the object could not be read or written (error)
  std::string error;
  std::vector<std::string> names;    // the variants overwritten, in symbol-table order
};

// Overwrites, in the file, every defined function named like a vector variant (_ZGVeN8v_f)
// for an ISA wider than `target`, unless its bytes are shared with a function that is kept.
DisabledClones disable_simd_clones_beyond(const std::filesystem::path &shared_object, VectorIsa target);

}  // namespace hpcreward::techniques
