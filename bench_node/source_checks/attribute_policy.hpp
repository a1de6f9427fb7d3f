#pragma once
// Which attributes a candidate's declarations may carry (GNU __attribute__((...)) and
// [[...]] alike; names compare without surrounding underscores). An allow-list, because an
// attribute can run code at load time, rename or re-section a symbol, or change the code
// generation the stage controls:
//   allowed: aligned packed unused maybe_unused always_inline noinline gnu_inline artificial
//            flatten hot cold pure const nothrow leaf malloc alloc_size alloc_align
//            assume_aligned returns_nonnull nonnull noreturn warn_unused_result deprecated
//            may_alias vector_size ext_vector_type mode fallthrough noclone noipa simd
//   refused: constructor destructor (run at load/unload), ifunc (a resolver runs at load),
//            optimize target target_clones (change code generation), section alias weak
//            weakref visibility used retain externally_visible symver (change the object's
//            symbols), cleanup (calls a function implicitly), naked (an assembly body), and
//            everything else
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpcreward::source_checks {

std::string normalized_attribute(std::string_view spelled);  // "__aligned__" -> "aligned"
bool allowed_attribute(std::string_view name);               // takes either spelling

// The attribute names in a declaration as clang prints it
// ("static void f() __attribute__((constructor(101))) [[gnu::cold]]" -> constructor, cold).
std::vector<std::string> printed_attributes(std::string_view printed);

// "attribute constructor at line 3 runs code when the object is loaded".
std::string attribute_refusal(std::string_view name, int line);

}  // namespace hpcreward::source_checks
