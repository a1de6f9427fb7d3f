// NvccCompiler's command line and arch validation (no nvcc is run).
#include "bench_node/cuda/nvcc_compiler.hpp"

#include <algorithm>
#include <stdexcept>

#include <gtest/gtest.h>

namespace hpcreward {
namespace {

TEST(NvccCompiler, CommandLine) {
  const NvccCompiler compiler(NvccOptions{});
  const std::vector<std::string> expected = {
      "-shared", "-Xcompiler", "-fPIC", "-cudart", "shared", "-gencode=arch=compute_90a,code=sm_90a",
      "-isystem", "iostream-shim", "-O3", "--use_fast_math", "-Xcompiler", "-ffunction-sections",
      "-Xlinker", "--gc-sections,--version-script=cand.exports", "-Xlinker", "-z,defs", "-o", "cand.so", "cand.cu"};
  EXPECT_EQ(compiler.arguments({"", {"-O3", "--use_fast_math"}, "/tmp"}), expected);
}

TEST(NvccCompiler, CuteHeadersAreOnThePathOnlyForAStageThatAllowsThem) {
  NvccOptions options;
  options.cute_include = "/opt/cutlass/include";
  const NvccCompiler compiler(options);
  const std::vector<std::string> with = compiler.arguments({"", {"-O3"}, "/tmp", {"cute"}});
  const std::vector<std::string> expected_start = {"-shared", "-Xcompiler", "-fPIC", "-cudart", "shared",
                                                   "-gencode=arch=compute_90a,code=sm_90a", "-isystem",
                                                   "iostream-shim", "-isystem", "/opt/cutlass/include", "-O3"};
  EXPECT_EQ(std::vector<std::string>(with.begin(), with.begin() + 11), expected_start);
  const std::vector<std::string> without = compiler.arguments({"", {"-O3"}, "/tmp"});
  EXPECT_EQ(std::count(without.begin(), without.end(), "-isystem"), 1);  // the iostream shim
  EXPECT_EQ(std::count(without.begin(), without.end(), "/opt/cutlass/include"), 0);
}

TEST(NvccCompiler, Gencode) {
  EXPECT_EQ(gencode_for("sm_90a"), "-gencode=arch=compute_90a,code=sm_90a");
  EXPECT_EQ(gencode_for("sm_80"), "-gencode=arch=compute_80,code=sm_80");
  EXPECT_EQ(gencode_for("sm_100a"), "-gencode=arch=compute_100a,code=sm_100a");
  for (const char *bad : {"", "sm_", "sm_a", "compute_90", "sm_90b", "sm_90a;rm -rf", "sm_90 ", "SM_90",
                          "sm_90aa", "sm_123456"}) {
    EXPECT_FALSE(valid_cuda_arch(bad)) << bad;
    EXPECT_THROW(gencode_for(bad), std::invalid_argument) << bad;
  }
  EXPECT_THROW(NvccCompiler(NvccOptions{"nvcc", "sm_90x"}), std::invalid_argument);
}

TEST(NvccCompiler, AMissingCompilerIsACompileError) {
  NvccCompiler compiler(NvccOptions{"/nonexistent/nvcc"});
  const CompileOutcome outcome = compiler.compile({"", {}, ::testing::TempDir()});
  EXPECT_EQ(outcome.verdict.status, Status::compile_error);
  EXPECT_NE(outcome.verdict.reason.find("compiler not found"), std::string::npos);
  EXPECT_FALSE(outcome.repeatable);
}

}  // namespace
}  // namespace hpcreward
