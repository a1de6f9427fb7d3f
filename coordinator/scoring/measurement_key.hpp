#pragma once
// The identity of a measurement: two candidates with the same key would be
// measured by the same rules, so one measurement may answer both. The key is the SHA-256
// (64 hex digits) of everything that decides what a benchmark rank does with a candidate:
// the extracted code (by its SHA-256, which the row keeps anyway), the problem (shapes, precision, tolerance come with its id), and the
// stage's name, language, compiler flags and technique rules. Not in it: the input seed and
// the rank that times it, which a re-measurement would change anyway.
#include <string>
#include <string_view>

#include "stages/ladder_config.hpp"

namespace hpcreward {

std::string measurement_key(std::string_view code_sha256, std::string_view problem, const StageSpec &stage);

}  // namespace hpcreward
