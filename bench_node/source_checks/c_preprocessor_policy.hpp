#pragma once
// What C candidates bring to the preprocessor rules (preprocessor_rules.hpp): C's includes
// (c_include_policy.hpp), pragmas (c_pragma_policy.hpp) and keywords, and #elifdef refused
// (the checker's libclang parse does not know it).
#include "bench_node/source_checks/preprocessor_rules.hpp"

namespace hpcreward::source_checks {

const PreprocessorTable &c_preprocessor_table();

}  // namespace hpcreward::source_checks
