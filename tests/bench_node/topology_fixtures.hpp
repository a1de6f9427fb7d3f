#pragma once
// Nodes the placement tests model (hwloc synthetic descriptions).
#include <vector>

namespace hpcreward {

// Two sockets of four cores, 2-way SMT, numbered as Linux numbers Intel nodes: core i's
// siblings are CPUs i and i + 8 (indexes= lists the PUs' OS numbers in topology order).
inline constexpr const char *kTwoSocketsSmt2 =
    "pack:2 core:4 pu:2(indexes=0,8,1,9,2,10,3,11,4,12,5,13,6,14,7,15)";
inline const std::vector<int> kSixteenCpus{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

}  // namespace hpcreward
