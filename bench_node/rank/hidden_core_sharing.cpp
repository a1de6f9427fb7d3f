#include "bench_node/rank/hidden_core_sharing.hpp"

#include <fstream>
#include <sstream>

namespace hpcreward {

namespace {

// The `flags` line of x86 /proc/cpuinfo lists `hypervisor` when the CPU runs under one
// (CPUID leaf 1, ECX bit 31).
bool flags_name_hypervisor(const std::string &cpuinfo) {
  std::istringstream lines(cpuinfo);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') == std::string::npos ? line.size() : line.find(':') + 1));
    for (std::string word; words >> word;)
      if (word == "hypervisor") return true;
  }
  return false;
}

bool contains(const std::string &text, const char *part) { return text.find(part) != std::string::npos; }

// Vendors and products of the common hypervisors and clouds' virtual machines.
bool dmi_names_virtual_machine(const std::string &vendor, const std::string &product) {
  for (const char *name : {"QEMU", "KVM", "VMware", "Xen", "innotek", "VirtualBox", "Parallels", "Bochs",
                           "Amazon EC2", "Google Compute Engine", "OpenStack", "BHYVE"})
    if (contains(vendor, name) || contains(product, name)) return true;
  return contains(vendor, "Microsoft") && contains(product, "Virtual Machine");
}

std::string read_text(const char *path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string hidden_core_sharing_reason(const std::string &cpuinfo, const std::string &dmi_sys_vendor,
                                       const std::string &dmi_product_name) {
  if (flags_name_hypervisor(cpuinfo)) return "the CPU flags name a hypervisor";
  if (dmi_names_virtual_machine(dmi_sys_vendor, dmi_product_name))
    return "DMI names a virtual machine (" + dmi_sys_vendor + " " + dmi_product_name + ")";
  return "";
}

std::string host_hidden_core_sharing_reason(const CpuTopology &topology) {
  return hidden_core_sharing_reason(read_text("/proc/cpuinfo"), topology.dmi_sys_vendor,
                                    topology.dmi_product_name);
}

}  // namespace hpcreward
