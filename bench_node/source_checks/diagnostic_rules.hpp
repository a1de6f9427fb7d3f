#pragma once
// What the checker's parser (clang) reports about the candidate that the checks act on.
// A syntax or type error is not a verdict here (gcc, which compiles the candidate, reports
// it as compile_error; the parse goes on after errors, even fatal ones, and SourceChecks
// holds back an object gcc compiled from a source clang rejected), except:
//   - "function definition is not allowed here": a GCC nested function, whose body clang
//     skips and gcc compiles: forbidden;
//   - an attribute clang does not know or ignores (gcc may honour it: optimize, ...):
//     forbidden unless on the allow-list;
//   - a pragma diagnostic on a line where the preprocessor rules saw no pragma: a pragma
//     came from somewhere they did not see (a pasted _Pragma): forbidden.
#include <clang-c/Index.h>

#include <set>
#include <vector>

#include "bench_node/source_checks/finding.hpp"

namespace hpcreward::source_checks {

std::vector<Finding> diagnostic_findings(CXTranslationUnit unit,
                                         const std::set<int> &vetted_pragma_lines);

}  // namespace hpcreward::source_checks
