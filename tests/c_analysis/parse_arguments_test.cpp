// The arguments that make clang read a candidate the way gcc compiles it.
#include "c_analysis/parse_arguments.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace hpcreward::c_analysis {
namespace {

TEST(ParseArguments, StageFlagsThatChangeTheParse) {
  const auto args = clang_arguments({"-O3", "-march=native", "-fopenmp", "-funroll-loops", "-D",
                                     "X=1", "-Wall", "-mavx512f", "-ffast-math"},
                                    "/tmp/inc");
  auto has = [&](const std::string &arg) {
    return std::find(args.begin(), args.end(), arg) != args.end();
  };
  for (const char *arg : {"-std=gnu11", "-O3", "-march=native", "-fopenmp", "-DX=1", "-mavx512f",
                          "-ffast-math", "-fdouble-square-bracket-attributes", "/tmp/inc"})
    EXPECT_TRUE(has(arg)) << arg;
  EXPECT_FALSE(has("-funroll-loops"));
  EXPECT_FALSE(has("-Wall"));
}

}  // namespace
}  // namespace hpcreward::c_analysis
