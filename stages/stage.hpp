#pragma once
// A stage of the Staged Quality-Diversity ladder: how candidates are compiled and which
// optimization techniques they may or must use.
#include <string>
#include <string_view>
#include <vector>

namespace hpcreward {

struct Stage {
  std::string name;
  std::vector<std::string> compiler_flags;
  std::vector<std::string> techniques_allowed;   // "openmp", "avx512", "blocking"
  std::vector<std::string> techniques_required;
};

// The default C ladder plus the `open` stage (DESIGN.md "Stages").
const std::vector<Stage> &default_stages();
const Stage *find_stage(std::string_view name);
std::string known_stage_names();  // comma-separated, for error messages

}  // namespace hpcreward
