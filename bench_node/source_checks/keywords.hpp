#pragma once
// The languages' keywords, which a candidate's macros may not redefine (preprocessor_rules.hpp):
// C's for C candidates, C's and C++'s for CUDA ones.
#include <string_view>

namespace hpcreward::source_checks {

bool c_keyword(std::string_view name);    // C11 and GNU keywords (asm, typeof, ...), and defined
bool cxx_keyword(std::string_view name);  // C++20 keywords that are not C's

}  // namespace hpcreward::source_checks
