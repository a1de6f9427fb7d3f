#pragma once
// Whether this host's topology can be trusted to show which CPUs share a physical core. A
// virtual machine's vCPUs look like separate cores (hwloc shows one PU per core), yet the
// hypervisor may run two of them on SMT siblings of one host core: timed runs on "separate"
// vCPUs then share FMA units. Placement cannot see that, so a rank says so at start.
#include <string>

#include "bench_node/rank/cpu_topology.hpp"

namespace hpcreward {

// Why core sharing is hidden, from /proc/cpuinfo's text (x86's `hypervisor` flag) and the
// DMI vendor and product names; "" when nothing points to a virtual machine.
std::string hidden_core_sharing_reason(const std::string &cpuinfo, const std::string &dmi_sys_vendor,
                                       const std::string &dmi_product_name);

// The same for this host: /proc/cpuinfo and the DMI names hwloc read into `topology`.
std::string host_hidden_core_sharing_reason(const CpuTopology &topology);

}  // namespace hpcreward
