// #if conditions must mean the same to gcc (which compiles) and clang (which the checks
// parse with): code in a branch only gcc takes would be compiled unchecked.
#include "bench_node/source_checks/conditional_rules.hpp"

#include <gtest/gtest.h>

namespace hpcreward::source_checks {
namespace {

std::vector<Finding> findings(const std::string &source) {
  return conditional_findings(lex_c(source));
}

void expect_refused(const std::string &source, const std::string &part) {
  const auto found = findings(source);
  ASSERT_FALSE(found.empty()) << "not refused: " << source;
  EXPECT_EQ(found[0].status, Status::forbidden);
  EXPECT_NE(found[0].reason.find(part), std::string::npos) << found[0].reason;
}

void expect_allowed(const std::string &source) {
  const auto found = findings(source);
  EXPECT_TRUE(found.empty()) << source << "\nrefused: " << (found.empty() ? "" : found[0].reason);
}

TEST(ConditionalRules, AgreedMacrosAndTheCandidatesOwnPass) {
  expect_allowed(
      "#if defined(__AVX512F__) && __STDC_VERSION__ >= 201112L\n#endif\n"
      "#ifdef _OPENMP\n#endif\n#if defined _OPENMP && !defined(__GNUC__)\n#endif\n"
      "#define BLOCK 64\n#if BLOCK > 32 && defined(NDEBUG) || UNKNOWN\n#endif\n"
      "#ifndef M_PI\n#define M_PI 3.14\n#endif\n#if __x86_64__ && __OPTIMIZE__\n#endif\n");
}

TEST(ConditionalRules, CompilerIdentityIsRefused) {
  expect_refused("#ifndef __clang__\nint fork(void);\n#endif\n",
                 "a condition at line 1 depends on __clang__");
  expect_refused("#if __GNUC__ >= 12\n#endif\n", "test it only as defined(__GNUC__)");
  expect_refused("#if _OPENMP >= 201811\n#endif\n", "depends on _OPENMP");
  expect_refused("#if __GNUC_MINOR__\n#endif\n", "__GNUC_MINOR__");
  expect_refused("#elif __VERSION__\n", "__VERSION__");
}

TEST(ConditionalRules, FeatureProbesAreRefused) {
  expect_refused("#if __has_include(<stdio.h>)\n#endif\n", "__has_include");
  expect_refused("#if __has_attribute(optimize)\n#endif\n", "__has_attribute");
  expect_refused("#if __has_builtin(__builtin_trap)\n#endif\n", "__has_builtin");
  expect_refused("#ifdef _MM_HINT_T0\n#endif\n", "_MM_HINT_T0");  // a macro in one compiler
}

TEST(ConditionalRules, MacrosUsedInConditionsAreFollowed) {
  expect_refused("#define IS_CLANG __clang__\n#if IS_CLANG\n#endif\n",
                 "a macro used in a condition at line 1 depends on __clang__");
  expect_refused("#define A B\n#define B (__clang_major__ > 3)\n#if A\n#endif\n",
                 "__clang_major__");
  expect_refused("#define GNU __GNUC__\n#if defined(GNU) && GNU\n#endif\n", "__GNUC__");
  // Not used in a condition: no matter.
  expect_allowed("#define IS_CLANG __clang__\nint x = IS_CLANG;\n");
}

TEST(ConditionalRules, PastedNamesAreCaughtByTheirPieces) {
  expect_refused("#define CAT(a, b) a##b\n#if CAT(__cla, ng__)\n#endif\n", "__cla");
  expect_refused("#define CAT(a, b) a##b\n#define X CAT(_, _clang__)\n#if X\n#endif\n",
                 "depends on _");
  // A condition reaching ## makes every macro reachable.
  expect_refused("#define CAT(a, b) a##b\n#define CLANGX __clang__\n#if CAT(CLANG, X)\n#endif\n",
                 "__clang__");
}

TEST(ConditionalRules, MentionsInCommentsAndStringsDoNotCount) {
  expect_allowed(
      "// #ifdef __clang__\n/* #if __has_include(<x>) */\nconst char *s = \"#if __clang__\";\n");
  expect_allowed("#if 1 /* __clang__ */\n#endif\n");
}

}  // namespace
}  // namespace hpcreward::source_checks
