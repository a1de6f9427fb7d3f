#include "coordinator/input/candidate_file.hpp"

#include <fstream>
#include <stdexcept>
#include <string>

namespace hpcreward {

std::vector<PreparedCandidate> read_candidate_file(const std::filesystem::path &path,
                                                   const CandidateDefaults &defaults) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot read candidate file " + path.string());
  std::vector<PreparedCandidate> candidates;
  std::string line;
  for (std::size_t number = 1; std::getline(file, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    candidates.push_back(prepare_candidate(line, number, defaults));
  }
  if (file.bad()) throw std::runtime_error("error while reading candidate file " + path.string());
  return candidates;
}

}  // namespace hpcreward
