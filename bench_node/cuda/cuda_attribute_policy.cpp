#include "bench_node/cuda/cuda_attribute_policy.hpp"

#include "bench_node/source_checks/c_attribute_policy.hpp"

namespace hpcreward::cuda_source {

namespace {

// What kernels are written with.
constexpr std::string_view kAllowed[] = {
    "launch_bounds", "global", "device", "host", "shared", "constant", "grid_constant",
    "cluster_dims", "maxnreg", "nodiscard", "likely", "unlikely", "no_unique_address",
    "carries_dependency",
};

constexpr RefusedName kRefused[] = {
    {"init_priority", "orders code that runs when the object is loaded"},
    {"managed", "makes managed memory (page faults and migrations can hang a shared GPU)"},
};

}  // namespace

const NameTable &cuda_attribute_table() {
  const NameTable &c = source_checks::c_attribute_table();
  static const NameTable table{.allowed = joined<std::string_view>({c.allowed, kAllowed}),
                               .refused = joined<RefusedName>({kRefused, c.refused})};
  return table;
}

}  // namespace hpcreward::cuda_source
