// The precompiled preamble cache: built once per preamble and arguments, bounded, failures marked.
#include "c_analysis/preamble_cache.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "c_analysis/libclang_handles.hpp"
#include "c_analysis/parse_arguments.hpp"

namespace hpcreward::c_analysis {
namespace {

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
  std::filesystem::remove_all(directory);
}

}  // namespace
}  // namespace hpcreward::c_analysis
