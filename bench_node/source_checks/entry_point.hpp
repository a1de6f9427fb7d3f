#pragma once
// The candidate ABI (docs/design.md, docs/problems.md): the file must define
//   void matmul(int m, int n, int k, const T *A, const T *B, T *C);
// (with `int batch` first for a batched problem) with external linkage, T the problem's
// element type (entry_point_signature, common/problem.hpp). Missing, static, a C99 inline
// definition (which emits no symbol), or another signature: format_error. const on the
// pointees is optional; restrict and top-level qualifiers do not matter.
#include <clang-c/Index.h>

#include <vector>

#include "bench_node/source_checks/finding.hpp"
#include "common/problem.hpp"

namespace hpcreward::source_checks {

std::vector<Finding> entry_point_findings(CXTranslationUnit unit, const Problem &problem);

}  // namespace hpcreward::source_checks
