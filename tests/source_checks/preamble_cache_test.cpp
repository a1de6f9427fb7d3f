// The precompiled preamble: only for files whose includes all come first.
#include "bench_node/source_checks/preamble_cache.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "bench_node/source_checks/libclang_handles.hpp"
#include "bench_node/source_checks/parse_arguments.hpp"
#include "bench_node/work_dir.hpp"

namespace hpcreward::source_checks {
namespace {

std::optional<std::string> preamble(const std::string &source) {
  return include_preamble(lex_c(source));
}

TEST(PreambleCache, LeadingIncludesFormThePreamble) {
  EXPECT_EQ(*preamble("// kernel\n#include <immintrin.h>\n/* x */\n#include <stdlib.h>\nint x;\n"),
            "#include <immintrin.h>\n#include <stdlib.h>\n");
  EXPECT_EQ(*preamble("#include <math.h>\n#include <math.h>\n"),
            "#include <math.h>\n#include <math.h>\n");
}

TEST(PreambleCache, NoPreambleWhenAnythingComesFirst) {
  EXPECT_FALSE(preamble("int x;\n"));
  EXPECT_FALSE(preamble("#define NDEBUG\n#include <stdlib.h>\n"));
  EXPECT_FALSE(preamble("#include <stdlib.h>\nint x;\n#include <math.h>\n"));
  EXPECT_FALSE(preamble("#ifdef X\n#include <stdlib.h>\n#endif\n"));
}

TEST(PreambleCache, BuildsOnceKeepsTheRecentAndMarksFailures) {
  char pattern[] = "/tmp/hpcreward-preamble-test-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const std::filesystem::path directory = pattern;
  const IndexHandle index(clang_createIndex(1, 0));
  const std::vector<std::string> arguments = clang_arguments({"-O3"}, {});
  PreambleCache cache(directory, 1);

  const auto first = cache.pch_for(index.get(), arguments, "#include <stddef.h>\n");
  ASSERT_FALSE(first.empty());
  EXPECT_TRUE(std::filesystem::exists(first));
  EXPECT_EQ(cache.pch_for(index.get(), arguments, "#include <stddef.h>\n"), first);
  EXPECT_NE(cache.pch_for(index.get(), clang_arguments({"-O0"}, {}), "#include <stddef.h>\n"),
            first);
  EXPECT_FALSE(std::filesystem::exists(first));  // capacity 1: the older one went

  EXPECT_TRUE(cache.pch_for(index.get(), arguments, "#include <no_such_header.h>\n").empty());
  std::size_t marks = 0;
  for (const auto &entry : std::filesystem::directory_iterator(directory))
    marks += entry.path().extension() == ".failed";
  EXPECT_EQ(marks, 1u);
  EXPECT_TRUE(cache.pch_for(index.get(), arguments, "#include <no_such_header.h>\n").empty());
  remove_tree(directory);
}

}  // namespace
}  // namespace hpcreward::source_checks
