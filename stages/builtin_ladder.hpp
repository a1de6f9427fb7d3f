#pragma once
// The default ladder (stages/default_ladder.json) compiled into the programs, so a run
// needs no file beside the executables; --ladder FILE replaces it.
#include <string_view>

namespace hpcreward {

std::string_view builtin_ladder_json();
inline constexpr std::string_view kBuiltinLadderName = "built-in stages/default_ladder.json";

}  // namespace hpcreward
