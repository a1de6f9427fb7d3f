#pragma once
// Small questions about libclang cursors and types that the audits share.
#include <clang-c/Index.h>

#include <string>
#include <vector>

namespace hpcreward::c_analysis {

// Where a cursor's code was written: the file and line of its expansion location (the use
// of a macro, not the macro's definition). line is 0 and file null when it has none.
struct Place {
  CXFile file = nullptr;
  unsigned line = 0;
};
Place place_of(CXCursor cursor);
Place place_of(CXSourceLocation location);

// The translation unit's main file: the candidate's.
CXFile candidate_file(CXTranslationUnit unit);

// Whether `file` is the candidate's own file (`main`, the translation unit's main file).
bool same_file(CXFile file, CXFile main);

std::vector<CXCursor> children(CXCursor cursor);
std::string spelling(CXCursor cursor);
std::string file_name(CXFile file);

// Canonical type checks.
bool is_function_type(CXType type);     // a function (what a function name decays from)
bool is_function_pointer(CXType type);  // pointer to function
std::string type_spelling(CXType type);

// `cursor` without the parentheses and implicit conversions libclang leaves unexposed.
CXCursor strip_implicit(CXCursor cursor);

// A null pointer constant: 0, (void *)0, NULL.
bool null_pointer_constant(CXCursor expression);

// How clang prints a declaration, without bodies (attributes included).
std::string printed_declaration(CXCursor declaration);

}  // namespace hpcreward::c_analysis
