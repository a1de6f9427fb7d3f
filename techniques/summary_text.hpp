#pragma once
// A TechniqueSummary as text: the log's columns (`techniques`, `loop_order`, `tile_sizes`),
// the quality-diversity archive's niche key, and the columns read back into a summary when the
// coordinator rebuilds its archive after a restart. One home for the spellings, so the log,
// the niche and the replay cannot drift apart.
//
// Namespace hpcreward, beside the struct they write (common/technique_summary.hpp).
#include <string>
#include <vector>

#include "common/technique_summary.hpp"

namespace hpcreward {

// "openmp+blocking" (C), "smem+tensor" (CUDA), or "plain" when no technique was found.
std::string techniques_text(const TechniqueSummary &summary);
// "64x64", or "" when there are none.
std::string tile_sizes_text(const std::vector<int> &tile_sizes);

// The archive niche of a descriptor: "<techniques>|<loop order or ?>|<tiles or ->". Tile
// sizes enter rounded down to powers of two, so 60x60 and 64x64 share a niche: a model
// cannot open new niches by nudging a tile size by one.
std::string descriptor_key(const TechniqueSummary &summary);

// The log's three columns back as a summary (the evidence is not logged, so it stays empty).
// Empty `techniques`: detection did not run for that row (detected = false). Throws
// std::invalid_argument or std::out_of_range (std::stoi) for a tile size that is not a number.
TechniqueSummary summary_from_text(const std::string &techniques, const std::string &loop_order,
                                   const std::string &tile_sizes);

}  // namespace hpcreward
