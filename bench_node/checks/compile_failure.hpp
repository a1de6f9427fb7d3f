#pragma once
// Compiler failures the rank can say in the stage's terms, so the feedback tells a model what
// to change instead of quoting gcc:
//   - an intrinsic of an instruction set the stage's flags do not compile for ("inlining failed
//     in call to 'always_inline' '_mm256_add_pd': target specific option mismatch"): the
//     technique is beyond the stage, constraint_violation naming the intrinsic, its ISA and the
//     flags;
//   - an omp_* function in a stage compiled without -fopenmp (an undefined reference): the
//     directives are inert there and the runtime is not linked, compile_error saying so;
//   - a C++ answer to a C problem (extern "C", std::, templates, namespaces, classes, C++
//     headers): compile_error saying the problem is C, with gcc's first error after it.
// Anything else stays the compiler's own first error lines.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.hpp"

namespace hpcreward {

std::optional<Verdict> explain_compile_failure(std::string_view log, const std::vector<std::string> &flags,
                                              std::string_view source);

}  // namespace hpcreward
