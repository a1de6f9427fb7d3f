#pragma once
// What a benchmark rank tells the coordinator about itself when it starts (provenance).
#include <string>

#include "common/messages.hpp"

namespace hpcreward {

std::string host_name();
RankInfo collect_rank_info(int rank, const std::string &cc);

}  // namespace hpcreward
