#include "bench_node/source_checks/entry_point.hpp"

#include <string>

#include "c_analysis/cursor_utils.hpp"
#include "c_analysis/libclang_handles.hpp"

namespace hpcreward::source_checks {

using namespace c_analysis;  // libclang handles and cursor helpers

namespace {

// `sizes` int parameters (m, n, k and a batch's count first), then three pointers to `element`.
bool signature_matches(CXCursor function, int sizes, CXTypeKind element) {
  const CXType type = clang_getCursorType(function);
  if (clang_getCanonicalType(clang_getResultType(type)).kind != CXType_Void) return false;
  if (clang_Cursor_getNumArguments(function) != sizes + 3 || clang_isFunctionTypeVariadic(type))
    return false;
  for (int i = 0; i < sizes + 3; ++i) {
    const CXType argument =
        clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(function, i)));
    if (i < sizes && argument.kind != CXType_Int) return false;
    if (i >= sizes && (argument.kind != CXType_Pointer ||
                   clang_getCanonicalType(clang_getPointeeType(argument)).kind != element))
      return false;
  }
  return true;
}

}  // namespace

std::vector<Finding> entry_point_findings(CXTranslationUnit unit, const Problem &problem) {
  const std::string expected = entry_point_signature(problem);
  const CXFile main = candidate_file(unit);
  for (CXCursor cursor : children(clang_getTranslationUnitCursor(unit))) {
    if (clang_getCursorKind(cursor) != CXCursor_FunctionDecl || spelling(cursor) != "matmul" ||
        !clang_isCursorDefinition(cursor) || !same_file(place_of(cursor).file, main))
      continue;
    const int line = static_cast<int>(place_of(cursor).line);
    const std::string at = " at line " + std::to_string(line);
    if (clang_getCursorLinkage(cursor) != CXLinkage_External)
      return {
          {Status::format_error, line, "matmul" + at + " is static: the harness can't find it"}};
    if (clang_Cursor_isFunctionInlined(cursor) &&
        clang_Cursor_getStorageClass(cursor) != CX_SC_Extern)
      return {{Status::format_error, line,
               "matmul" + at + " is an inline definition, which emits no symbol (drop inline)"}};
    const CXTypeKind element = problem.precision == Precision::f64 ? CXType_Double : CXType_Float;
    if (!signature_matches(cursor, problem.layout.batched ? 4 : 3, element))
      return {{Status::format_error, line,
               "matmul" + at + " has the wrong signature (expected " + expected + ")"}};
    return {};
  }
  return {{Status::format_error, 0, "no definition of matmul (expected " + expected + ")"}};
}

}  // namespace hpcreward::source_checks
