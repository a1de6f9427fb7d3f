// nvcc as the rank runs it: real builds, the link-failure rule, the cache over real objects,
// and the include allow-list against the installed toolkit.
#include <fstream>
#include <iterator>

#include "bench_node/process/child_process.hpp"
#include "bench_node/cuda/cuda_include_policy.hpp"
#include "nvcc_support.hpp"

namespace hpcreward::cuda_test {
namespace {

std::string bytes_of(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST(NvccBuild, ACandidateBuildsIntoASharedObject) {
  REQUIRE_NVCC();
  const CompileOutcome &built = Nvcc::get().build(samples::kNaive);
  ASSERT_TRUE(built.verdict.ok()) << built.verdict.reason << "\n" << built.log;
  EXPECT_EQ(built.object.filename(), "cand.so");
  EXPECT_TRUE(built.repeatable);
  EXPECT_TRUE(std::filesystem::exists(built.object.parent_path() / "cand.cu"));
}

TEST(NvccBuild, AHandWrittenCublasPrototypeIsForbiddenNotACompileError) {
  REQUIRE_NVCC();
  const CompileOutcome &built = Nvcc::get().build(samples::kCublasPrototype);
  EXPECT_EQ(built.verdict.status, Status::forbidden) << built.verdict.reason << "\n" << built.log;
  EXPECT_NE(built.verdict.reason.find("cuBLAS"), std::string::npos) << built.verdict.reason;
  EXPECT_NE(built.verdict.reason.find("cublas"), std::string::npos) << built.verdict.reason;
}

TEST(NvccBuild, ASyntaxErrorIsACompileErrorWithTheCompilersLine) {
  REQUIRE_NVCC();
  const CompileOutcome &built = Nvcc::get().build("extern \"C\" void matmul(int m) { int x = ; }\n");
  EXPECT_EQ(built.verdict.status, Status::compile_error);
  EXPECT_NE(built.verdict.reason.find("error"), std::string::npos) << built.verdict.reason;
  EXPECT_TRUE(built.repeatable);
}

TEST(NvccBuild, TheCacheHandsOutTheSameObjectWithoutCompiling) {
  REQUIRE_NVCC();
  const CompileOutcome &first = Nvcc::get().build(samples::kNaive);
  ASSERT_TRUE(first.verdict.ok()) << first.verdict.reason;
  CachingCompiler &cache = Nvcc::get().compiler();
  const std::size_t misses = cache.stats().misses;
  WorkDir directory(Nvcc::get().root(), "again");
  const CompileOutcome again = cache.compile({samples::kNaive, {"-O3"}, directory.path()});
  ASSERT_TRUE(again.verdict.ok()) << again.verdict.reason;
  EXPECT_EQ(cache.stats().misses, misses);
  EXPECT_EQ(again.object.parent_path(), directory.path());
  EXPECT_EQ(bytes_of(again.object), bytes_of(first.object));
  EXPECT_LT(again.seconds, first.seconds);
}

TEST(NvccBuild, EveryAllowedHeaderIsOneTheToolkitHas) {
  REQUIRE_NVCC();
  std::string source;
  for (std::string_view header : cuda_source::cuda_include_table().headers.allowed)
    if (!header.ends_with('*')) source += "#include <" + std::string(header) + ">\n";  // names, not families
  WorkDir directory(Nvcc::get().root(), "headers");
  ASSERT_TRUE(write_private_file(directory.path() / "headers.cu", source));
  ChildSpec spec;
  spec.program = *find_executable(check_options({}).compiler.nvcc);
  spec.arguments = {"-E", "-std=c++17", "-o", "/dev/null", "headers.cu"};
  spec.environment = inherited_environment();
  spec.working_directory = directory.path().string();
  spec.deadline_s = 120;
  spec.output_limit = 16 << 10;
  const ChildOutcome child = run_child(spec);
  EXPECT_TRUE(child.exited && child.exit_code == 0) << child.output;
}

}  // namespace
}  // namespace hpcreward::cuda_test
