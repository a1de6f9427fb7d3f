#pragma once
// The attributes a CUDA candidate may write (the rule, shared with C: source_checks/
// attribute_rules.hpp), read off its tokens wherever they are written.
//   allowed: the C list (source_checks/c_attribute_policy.hpp: aligned, unused,
//            always_inline, noinline, ...) and launch_bounds, global, device, host, shared,
//            constant, grid_constant, cluster_dims, maxnreg, nodiscard, likely, unlikely,
//            no_unique_address, carries_dependency
//   refused: init_priority (orders code that runs when the object is loaded), managed
//            (managed memory), and the C list's refusals (constructor, destructor, section,
//            alias, weak, visibility, optimize, target, cleanup, naked, ...)
// An attribute spelled by token pasting is not seen here; what it does to the object is
// (cuda_object_audit.hpp: load-time code beyond the toolchain's own, imports).
#include "bench_node/checks/name_table.hpp"

namespace hpcreward::cuda_source {

const NameTable &cuda_attribute_table();

}  // namespace hpcreward::cuda_source
