// The one parse: with a precompiled preamble it shows the candidate's file exactly as the
// plain parse does (the source checks and technique detection both read this unit), and a
// PCH clang will not load falls back to the plain parse.
#include "c_analysis/clang_parse.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "c_analysis/cursor_utils.hpp"
#include "c_analysis/parse_arguments.hpp"

namespace hpcreward::c_analysis {
namespace {

// An AVX-512 kernel with a macro tile size: intrinsics (calls and macro uses), types from
// the header, a macro definition and its expansions, all in the candidate's file.
const char *const kKernel =
    "#include <immintrin.h>\n"
    "#define TILE 64\n"
    "void matmul(int m, int n, int k, const double *A, const double *B, double *C) {\n"
    "  for (int ii = 0; ii < m; ii += TILE)\n"
    "    for (int i = ii; i < ii + TILE && i < m; ++i)\n"
    "      for (int j = 0; j + 8 <= n; j += 8) {\n"
    "        __m512d c = _mm512_setzero_pd();\n"
    "        for (int p = 0; p < k; ++p)\n"
    "          c = _mm512_fmadd_pd(_mm512_set1_pd(A[i * k + p]), _mm512_loadu_pd(B + p * n + j), c);\n"
    "        _mm512_storeu_pd(C + i * n + j, c);\n"
    "      }\n"
    "}\n";

// Every cursor in the candidate's file, depth first: kind, spelling, line.
void describe(CXCursor cursor, CXFile main, std::vector<std::string> &out) {
  for (CXCursor child : children(cursor)) {
    const Place place = place_of(child);
    if (!same_file(place.file, main)) continue;
    out.push_back(std::to_string(clang_getCursorKind(child)) + " " + spelling(child) + " " +
                  std::to_string(place.line));
    describe(child, main, out);
  }
}

std::vector<std::string> cursors_of(CXTranslationUnit unit) {
  std::vector<std::string> out;
  describe(clang_getTranslationUnitCursor(unit), candidate_file(unit), out);
  return out;
}

class ClangParse : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/hpcreward-clang-parse-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    directory_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }
  std::filesystem::path directory_;
  const IndexHandle index_{clang_createIndex(1, 0)};
  const std::vector<std::string> arguments_ = clang_arguments({"-O3", "-mavx512f"}, {});
};

TEST_F(ClangParse, PreambleParseShowsTheCandidateAsThePlainParseDoes) {
  std::string error;
  const TranslationUnitHandle plain = parse_candidate(index_.get(), kKernel, arguments_, {}, error);
  ASSERT_TRUE(plain) << error;
  PreambleCache cache(directory_, 4);
  const TranslationUnitHandle with_pch = parse_with_preamble(
      index_.get(), kKernel, arguments_, cache, std::string("#include <immintrin.h>\n"), error);
  ASSERT_TRUE(with_pch) << error;
  EXPECT_FALSE(precompiled_header_failed(with_pch.get()));
  EXPECT_EQ(first_error_in_candidate(with_pch.get()), "");

  const std::vector<std::string> expected = cursors_of(plain.get());
  EXPECT_EQ(cursors_of(with_pch.get()), expected);
  // The preprocessing record is kept: the tile macro and the intrinsics' expansions.
  const auto has = [&](CXCursorKind kind, const std::string &name) {
    const std::string prefix = std::to_string(kind) + " " + name + " ";
    for (const std::string &cursor : expected)
      if (cursor.rfind(prefix, 0) == 0) return true;
    return false;
  };
  EXPECT_TRUE(has(CXCursor_MacroDefinition, "TILE"));
  EXPECT_TRUE(has(CXCursor_MacroExpansion, "TILE"));
  EXPECT_TRUE(has(CXCursor_TypeRef, "__m512d"));
}

TEST_F(ClangParse, APchClangWillNotLoadFallsBackToThePlainParse) {
  PreambleCache cache(directory_, 4);
  const std::string preamble = "#include <immintrin.h>\n";
  const std::filesystem::path pch = cache.pch_for(index_.get(), arguments_, preamble);
  ASSERT_FALSE(pch.empty());
  std::ofstream(pch, std::ios::trunc) << "not a precompiled header";
  std::string error;
  const TranslationUnitHandle unit =
      parse_with_preamble(index_.get(), kKernel, arguments_, cache, preamble, error);
  ASSERT_TRUE(unit) << error;
  EXPECT_FALSE(precompiled_header_failed(unit.get()));
  EXPECT_EQ(first_error_in_candidate(unit.get()), "");
  EXPECT_FALSE(std::filesystem::exists(pch));  // forgotten: rebuilt on next use
}

TEST_F(ClangParse, FirstErrorNamesItsLine) {
  std::string error;
  const TranslationUnitHandle unit =
      parse_candidate(index_.get(), "int x;\nint y = ;\n", arguments_, {}, error);
  ASSERT_TRUE(unit) << error;
  EXPECT_EQ(first_error_in_candidate(unit.get()).rfind("line 2: ", 0), 0u)
      << first_error_in_candidate(unit.get());
}

}  // namespace
}  // namespace hpcreward::c_analysis
