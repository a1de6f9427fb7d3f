#pragma once
// Owning wrappers for the libclang C API handles the checks use, and CXString to text.
#include <clang-c/Index.h>

#include <memory>
#include <string>

namespace hpcreward::c_analysis {

// Takes ownership of `text` (disposes it).
inline std::string take_string(CXString text) {
  const char *chars = clang_getCString(text);
  std::string out = chars != nullptr ? chars : "";
  clang_disposeString(text);
  return out;
}

struct IndexDeleter {
  void operator()(void *index) const { clang_disposeIndex(index); }
};
// CXIndex is a void *: the pointee type is spelled out for unique_ptr.
using IndexHandle = std::unique_ptr<void, IndexDeleter>;

struct TranslationUnitDeleter {
  void operator()(CXTranslationUnitImpl *unit) const { clang_disposeTranslationUnit(unit); }
};
using TranslationUnitHandle = std::unique_ptr<CXTranslationUnitImpl, TranslationUnitDeleter>;

struct DiagnosticDeleter {
  void operator()(void *diagnostic) const { clang_disposeDiagnostic(diagnostic); }
};
using DiagnosticHandle = std::unique_ptr<void, DiagnosticDeleter>;

}  // namespace hpcreward::c_analysis
