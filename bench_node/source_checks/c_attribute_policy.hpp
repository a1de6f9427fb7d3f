#pragma once
// The attributes a C candidate's declarations may carry (the rule: attribute_rules.hpp).
//   allowed: aligned packed unused maybe_unused always_inline noinline gnu_inline artificial
//            flatten hot cold pure const nothrow leaf malloc alloc_size alloc_align
//            assume_aligned returns_nonnull nonnull noreturn warn_unused_result deprecated
//            may_alias vector_size ext_vector_type mode fallthrough noclone noipa simd
//   refused with their reason: constructor destructor (run at load/unload), ifunc (a resolver
//            runs at load), optimize target target_clones (change code generation), section
//            alias weak weakref visibility used retain externally_visible symver copy common
//            nocommon tls_model (change the object's symbols), cleanup (calls a function
//            implicitly), naked (an assembly body); everything else as not on the list
#include "bench_node/checks/name_table.hpp"

namespace hpcreward::source_checks {

const NameTable &c_attribute_table();

}  // namespace hpcreward::source_checks
