#pragma once
// The x86-64 vector instruction sets a stage's flags compile for, in order: what gcc's
// predefined macros say the flags target, and which one each of gcc's simd clones is for
// (`__attribute__((simd))`, `#pragma omp declare simd`: _ZGVb... SSE2, _ZGVc... AVX, _ZGVd...
// AVX2, _ZGVe... AVX-512, whatever the flags; README.md "Code beyond the stage's flags").
#include <optional>
#include <string_view>

namespace hpcreward::techniques {

enum class VectorIsa { sse2 = 0, avx = 1, avx2 = 2, avx512 = 3 };

// "SSE2 (x86-64 baseline)", "AVX", "AVX2", "AVX-512", for reasons and evidence.
const char *vector_isa_name(VectorIsa isa);

// From `cc FLAGS -dM -E` output: the widest of __AVX512F__, __AVX2__, __AVX__ defined, else SSE2.
VectorIsa vector_isa_from_macros(std::string_view predefined_macros);

// The ISA of a vector variant's name (_ZGVeN8v_f: AVX-512); nullopt for any other name.
std::optional<VectorIsa> simd_clone_isa(std::string_view symbol);

}  // namespace hpcreward::techniques
