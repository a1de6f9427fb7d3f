#pragma once
// Which headers a candidate may include, judged on the directive as written, before any
// compiler (or the checker's own parser) opens a file. The rule is the same for C and CUDA;
// the allow-list is each language's (c_include_policy.hpp, ../cuda/cuda_include_policy.hpp).
// Only `#include <name>` (and `#include "name"` where the table says so) with a name on the
// list passes, the name a path below the include directories (no absolute path, no empty, .
// or .. part); a computed include (#include MACRO), #include_next and #import are refused, so
// nothing outside the compilers' own headers (and the candidate's own compile directory, which
// holds only what the harness wrote there) can ever be read (no /dev/zero, no /etc/passwd).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench_node/checks/name_table.hpp"
#include "bench_node/source_checks/directives.hpp"

namespace hpcreward::source_checks {

struct IncludeTable {
  // Exact names; a refused entry may be a family ("cublas*") with the reason it is refused.
  NameTable headers;
  // Whether a listed name may hold a / ("cuda/std/array"). When not, a name with / or \ is
  // refused as a path whatever the list says.
  bool paths = false;
  // Whether `#include "name"` is judged like `#include <name>`: only where nothing but the
  // compiler, in the candidate's private compile directory, ever resolves the name (CUDA; C's
  // source checks parse with libclang, which would look in the rank's own directory first).
  bool quoted = false;
  // Directories whose headers pass only by an entry of their own, never by a catch-all "*"
  // entry ("cutlass/": CUDA's table allows any header, CUTLASS's only where it names them).
  std::vector<std::string_view> closed_families = {};
};

// Whether `name` (as written between the brackets) passes the table.
bool header_allowed(const IncludeTable &table, std::string_view name);

// nullopt when the include directive `directive` (name "include", "include_next" or
// "import") may stay; otherwise the complete reason.
std::optional<std::string> include_refusal(const Directive &directive, const IncludeTable &table);

}  // namespace hpcreward::source_checks
