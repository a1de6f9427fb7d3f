// Directives, pragmas and the tricks that hide them, judged before any compiler reads the
// file; a mention in a comment or a string never counts.
#include "bench_node/source_checks/preprocessor_rules.hpp"

#include "bench_node/source_checks/c_preprocessor_policy.hpp"

#include <gtest/gtest.h>

namespace hpcreward::source_checks {
namespace {

std::vector<Finding> findings(const std::string &source) {
  return preprocessor_findings(lex_c(source), c_preprocessor_table());
}

// The reason of the single finding (or "" when there is none; several fail the test).
std::string reason(const std::string &source) {
  const auto found = findings(source);
  EXPECT_LE(found.size(), 1u) << source;
  return found.empty() ? "" : found[0].reason;
}

// Some finding says `part`.
void expect_refused(const std::string &source, const std::string &part) {
  const auto found = findings(source);
  ASSERT_FALSE(found.empty()) << "not refused: " << source;
  std::string reasons;
  for (const Finding &finding : found) {
    EXPECT_EQ(finding.status, Status::forbidden);
    if (finding.reason.find(part) != std::string::npos) return;
    reasons += finding.reason + "\n";
  }
  ADD_FAILURE() << "no reason says \"" << part << "\":\n" << reasons << "source: " << source;
}

void expect_allowed(const std::string &source) {
  const auto found = findings(source);
  EXPECT_TRUE(found.empty()) << source << "\nrefused: " << (found.empty() ? "" : found[0].reason);
}

TEST(IncludeRules, AllowListedHeadersPass) {
  expect_allowed(
      "#include <stddef.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n"
      "#include <math.h>\n#include <float.h>\n#include <limits.h>\n#include <stdbool.h>\n"
      "#include <stdalign.h>\n#include <omp.h>\n#include <immintrin.h>\n#include <emmintrin.h>\n"
      "  #  include <xmmintrin.h> // SSE\n#include<stdlib.h>/* again */\n"
      "#include <x86intrin.h>\n#include <mmintrin.h>\n#include <stdatomic.h>\n");
}

TEST(IncludeRules, AnyHeaderOfTheCompilersPassesByName) {
  // A header does nothing by itself: calls are judged where matmul can reach them.
  for (const char *header : {"stdio.h", "assert.h", "unistd.h", "time.h", "dlfcn.h", "pthread.h", "signal.h",
                             "ia32intrin.h", "cblas.h", "sys/mman.h", "sys/time.h", "threads.h", "c++/12/cstdio"})
    expect_allowed(std::string("#include <") + header + ">\n");
}

TEST(IncludeRules, DirectiveTricksAreCaught) {
  const char *refused = "#include </dev/zero>";
  expect_refused("#inc\\\nlude </dev/zero>\n", "#include </dev/zero> at line 1");  // splice
  expect_refused("#inc\\   \nlude </dev/zero>\n", refused);         // splice + blanks
  expect_refused("#\\\ninclude </dev/zero>\n", refused);
  expect_refused("# /**/ include /**/ </dev/zero>\n", refused);    // comments
  expect_refused("/* a\n b */ # include </dev/zero>\n", refused);  // after a comment
  expect_refused("%:include </dev/zero>\n", refused);              // digraph
  expect_refused("%:   include </dev/zero>\r\n", refused);         // CR LF
  expect_refused("int a;\r#include </dev/zero>\r", "#include </dev/zero> at line 2");  // lone CR
  expect_refused("#if 0\n#include </dev/zero>\n#endif\n", refused);     // any branch
}

TEST(IncludeRules, QuotedPathsComputedAndOtherFormsAreRefused) {
  const char *outside = "a header is named below the compiler's include directories";
  expect_refused("#include \"matmul.h\"\n", "quoted includes are refused");
  expect_refused("#include \"cand.c\"\n", "quoted includes are refused");  // self
  expect_refused("#include \"/dev/zero\"\n", "quoted includes are refused");
  expect_refused("#include </dev/zero>\n", outside);
  expect_refused("#include </etc/passwd>\n", outside);
  expect_refused("#include <../include/stdio.h>\n", outside);
  expect_refused("#include <sys/../../../etc/passwd>\n", outside);
  expect_refused("#include <sys//types.h>\n", outside);
  expect_refused("#include <sys\\types.h>\n", outside);
  expect_refused("#define DEVICE </dev/zero>\n#include DEVICE\n", "computed #include at line 2");
  expect_refused("#define H(x) #x\n#include H(stdlib.h)\n", "computed #include");
  expect_refused("#include_next <stdlib.h>\n", "#include_next at line 1 is refused");
  expect_refused("#import <stdlib.h>\n", "#import at line 1 is refused");
  expect_refused("#include <stdlib.h> extra\n", "unexpected tokens after the header name");
  expect_refused("#include < stdlib.h >\n", outside);
  expect_refused("#include\n", "computed #include");
}

TEST(IncludeRules, MentionsInCommentsAndStringsDoNotCount) {
  expect_allowed("// #include <stdio.h>\n/* #include </dev/zero> */\n");
  expect_allowed("const char *s = \"#include <stdio.h>\";\nchar c = '#';\n");
  expect_allowed("/*\n#include \"/etc/passwd\"\n*/\nint x;\n");
  expect_allowed("x = 1; // comment \\\n#include <stdio.h> (still the comment)\n");
}

TEST(DirectiveRules, OrdinaryDirectivesPass) {
  expect_allowed(
      "#define N 64\n#define MIN(a, b) ((a) < (b) ? (a) : (b))\n#undef N\n#ifdef X\n#elif Y\n"
      "#else\n#endif\n#ifndef Z\n#if defined(W) && W > 1\n#endif\n#endif\n#\n"
      "#error not reached\n#warning careful\n#define _GNU_SOURCE\n#undef _POSIX_C_SOURCE\n");
}

TEST(DirectiveRules, MisplacingAndUnknownDirectivesAreRefused) {
  expect_refused("#line 100\n", "a line marker at line 1");
  expect_refused("# 33 \"/usr/include/stdlib.h\" 3\n", "a line marker");
  expect_refused("#ident \"x\"\n", "#ident at line 1 is not allowed");
  expect_refused("#assert machine(x86)\n", "#assert");
  expect_refused("#elifdef X\n", "#elifdef at line 1 is refused");
  expect_refused("#if 0\n#sccs \"x\"\n#endif\n", "#sccs");
}

TEST(DirectiveRules, ReservedAndKeywordMacroNamesAreRefused) {
  expect_refused("#define __clang__ 1\n", "#define __clang__ at line 1");
  expect_refused("#define _X 1\n", "macro names starting with _");
  expect_refused("#undef __STDC_VERSION__\n", "#undef __STDC_VERSION__");
  expect_refused("#define static\n", "redefines a keyword");
  expect_refused("#define asm(x)\n", "redefines a keyword");
  expect_allowed("#define x_ 1\n#define my__name 2\n");
}

TEST(PragmaRules, LoopHintsAndOpenMpPass) {
  expect_allowed(
      "#pragma omp parallel for collapse(2) schedule(static)\n#pragma omp simd\n"
      "#pragma GCC unroll 8\n#pragma GCC ivdep\n#pragma GCC diagnostic ignored \"-Wx\"\n"
      "#pragma once\n#pragma STDC FP_CONTRACT ON\n#pragma unroll\n#pragma\n"
      "_Pragma(\"omp parallel for\") int x;\n#define FOR _Pragma(\"omp for\")\n");
}

TEST(PragmaRules, CodeGenerationAndSymbolPragmasAreRefused) {
  expect_refused("#pragma GCC optimize(\"O3\")\n",
                 "#pragma GCC optimize at line 1 changes code generation");
  expect_refused("#pragma GCC target(\"avx512f\")\n", "#pragma GCC target");
  expect_refused("#pragma GCC push_options\n", "#pragma GCC push_options");
  expect_refused("#pragma GCC visibility push(hidden)\n", "changes which symbols");
  expect_refused("#pragma redefine_extname matmul2 fork\n", "renames a symbol");
  expect_refused("#pragma weak matmul\n", "weak symbols");
  expect_refused("#pragma clang loop vectorize(enable)\n",
                 "#pragma clang at line 1 is not on the allow-list");
  expect_refused("#pragma GCC system_header\n", "is not on the allow-list");
  expect_refused("#pra\\\ngma GCC opti\\\nmize(\"O0\")\n", "#pragma GCC optimize");
  expect_refused("%:pragma GCC optimize(\"O0\")\n", "#pragma GCC optimize");
  expect_refused("# /**/ pragma /**/ GCC /**/ target(\"avx2\")\n", "#pragma GCC target");
}

TEST(PragmaRules, PragmaOperatorsAreJudgedByTheirString) {
  expect_refused("_Pragma(\"GCC optimize(\\\"O3\\\")\") int x;\n",
                 "#pragma GCC optimize (from _Pragma at line 1)");
  expect_refused("_Pragma ( L\"GCC target(\\\"avx2\\\")\" )\n", "#pragma GCC target");
  expect_refused("#define P(x) _Pragma(#x)\nP(GCC optimize(\"O3\"))\n",
                 "_Pragma at line 1 without one literal string operand");
  expect_refused("#define OPT \"GCC optimize(\\\"O0\\\")\"\n_Pragma(OPT)\n",
                 "without one literal string");
  expect_refused("#define PR _Pragma\nPR(\"GCC optimize(\\\"O3\\\")\")\n",
                 "without one literal string");
}

TEST(PragmaRules, IdentifiersThatPasteIntoPragmaAreRefused) {
  expect_refused("#define CAT(a, b) a##b\nCAT(_Pra, gma)(\"GCC optimize(\\\"O3\\\")\")\n",
                 "identifier _Pra at line 2 is refused (## could paste it into _Pragma)");
  expect_refused("#define CAT(a, b) a##b\nCAT(_, Pragma)(\"x\")\n", "identifier _ at line 2");
  expect_allowed("int _Pragmatic, _Pr0, P, Pragma;\n");
  // In C even a source that never pastes: a header's macro can (glibc's __CONCAT).
  expect_refused("#include <stdlib.h>\n__CONCAT(_Pra, gma)(\"GCC optimize(\\\"O3\\\")\")\n", "identifier _Pra at line 2");
  expect_refused("struct U {} _;\nint f(U, U) { return 0; }\nint g() { return f(_, _); }\n", "identifier _ at line 1");
}

TEST(PragmaRules, MentionsInCommentsAndStringsDoNotCount) {
  expect_allowed("// #pragma GCC optimize(\"O3\")\n/* _Pragma(\"GCC target\") */\n");
  expect_allowed("const char *s = \"_Pragma(\\\"GCC optimize\\\") #pragma weak x\";\n");
}

TEST(PreprocessorRules, ByteOrderMark) {
  expect_refused("\xEF\xBB\xBF#include \"/dev/zero\"\n", "quoted includes are refused");
}

TEST(PreprocessorRules, RawStringsAreRefused) {
  // To gcc the raw string ends at )x" and the include is real; without raw strings the
  // /* would open a comment that hides it.
  expect_refused("const char *s = R\"x( \" /* )x\";\n#include \"/dev/zero\"\n// */\n",
                 "raw string literal at line 1 (a GNU extension)");
  expect_refused("const char *s = u8R\"(x)\";\n", "raw string literal");
  expect_allowed("const char *R = \"x\"; int LR; char *s = R; /* R\"(x)\" */\n");
}

TEST(PreprocessorRules, VettedPragmaLines) {
  const auto lines = vetted_pragma_lines(
      lex_c("#pragma omp parallel\nint a;\n_Pragma(\"omp for\")\n#define F _Pragma(\"omp for\")\n"
            "#define G F\nint b;\nG\n#pragma omp \\\n  simd\n"));
  EXPECT_EQ(lines, (std::set<int>{1, 3, 4, 5, 7, 8, 9}));
}

}  // namespace
}  // namespace hpcreward::source_checks
