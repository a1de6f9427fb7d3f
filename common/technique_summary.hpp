#pragma once
// The technique descriptor of one candidate as it travels from a benchmark rank to the
// coordinator and into the log. The rank fills it from technique detection
// (techniques/); the coordinator keys the quality-diversity archive on it.
#include <string>
#include <vector>

namespace hpcreward {

struct TechniqueSummary {
  bool detected = false;                // false: detection did not run (the candidate failed earlier)
  // C candidates: a subset of {"openmp", "avx512", "blocking"}, in that order; CUDA candidates:
  // of {"smem", "tensor", "async"} (stages/ladder_config.hpp kCTechniques, kCudaTechniques).
  std::vector<std::string> techniques;
  std::string loop_order;               // "ikj", ... for the C += A*B nest; "" when unknown
  std::vector<int> tile_sizes;          // constant tile sizes, outermost first
  std::string evidence;                 // what was found where (lines, instructions)
  bool operator==(const TechniqueSummary &) const = default;
};

// "openmp+blocking" (C), "smem+tensor" (CUDA), or "plain" when no technique was found.
std::string techniques_text(const TechniqueSummary &summary);
// "64x64", or "" when there are none.
std::string tile_sizes_text(const std::vector<int> &tile_sizes);

// The archive niche of a descriptor: "<techniques>|<loop order or ?>|<tiles or ->". Tile
// sizes enter rounded down to powers of two, so 60x60 and 64x64 share a niche: a model
// cannot open new niches by nudging a tile size by one.
std::string descriptor_key(const TechniqueSummary &summary);

}  // namespace hpcreward
