#include "bench_node/source_checks/c_attribute_policy.hpp"

namespace hpcreward::source_checks {

namespace {

constexpr std::string_view kAllowed[] = {
    // layout and types
    "aligned", "packed", "vector_size", "ext_vector_type", "mode", "may_alias",
    // inlining and placement
    "always_inline", "noinline", "gnu_inline", "artificial", "flatten", "hot", "cold", "noclone",
    "noipa",
    // what the compiler may assume
    "pure", "const", "nothrow", "leaf", "malloc", "alloc_size", "alloc_align", "assume_aligned",
    "returns_nonnull", "nonnull", "noreturn", "simd",
    // diagnostics
    "unused", "maybe_unused", "warn_unused_result", "deprecated", "fallthrough",
};

constexpr std::string_view kLoadTime = "runs code when the object is loaded or unloaded";
constexpr std::string_view kCodeGeneration =
    "changes code generation, which the stage's compiler flags control";
constexpr std::string_view kSymbols = "changes the symbols or sections of the object";

constexpr RefusedName kRefused[] = {
    {"constructor", kLoadTime},
    {"destructor", kLoadTime},
    {"ifunc", "runs a resolver when the object is loaded"},
    {"optimize", kCodeGeneration},
    {"target", kCodeGeneration},
    {"target_clones", kCodeGeneration},
    {"section", kSymbols},
    {"alias", kSymbols},
    {"weak", kSymbols},
    {"weakref", kSymbols},
    {"visibility", kSymbols},
    {"used", kSymbols},
    {"retain", kSymbols},
    {"externally_visible", kSymbols},
    {"symver", kSymbols},
    {"copy", kSymbols},
    {"common", kSymbols},
    {"nocommon", kSymbols},
    {"tls_model", kSymbols},
    {"cleanup", "calls a function implicitly"},
    {"naked", "makes a function body of assembly"},
};

}  // namespace

const NameTable &c_attribute_table() {
  static const NameTable table{.allowed = {std::begin(kAllowed), std::end(kAllowed)},
                               .refused = {std::begin(kRefused), std::end(kRefused)}};
  return table;
}

}  // namespace hpcreward::source_checks
