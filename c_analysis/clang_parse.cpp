#include "bench_node/source_checks/clang_parse.hpp"

#include "bench_node/source_checks/cursor_utils.hpp"

namespace hpcreward::source_checks {

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
  // redefine_extname) are visited too.
  const CXErrorCode code = clang_parseTranslationUnit2(
      index, kCandidateFile, argv.data(), static_cast<int>(argv.size()), &file, 1,
      CXTranslationUnit_KeepGoing | CXTranslationUnit_VisitImplicitAttributes, &unit);
  if (code != CXError_Success) {
    error = code == CXError_Crashed ? "libclang crashed" : "libclang error " + std::to_string(code);
    return nullptr;
  }
  return TranslationUnitHandle(unit);
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

}  // namespace hpcreward::source_checks
