#pragma once
// Which vCPUs of a virtual machine share a physical core, measured where the topology cannot
// show it (hidden_core_sharing.hpp): a port-bound arithmetic loop on one vCPU, alone and with
// the same loop on another; SMT siblings share their core's execution units, so the loop's
// rate falls to about half beside a sibling and stays near 1 beside a vCPU of its own core.
// Measured once by the launcher (`hpcreward-bench --core-pairs`, before MPI) and handed to
// every rank in HPCREWARD_CORE_PAIRS, so all ranks of a node place by the same pairs; the
// topology then counts each pair as one core with two PUs (placement gives it to one rank).
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench_node/rank/cpu_topology.hpp"

namespace hpcreward {

using CorePairs = std::vector<std::pair<int, int>>;

// The loop's rate on `cpu` with the same loop busy on `partner`, over its rate alone (about 1:
// separate cores; about 0.5: SMT siblings).
using PairSlowdown = std::function<double(int cpu, int partner)>;

// Below this a pair shares a core (SMT siblings measured 0.5 to 0.6; separate cores 0.9 to 1).
inline constexpr double kSharedCoreSlowdown = 0.75;

// Pairs among `cpus` (OS numbers) whose slowdown is below kSharedCoreSlowdown twice in a row.
// Each CPU is tried with the partners hypervisors' two usual layouts give it (the CPU half the
// list away, then its neighbours), so the cost grows with the CPUs, not their square.
CorePairs find_shared_cores(const std::vector<int> &cpus, const PairSlowdown &slowdown);

// The real measurement: two pinned threads, about 10 ms each way.
double loop_slowdown(int cpu, int partner);

// "0+8,1+9" (empty: no pair); parse_core_pairs also takes "none" (no pair); nullopt when the
// text is not that form.
std::string core_pairs_text(const CorePairs &pairs);
std::optional<CorePairs> parse_core_pairs(const std::string &text);

// `topology` with each pair's two single-PU cores made one core of two PUs (pairs naming a CPU
// the topology does not hold, or a core that already has siblings, are left out).
CpuTopology with_core_pairs(CpuTopology topology, const CorePairs &pairs);

// The pairs HPCREWARD_CORE_PAIRS names (unset or unreadable: none), for the ranks.
CorePairs core_pairs_from_environment();

// For the launcher: HPCREWARD_CORE_PAIRS when set; else, where `hidden_core_sharing` says the
// host may hide core sharing, measured over `cpus`; else none. `how` says which.
CorePairs launcher_core_pairs(const std::vector<int> &cpus, const std::string &hidden_core_sharing, std::string &how);

}  // namespace hpcreward
