#include "c_analysis/cursor_utils.hpp"

#include "c_analysis/libclang_handles.hpp"

namespace hpcreward::c_analysis {

Place place_of(CXSourceLocation location) {
  Place place;
  clang_getExpansionLocation(location, &place.file, &place.line, nullptr, nullptr);
  return place;
}

Place place_of(CXCursor cursor) {
  return place_of(clang_getCursorLocation(cursor));
}

CXFile candidate_file(CXTranslationUnit unit) {
  return clang_getFile(unit, take_string(clang_getTranslationUnitSpelling(unit)).c_str());
}

bool same_file(CXFile file, CXFile main) {
  return file != nullptr && main != nullptr && clang_File_isEqual(file, main) != 0;
}

std::vector<CXCursor> children(CXCursor cursor) {
  std::vector<CXCursor> out;
  clang_visitChildren(
      cursor,
      [](CXCursor child, CXCursor, CXClientData data) {
        static_cast<std::vector<CXCursor> *>(data)->push_back(child);
        return CXChildVisit_Continue;
      },
      &out);
  return out;
}

std::string spelling(CXCursor cursor) {
  return take_string(clang_getCursorSpelling(cursor));
}

std::string file_name(CXFile file) {
  return file != nullptr ? take_string(clang_getFileName(file)) : std::string();
}

bool is_function_type(CXType type) {
  const CXTypeKind kind = clang_getCanonicalType(type).kind;
  return kind == CXType_FunctionProto || kind == CXType_FunctionNoProto;
}

bool is_function_pointer(CXType type) {
  const CXType canonical = clang_getCanonicalType(type);
  return canonical.kind == CXType_Pointer && is_function_type(clang_getPointeeType(canonical));
}

std::string type_spelling(CXType type) {
  return take_string(clang_getTypeSpelling(type));
}

CXCursor strip_implicit(CXCursor cursor) {
  for (;;) {
    const CXCursorKind kind = clang_getCursorKind(cursor);
    if (kind != CXCursor_ParenExpr && kind != CXCursor_UnexposedExpr) return cursor;
    const std::vector<CXCursor> inner = children(cursor);
    if (inner.size() != 1 || !clang_isExpression(clang_getCursorKind(inner[0]))) return cursor;
    cursor = inner[0];
  }
}

bool null_pointer_constant(CXCursor expression) {
  for (;;) {
    const CXCursorKind kind = clang_getCursorKind(expression);
    if (kind == CXCursor_IntegerLiteral) {
      CXEvalResult result = clang_Cursor_Evaluate(expression);
      const bool zero = result != nullptr && clang_EvalResult_getKind(result) == CXEval_Int &&
                        clang_EvalResult_getAsLongLong(result) == 0;
      if (result != nullptr) clang_EvalResult_dispose(result);
      return zero;
    }
    if (kind != CXCursor_ParenExpr && kind != CXCursor_UnexposedExpr &&
        kind != CXCursor_CStyleCastExpr)
      return false;
    CXCursor next = clang_getNullCursor();
    for (CXCursor child : children(expression))
      if (clang_isExpression(clang_getCursorKind(child))) next = child;
    if (clang_Cursor_isNull(next)) return false;
    expression = next;
  }
}

std::string printed_declaration(CXCursor declaration) {
  CXPrintingPolicy policy = clang_getCursorPrintingPolicy(declaration);
  clang_PrintingPolicy_setProperty(policy, CXPrintingPolicy_TerseOutput, 1);
  std::string text = take_string(clang_getCursorPrettyPrinted(declaration, policy));
  clang_PrintingPolicy_dispose(policy);
  return text;
}

}  // namespace hpcreward::c_analysis
