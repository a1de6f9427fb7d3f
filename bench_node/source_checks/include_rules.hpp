#pragma once
// Which headers a candidate may include, judged on the directive as written, before any
// compiler (or the checker's own parser) opens a file. The rule is the same for C and CUDA;
// the allow-list is each language's (c_include_policy.hpp, ../cuda/cuda_include_policy.hpp).
// Only `#include <name>` with a name on the list passes: a quoted include, a computed one
// (#include MACRO), #include_next and #import are refused, so nothing outside the compilers'
// own headers can ever be read (no /dev/zero, no /etc/passwd, no self-include).
#include <optional>
#include <string>

#include "bench_node/checks/name_table.hpp"
#include "bench_node/source_checks/directives.hpp"

namespace hpcreward::source_checks {

struct IncludeTable {
  // Exact names; a refused entry may be a family ("cublas*") with the reason it is refused.
  NameTable headers;
  // Whether a listed name may hold a / ("cuda/std/array"). When not, a name with / or \ is
  // refused as a path whatever the list says.
  bool paths = false;
};

// nullopt when the include directive `directive` (name "include", "include_next" or
// "import") may stay; otherwise the complete reason.
std::optional<std::string> include_refusal(const Directive &directive, const IncludeTable &table);

}  // namespace hpcreward::source_checks
