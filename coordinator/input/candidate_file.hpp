#pragma once
// Reads a JSON Lines candidate file into prepared candidates (blank lines skipped).
#include <filesystem>
#include <vector>

#include "coordinator/input/candidate_input.hpp"

namespace hpcreward {

// Throws std::runtime_error if the file cannot be read; bad lines become format_error
// candidates, never exceptions.
std::vector<PreparedCandidate> read_candidate_file(const std::filesystem::path &path,
                                                   const CandidateDefaults &defaults);

}  // namespace hpcreward
