#include "bench_node/source_checks/diagnostic_rules.hpp"

#include <string>

#include "bench_node/source_checks/attribute_rules.hpp"
#include "bench_node/source_checks/c_attribute_policy.hpp"
#include "c_analysis/cursor_utils.hpp"
#include "c_analysis/libclang_handles.hpp"

namespace hpcreward::source_checks {

using namespace c_analysis;  // libclang handles and cursor helpers

namespace {

bool contains(const std::string &text, const char *part) {
  return text.find(part) != std::string::npos;
}

// The first 'quoted' word of a message ("unknown attribute 'optimize' ignored").
std::string quoted_word(const std::string &message) {
  const std::size_t open = message.find('\'');
  const std::size_t close = open == std::string::npos ? open : message.find('\'', open + 1);
  return close == std::string::npos ? std::string() : message.substr(open + 1, close - open - 1);
}

template <typename Visit>
void for_each_diagnostic(CXTranslationUnit unit, Visit visit) {
  const unsigned count = clang_getNumDiagnostics(unit);
  for (unsigned i = 0; i < count; ++i) {
    const DiagnosticHandle diagnostic(clang_getDiagnostic(unit, i));
    visit(diagnostic.get());
  }
}

}  // namespace

std::vector<Finding> diagnostic_findings(CXTranslationUnit unit,
                                         const std::set<int> &vetted_pragma_lines) {
  const CXFile main = candidate_file(unit);
  std::vector<Finding> findings;
  for_each_diagnostic(unit, [&](CXDiagnostic diagnostic) {
    const CXDiagnosticSeverity severity = clang_getDiagnosticSeverity(diagnostic);
    const std::string message = take_string(clang_getDiagnosticSpelling(diagnostic));
    const std::string option = take_string(clang_getDiagnosticOption(diagnostic, nullptr));
    const Place place = place_of(clang_getDiagnosticLocation(diagnostic));
    const int line = static_cast<int>(place.line);
    const std::string at = " at line " + std::to_string(line);
    if (!same_file(place.file, main)) return;
    if (severity >= CXDiagnostic_Error &&
        contains(message, "function definition is not allowed here")) {
      findings.push_back({Status::forbidden, line,
                          "nested function definition" + at +
                              " (a GCC extension whose body the checks can't see)"});
    } else if (option == "-Wunknown-attributes" || option == "-Wignored-attributes") {
      const std::string name = quoted_word(message);
      if (name.empty()) return;
      if (auto why = attribute_refusal(name, line, c_attribute_table()))
        findings.push_back({Status::forbidden, line, std::move(*why)});
    } else if ((option == "-Wunknown-pragmas" || option == "-Wignored-pragmas") &&
               vetted_pragma_lines.count(line) == 0) {
      findings.push_back({Status::forbidden, line,
                          "a pragma" + at + " that is not written as #pragma or _Pragma(\"...\")"});
    }
  });
  return findings;
}

}  // namespace hpcreward::source_checks
