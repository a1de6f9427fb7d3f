#include "c_analysis/clang_parse.hpp"

#include "c_analysis/cursor_utils.hpp"

namespace hpcreward::c_analysis {

TranslationUnitHandle parse_candidate(CXIndex index, const std::string &source,
                                      std::vector<std::string> arguments,
                                      const std::filesystem::path &pch, std::string &error) {
  if (!pch.empty()) arguments.insert(arguments.end(), {"-include-pch", pch.string()});
  std::vector<const char *> argv;
  for (const std::string &argument : arguments) argv.push_back(argument.c_str());
  CXUnsavedFile file{kCandidateFile, source.data(), static_cast<unsigned long>(source.size())};
  CXTranslationUnit unit = nullptr;
  // KeepGoing: fatal errors count as errors and the parse goes on (with -ferror-limit=0, to
  // the end of the file); the attributes clang adds itself (from pragmas such as
  // redefine_extname) are visited too; DetailedPreprocessingRecord: macro definitions (tile
  // sizes) and expansions (the intrinsics gcc and clang define as macros) become cursors.
  const CXErrorCode code = clang_parseTranslationUnit2(
      index, kCandidateFile, argv.data(), static_cast<int>(argv.size()), &file, 1,
      CXTranslationUnit_KeepGoing | CXTranslationUnit_VisitImplicitAttributes |
          CXTranslationUnit_DetailedPreprocessingRecord,
      &unit);
  if (code != CXError_Success) {
    error = code == CXError_Crashed ? "libclang crashed" : "libclang error " + std::to_string(code);
    return nullptr;
  }
  return TranslationUnitHandle(unit);
}

TranslationUnitHandle parse_with_preamble(CXIndex index, const std::string &source,
                                          const std::vector<std::string> &arguments,
                                          PreambleCache &cache,
                                          const std::optional<std::string> &preamble,
                                          std::string &error) {
  const std::filesystem::path pch =
      preamble ? cache.pch_for(index, arguments, *preamble) : std::filesystem::path();
  TranslationUnitHandle unit = parse_candidate(index, source, arguments, pch, error);
  if (!pch.empty() && (!unit || precompiled_header_failed(unit.get()))) {
    cache.forget(pch);  // stale (a header changed?): parse the slow way
    unit = parse_candidate(index, source, arguments, {}, error);
  }
  return unit;
}

bool precompiled_header_failed(CXTranslationUnit unit) {
  const unsigned count = clang_getNumDiagnostics(unit);
  for (unsigned i = 0; i < count; ++i) {
    const DiagnosticHandle diagnostic(clang_getDiagnostic(unit, i));
    const std::string message = take_string(clang_getDiagnosticSpelling(diagnostic.get()));
    if (clang_getDiagnosticSeverity(diagnostic.get()) >= CXDiagnostic_Error &&
        (message.find("PCH") != std::string::npos ||
         message.find("precompiled") != std::string::npos))
      return true;
  }
  return false;
}

std::string first_error_in_candidate(CXTranslationUnit unit) {
  const CXFile main = candidate_file(unit);
  const unsigned count = clang_getNumDiagnostics(unit);
  for (unsigned i = 0; i < count; ++i) {
    const DiagnosticHandle diagnostic(clang_getDiagnostic(unit, i));
    const Place place = place_of(clang_getDiagnosticLocation(diagnostic.get()));
    if (clang_getDiagnosticSeverity(diagnostic.get()) >= CXDiagnostic_Error &&
        same_file(place.file, main))
      return "line " + std::to_string(place.line) + ": " +
             take_string(clang_getDiagnosticSpelling(diagnostic.get()));
  }
  return {};
}

}  // namespace hpcreward::c_analysis
