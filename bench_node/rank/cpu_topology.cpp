#include "bench_node/rank/cpu_topology.hpp"

#include <hwloc.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

namespace hpcreward {

namespace {

std::string info_of(hwloc_topology_t topology, const char *name) {
  const char *value = hwloc_obj_get_info_by_name(hwloc_get_root_obj(topology), name);
  return value ? value : "";
}

// Groups the PUs by their Core ancestor; a PU without one (hwloc shows no cores on some
// hosts) is its own core.
CpuTopology cores_of(hwloc_topology_t topology) {
  CpuTopology result;
  std::map<const void *, std::size_t> index_of_core;
  for (hwloc_obj_t pu = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_PU, nullptr); pu;
       pu = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_PU, pu)) {
    const hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topology, HWLOC_OBJ_CORE, pu);
    const hwloc_obj_t package = hwloc_get_ancestor_obj_by_type(topology, HWLOC_OBJ_PACKAGE, pu);
    const void *key = core ? static_cast<const void *>(core) : static_cast<const void *>(pu);
    auto [slot, added] = index_of_core.try_emplace(key, result.cores.size());
    if (added) result.cores.push_back({package ? static_cast<int>(package->logical_index) : 0, {}});
    result.cores[slot->second].cpus.push_back(static_cast<int>(pu->os_index));
  }
  for (PhysicalCore &core : result.cores) std::sort(core.cpus.begin(), core.cpus.end());
  result.dmi_sys_vendor = info_of(topology, "DMISysVendor");
  result.dmi_product_name = info_of(topology, "DMIProductName");
  return result;
}

// Initializes an hwloc topology, lets `configure` choose its source, loads it and reads the
// cores. Failures come back as CpuTopology::error.
template <typename Configure>
CpuTopology load(const char *what, Configure configure) {
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0) return {{}, std::string(what) + ": hwloc_topology_init failed", {}, {}};
  CpuTopology result;
  // Cores only: no PCI, OpenCL or GL discovery (slow, and nothing placement needs).
  hwloc_topology_set_io_types_filter(topology, HWLOC_TYPE_FILTER_KEEP_NONE);
  if (configure(topology) != 0)
    result.error = std::string(what) + ": hwloc refused it (see hwloc's message above)";
  else if (hwloc_topology_load(topology) != 0)
    result.error = std::string(what) + ": hwloc_topology_load failed";
  else
    result = cores_of(topology);
  hwloc_topology_destroy(topology);
  if (result.error.empty() && result.cores.empty()) result.error = std::string(what) + ": no CPUs";
  return result;
}

}  // namespace

CpuTopology read_host_topology() {
  return load("this host's topology", [](hwloc_topology_t) { return 0; });
}

CpuTopology synthetic_topology(const std::string &description) {
  return load(("synthetic topology \"" + description + "\"").c_str(), [&](hwloc_topology_t topology) {
    return hwloc_topology_set_synthetic(topology, description.c_str());
  });
}

CpuTopology xml_topology(const std::string &xml) {
  return load("XML topology", [&](hwloc_topology_t topology) {
    return hwloc_topology_set_xmlbuffer(topology, xml.data(), static_cast<int>(xml.size()) + 1);
  });
}

std::vector<PhysicalCore> cores_within(const CpuTopology &topology, const std::vector<int> &cpus) {
  const std::set<int> wanted(cpus.begin(), cpus.end());
  std::set<int> listed;
  std::vector<PhysicalCore> result;
  for (const PhysicalCore &core : topology.cores) {
    PhysicalCore kept{core.package, {}};
    for (int cpu : core.cpus) {
      listed.insert(cpu);
      if (wanted.count(cpu)) kept.cpus.push_back(cpu);
    }
    if (!kept.cpus.empty()) result.push_back(std::move(kept));
  }
  for (int cpu : wanted)
    if (!listed.count(cpu)) result.push_back({0, {cpu}});
  return result;
}

int cores_with_siblings_outside(const CpuTopology &topology, const std::vector<int> &cpus,
                                const std::vector<int> &owned) {
  const std::set<int> mine(cpus.begin(), cpus.end()), ours(owned.begin(), owned.end());
  return static_cast<int>(std::count_if(topology.cores.begin(), topology.cores.end(), [&](const PhysicalCore &core) {
    const auto has = [&](const std::set<int> &set) {
      return [&set](int cpu) { return set.count(cpu) > 0; };
    };
    return std::any_of(core.cpus.begin(), core.cpus.end(), has(mine)) &&
           !std::all_of(core.cpus.begin(), core.cpus.end(), has(ours));
  }));
}

std::vector<long> core_ids(const CpuTopology &topology, const std::vector<int> &cpus) {
  std::map<int, long> core_of;
  for (std::size_t i = 0; i < topology.cores.size(); ++i)
    for (int cpu : topology.cores[i].cpus) core_of[cpu] = static_cast<long>(i);
  std::set<long> ids;
  for (int cpu : cpus) {
    const auto found = core_of.find(cpu);
    ids.insert(found != core_of.end() ? found->second : static_cast<long>(topology.cores.size()) + cpu);
  }
  return {ids.begin(), ids.end()};
}

bool share_a_core(const std::vector<long> &core_ids_a, const std::vector<long> &core_ids_b) {
  std::vector<long> common;
  std::set_intersection(core_ids_a.begin(), core_ids_a.end(), core_ids_b.begin(), core_ids_b.end(),
                        std::back_inserter(common));
  return !common.empty();
}

bool share_a_core(const CpuTopology &topology, const std::vector<int> &a, const std::vector<int> &b) {
  return share_a_core(core_ids(topology, a), core_ids(topology, b));
}

}  // namespace hpcreward
