#pragma once
// What a benchmark rank tells the coordinator about itself when it starts (provenance).
#include <string>

#include "common/messages.hpp"

namespace hpcreward {

// The node's name: SLURMD_NODENAME under Slurm, else the host name (common/node_name.hpp).
std::string host_name();

// The CPU runs AVX-512F code: the instructions exist and the OS saves the zmm state
// (__builtin_cpu_supports("avx512f") checks both).
bool cpu_supports_avx512();

// `no_avx512` (--no-avx512): report the rank as lacking AVX-512 even when its CPU has it,
// so the coordinator runs the ladder as on a host without it.
RankInfo collect_rank_info(int rank, const std::string &cc, bool no_avx512 = false);

}  // namespace hpcreward
