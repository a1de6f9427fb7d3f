#pragma once
// The techniques detection can report, per language; a ladder file naming anything else has a
// typo (stages/ladder_config.cpp refuses it). Each language's detector reports its techniques in
// this order (technique_detection.hpp for C, sass_techniques.hpp for CUDA).
//   C candidates (CPU ranks): OpenMP, AVX-512 intrinsics, cache blocking, and SIMD intrinsics
//   below AVX-512 (SSE, AVX, AVX2: `simd`, last so that older names and niche keys keep their
//   spelling).
//   CUDA candidates (GPU ranks): shared-memory tiling, tensor-core instructions (mma/wgmma),
//   asynchronous copies (cp.async/TMA), and two of Hopper's that refine the last two: warpgroup
//   MMA (wgmma, also `tensor`) and the Tensor Memory Accelerator's bulk copies (TMA, also `async`).
#include <optional>
#include <string_view>

#include "common/problem.hpp"

namespace hpcreward::techniques {

inline constexpr std::string_view kCTechniques[] = {"openmp", "avx512", "blocking", "simd"};
inline constexpr std::string_view kCudaTechniques[] = {"smem", "tensor", "async", "wgmma", "tma"};

bool is_known_technique(std::string_view technique);  // of either language
// The language whose candidates can use `technique`; nullopt for an unknown name.
std::optional<Language> technique_language(std::string_view technique);
// The technique `technique` refines ("tensor" for "wgmma", "async" for "tma"), nullopt for one
// that refines none. Every use of a refinement is a use of what it refines, so a stage that
// allows "tensor" allows "wgmma" too; a stage can require a refinement on its own.
std::optional<std::string_view> refined_technique(std::string_view technique);

}  // namespace hpcreward::techniques
