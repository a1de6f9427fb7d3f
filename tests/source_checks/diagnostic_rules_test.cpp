// The parser's diagnostics, on sources parsed directly (without the preprocessor rules, to
// reach what those rules already stop): the nets behind them must hold on their own.
#include "bench_node/source_checks/diagnostic_rules.hpp"

#include <gtest/gtest.h>

#include "bench_node/source_checks/preprocessor_rules.hpp"
#include "c_analysis/clang_parse.hpp"
#include "c_analysis/parse_arguments.hpp"
#include "check_support.hpp"

namespace hpcreward::source_checks {
namespace {

using namespace c_analysis;  // the parse

std::vector<Finding> diagnose(const std::string &source) {
  static const IndexHandle index(clang_createIndex(1, 0));
  std::string error;
  const TranslationUnitHandle unit =
      parse_candidate(index.get(), source, clang_arguments({"-O3"}, {}), {}, error);
  EXPECT_TRUE(unit) << error;
  if (!unit) return {};
  return diagnostic_findings(unit.get(), vetted_pragma_lines(lex_c(source)));
}

std::string reasons(const std::vector<Finding> &findings) {
  std::string out;
  for (const Finding &finding : findings) out += finding.reason + "\n";
  return out;
}

TEST(DiagnosticRules, APastedPragmaIsCaughtWhereItIsUsed) {
  const auto found =
      diagnose("#define CAT(a, b) a##b\nCAT(_Pra, gma)(\"GCC optimize(\\\"O3\\\")\")\n" +
               source_checks_test::kMatmul);
  ASSERT_EQ(found.size(), 1u) << reasons(found);
  EXPECT_EQ(found[0].status, Status::forbidden);
  EXPECT_EQ(found[0].reason,
            "a pragma at line 2 that is not written as #pragma or _Pragma(\"...\")");
}

TEST(DiagnosticRules, VettedPragmasAreNotReported) {
  EXPECT_TRUE(diagnose("#pragma GCC ivdep\n#define LOOP _Pragma(\"GCC ivdep\")\nLOOP\n" +
                       source_checks_test::kMatmul)
                  .empty());
}

TEST(DiagnosticRules, AttributesClangDropsAreJudgedByName) {
  const auto found =
      diagnose("__attribute__((optimize(\"O3\"), noipa)) static int f(void) { return 0; }\n" +
               source_checks_test::kMatmul);
  ASSERT_EQ(found.size(), 1u) << reasons(found);
  EXPECT_EQ(found[0].reason,
            "attribute optimize at line 1 changes code generation, which the stage's compiler "
            "flags control");
}

TEST(DiagnosticRules, NestedFunctionsAndPlainErrors) {
  const auto nested =
      diagnose(source_checks_test::kSignature + " {\n  int twice(int x) { return 2 * x; }\n}\n");
  ASSERT_FALSE(nested.empty());
  EXPECT_EQ(
      nested[0].reason,
      "nested function definition at line 2 (a GCC extension whose body the checks can't see)");
  EXPECT_TRUE(diagnose(source_checks_test::kSignature + " { C[0] = 1 }\n").empty());
  // Even a missing header is an error the parse goes on after (gcc will say the same).
  EXPECT_TRUE(diagnose("#include <no_such_header.h>\n" + source_checks_test::kMatmul).empty());
}

}  // namespace
}  // namespace hpcreward::source_checks
