#pragma once
// Assembles the log's provenance from the options and what the ranks reported.
#include <string>
#include <vector>

#include "common/messages.hpp"
#include "coordinator/run/options.hpp"
#include "results/provenance.hpp"

namespace hpcreward {

Provenance build_provenance(const CoordinatorOptions &options, const std::vector<RankInfo> &ranks);
std::string this_host();

}  // namespace hpcreward
