#pragma once
// The techniques detection can report, per language; a ladder file naming anything else has a
// typo (stages/ladder_config.cpp refuses it). Each language's detector reports its techniques in
// this order (technique_detection.hpp for C, sass_techniques.hpp for CUDA).
//   C candidates (CPU ranks): OpenMP, AVX-512 intrinsics, cache blocking, and SIMD intrinsics
//   below AVX-512 (SSE, AVX, AVX2: `simd`, last so that older names and niche keys keep their
//   spelling).
//   CUDA candidates (GPU ranks): shared-memory tiling, tensor-core instructions (mma/wgmma),
//   asynchronous copies (cp.async/TMA).
#include <optional>
#include <string_view>

#include "common/problem.hpp"

namespace hpcreward::techniques {

inline constexpr std::string_view kCTechniques[] = {"openmp", "avx512", "blocking", "simd"};
inline constexpr std::string_view kCudaTechniques[] = {"smem", "tensor", "async"};

bool is_known_technique(std::string_view technique);  // of either language
// The language whose candidates can use `technique`; nullopt for an unknown name.
std::optional<Language> technique_language(std::string_view technique);

}  // namespace hpcreward::techniques
