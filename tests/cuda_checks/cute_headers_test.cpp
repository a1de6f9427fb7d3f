// The CuTe stage's line through CUTLASS, on the pinned release this build found
// (jobs/install-deps.sh): its version, and that what the allowed headers include in turn
// never reaches a ready-made GEMM. Skips (visibly) without nvcc or without the headers.
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "bench_node/cuda/cuda_include_policy.hpp"
#include "bench_node/cuda/cute_headers.hpp"
#include "bench_node/cuda/cuda_preprocessor_policy.hpp"
#include "bench_node/source_checks/c_lexer.hpp"
#include "bench_node/source_checks/directives.hpp"
#include "common/stage_libraries.hpp"
#include "nvcc_support.hpp"

namespace hpcreward::cuda_test {
namespace {

namespace fs = std::filesystem;

#define REQUIRE_CUTE()                                                                          \
  do {                                                                                          \
    REQUIRE_NVCC();                                                                             \
    if (cute_version(default_cute_include()).empty())                                           \
      GTEST_SKIP() << "no CuTe headers at '" << default_cute_include() << "' (jobs/install-deps.sh)"; \
  } while (0)

// Where a ready-made GEMM lives: nothing the CuTe stage allows may include these.
const std::regex kReadyMade(R"(^cutlass/(gemm/(device|kernel|collective|threadblock|warp)|epilogue|conv)/)");

// Whether every quoted include of `header`, and of what it includes in turn, names a file of
// the tree: a few of the release's headers do not (cutlass/arch/simd.h wants a
// cutlass/arch/array.h it lacks). Those fail to compile for a candidate as for this test,
// so they can reach nothing.
bool complete(const fs::path &root, const fs::path &header, std::map<fs::path, bool> &known) {
  if (auto found = known.find(header); found != known.end()) return found->second;
  known[header] = true;  // a cycle closes on itself
  std::ifstream in(header);
  static const std::regex quoted(R"re(^\s*#\s*include\s*"([^"]+)")re");
  bool whole = true;
  for (std::string line; whole && std::getline(in, line);) {
    std::smatch match;
    if (!std::regex_search(line, match, quoted)) continue;
    const fs::path included = fs::exists(root / match[1].str()) ? root / match[1].str()
                                                               : header.parent_path() / match[1].str();
    whole = fs::exists(included) && complete(root, included.lexically_normal(), known);
  }
  return known[header] = whole;
}

// Every header of the pinned tree the CuTe stage's table allows (families expanded) that
// compiles on its own.
std::vector<std::string> allowed_cute_headers(const fs::path &root) {
  const source_checks::IncludeTable &with_table = cuda_source::cuda_include_table(CutlassAccess::cute);
  const source_checks::IncludeTable &without_table = cuda_source::cuda_include_table(CutlassAccess::none);
  std::vector<std::string> headers;
  std::map<fs::path, bool> known;
  for (const fs::directory_entry &entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().lexically_relative(root).generic_string();
    if (source_checks::header_allowed(with_table, name) && !source_checks::header_allowed(without_table, name) &&
        complete(root, entry.path(), known))
      headers.push_back(name);
  }
  std::sort(headers.begin(), headers.end());
  return headers;
}

TEST(CuteHeaders, TheBuildFoundThePinnedRelease) {
  REQUIRE_CUTE();
  EXPECT_EQ(cute_version(default_cute_include()), kPinnedCutlassVersion);
  EXPECT_EQ(cute_version(""), "");
  EXPECT_EQ(cute_version(Nvcc::get().root()), "") << "a directory without cute/tensor.hpp";
}

TEST(CuteHeaders, WhatTheStageAllowsIncludesNoReadyMadeGemm) {
  REQUIRE_CUTE();
  const fs::path root = default_cute_include();
  const std::vector<std::string> headers = allowed_cute_headers(root);
  ASSERT_GT(headers.size(), 100u) << "cute/* alone has over a hundred headers";
  EXPECT_TRUE(std::count(headers.begin(), headers.end(), "cute/tensor.hpp"));
  std::string source;
  for (const std::string &header : headers) source += "#include <" + header + ">\n";
  WorkDir directory(Nvcc::get().root(), "cute-headers");
  ASSERT_TRUE(write_private_file(directory.path() / "all.cu", source));
  ChildSpec spec;
  spec.program = *find_executable(check_options({}).compiler.nvcc);
  spec.arguments = {"-M", "-std=c++17", "-arch=sm_90a", "-isystem", root.string(), "-o", "all.d", "all.cu"};
  spec.environment = inherited_environment();
  spec.working_directory = directory.path().string();
  spec.deadline_s = 240;
  spec.output_limit = 16 << 10;
  const ChildOutcome child = run_child(spec);
  ASSERT_TRUE(child.exited && child.exit_code == 0) << child.output;
  std::ifstream dependencies(directory.path() / "all.d");
  std::string token;
  std::set<std::string> reached;
  const std::string prefix = root.string() + "/";
  while (dependencies >> token)
    if (token.starts_with(prefix)) reached.insert(token.substr(prefix.size()));
  EXPECT_GE(reached.size(), headers.size());
  for (const std::string &header : reached) EXPECT_FALSE(std::regex_search(header, kReadyMade)) << header;
  // And the table refuses each of those by name.
  const NameTable &with = cuda_source::cuda_include_table(CutlassAccess::cute).headers;
  for (const char *gemm : {"cutlass/gemm/device/gemm.h", "cutlass/gemm/kernel/gemm_universal.hpp",
                           "cutlass/gemm/collective/collective_builder.hpp",
                           "cutlass/epilogue/collective/collective_builder.hpp", "cutlass/conv/convolution.h"})
    EXPECT_TRUE(refusal_reason(with, gemm)) << gemm;
}

// The CuTe stages let `_` through unless the source names "P" to "Pragma" (the piece a paste of
// `_` into _Pragma needs next: bench_node/source_checks/preprocessor_rules.hpp). That holds only
// if no header a candidate can include brings such a piece in a macro of its own: none of the
// pinned release's, nor the CUDA toolkit's, names one outside its parameters.
TEST(CuteHeaders, NoHeaderMacroBringsAPieceThatFollowsUnderscoreIntoPragma) {
  REQUIRE_CUTE();
  const fs::path nvcc = fs::canonical(*find_executable(check_options({}).compiler.nvcc));
  std::vector<fs::path> roots = {default_cute_include(), nvcc.parent_path().parent_path() / "include"};
  const std::string_view rest = "Pragma";
  auto piece = [&](const std::string &name) {
    return !name.empty() && (rest.starts_with(name) || (name.size() > 1 && name.size() < 7 &&
                                                         std::string_view("_Pragma").starts_with(name)));
  };
  int files = 0;
  for (const fs::path &root : roots) {
    ASSERT_TRUE(fs::is_directory(root)) << root;
    for (const fs::directory_entry &entry : fs::recursive_directory_iterator(root)) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path());
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      const std::vector<source_checks::Token> tokens = source_checks::lex_c(text, cuda_source::cuda_lex_options());
      ++files;
      for (const source_checks::MacroDefinition &macro : source_checks::macro_definitions(source_checks::directives_of(tokens)))
        for (const source_checks::Token *token : macro.body)
          if (token->kind == source_checks::TokenKind::identifier && piece(token->text) &&
              std::find(macro.parameters.begin(), macro.parameters.end(), token->text) == macro.parameters.end())
            ADD_FAILURE() << entry.path() << ":" << token->line << ": macro " << macro.name << " brings " << token->text;
    }
  }
  EXPECT_GT(files, 1000) << "the pinned release and the toolkit's headers";
}

}  // namespace
}  // namespace hpcreward::cuda_test
