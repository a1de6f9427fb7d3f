#pragma once
// Which attributes a CUDA candidate may write, judged on the tokens (there is no parser for
// CUDA here: GPU ranks are multithreaded and do not fork to parse). GNU __attribute__((...)),
// C++ [[...]] (also [[gnu::x]] and [[using gnu: x]]) and __declspec(...) lists are read
// wherever they are written, directive lines (macro bodies) included.
//   allowed: the C allow-list (source_checks/attribute_policy.hpp: aligned, unused,
//            always_inline, noinline, ...) and launch_bounds, global, device, host, shared,
//            constant, grid_constant, cluster_dims, maxnreg, nodiscard, likely, unlikely,
//            no_unique_address, carries_dependency
//   refused: constructor, destructor and init_priority (code that runs when the object is
//            loaded or unloaded), managed (managed memory), and the C policy's refusals
//            (section, alias, weak, visibility, optimize, target, cleanup, naked, ...)
// An attribute spelled by token pasting is not seen here; what it does to the object is
// (cuda_object_audit.hpp: load-time code beyond the toolchain's own, imports).
#include <string>
#include <string_view>
#include <vector>

#include "bench_node/source_checks/c_lexer.hpp"
#include "bench_node/source_checks/finding.hpp"

namespace hpcreward::cuda_source {

bool allowed_cuda_attribute(std::string_view name);  // either spelling (__x__ or x)

struct WrittenAttribute {
  std::string name;  // as written, "__constructor__" or "constructor"
  int line = 0;
};

// Every attribute name in the token stream, in order.
std::vector<WrittenAttribute> written_attributes(const std::vector<source_checks::Token> &tokens);

std::vector<source_checks::Finding> attribute_findings(const std::vector<source_checks::Token> &tokens);

}  // namespace hpcreward::cuda_source
