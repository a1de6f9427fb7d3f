// The compile cache over a fake compiler: what is kept, what is handed out, bounds, threads.
#include "bench_node/cuda/caching_compiler.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <iterator>
#include <thread>

#include <gtest/gtest.h>

#include "bench_node/process/work_dir.hpp"

namespace hpcreward {
namespace {

namespace fs = std::filesystem;

// Writes "object of <source>" as cand.so; sources starting with "error" fail (repeatably),
// "flaky" fails as a time limit would (not repeatable).
class FakeCompiler : public Compiler {
 public:
  explicit FakeCompiler(std::atomic<int> &calls, int delay_ms = 0) : calls_(calls), delay_ms_(delay_ms) {}
  CompileOutcome compile(const CompileRequest &request) override {
    ++calls_;
    if (delay_ms_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms_));
    CompileOutcome outcome;
    outcome.log = "log of " + request.source;
    if (request.source.rfind("error", 0) == 0) {
      outcome.repeatable = true;
      outcome.verdict = {Status::compile_error, "compiler failed: " + request.source};
      return outcome;
    }
    if (request.source.rfind("flaky", 0) == 0) {
      outcome.verdict = {Status::compile_error, "compiler timed out"};
      return outcome;
    }
    outcome.repeatable = true;
    outcome.object = request.directory / "cand.so";
    std::ofstream(outcome.object) << "object of " << request.source;
    return outcome;
  }

 private:
  std::atomic<int> &calls_;
  int delay_ms_;
};

std::string contents(const fs::path &path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

class CachingCompilerTest : public ::testing::Test {
 protected:
  fs::path root = fs::path(::testing::TempDir()) / ("hpcreward-cache-test-" + std::to_string(::getpid()));
  std::atomic<int> calls{0};

  CompileOutcome compile(CachingCompiler &cache, const std::string &source,
                         std::vector<std::string> flags = {"-O3"}) {
    directories.push_back(std::make_unique<WorkDir>(root, "request"));
    return cache.compile({source, std::move(flags), directories.back()->path()});
  }
  void TearDown() override {
    directories.clear();
    remove_tree(root);
  }
  std::vector<std::unique_ptr<WorkDir>> directories;
};

TEST_F(CachingCompilerTest, AnIdenticalSourceCompilesOnce) {
  CachingCompiler cache(std::make_unique<FakeCompiler>(calls), "nvcc 13.0 sm_90a", {root});
  const CompileOutcome first = compile(cache, "A");
  const CompileOutcome second = compile(cache, "A");
  EXPECT_EQ(calls, 1);
  ASSERT_TRUE(second.verdict.ok()) << second.verdict.reason;
  EXPECT_EQ(second.object.parent_path(), directories.back()->path());  // in its own directory
  EXPECT_NE(second.object, first.object);
  EXPECT_EQ(contents(second.object), "object of A");
  EXPECT_EQ(second.log, "log of A");
  EXPECT_EQ(cache.stats().hits, 1u);
  EXPECT_EQ(cache.stats().misses, 1u);
  // Different flags or a different identity are different builds.
  compile(cache, "A", {"-O0"});
  EXPECT_EQ(calls, 2);
  CachingCompiler other(std::make_unique<FakeCompiler>(calls), "nvcc 13.1 sm_90a", {root});
  compile(other, "A");
  EXPECT_EQ(calls, 3);
}

TEST_F(CachingCompilerTest, AHandedOutObjectIsACopy) {
  CachingCompiler cache(std::make_unique<FakeCompiler>(calls), "id", {root});
  const CompileOutcome first = compile(cache, "A");
  const CompileOutcome second = compile(cache, "A");
  std::ofstream(second.object) << "tampered";
  EXPECT_EQ(contents(compile(cache, "A").object), "object of A");
  EXPECT_EQ(contents(first.object), "object of A");
  EXPECT_EQ(calls, 1);
}

TEST_F(CachingCompilerTest, CompileErrorsAreKeptButLimitsAreNot) {
  CachingCompiler cache(std::make_unique<FakeCompiler>(calls), "id", {root});
  const CompileOutcome first = compile(cache, "error: x");
  const CompileOutcome second = compile(cache, "error: x");
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(second.verdict.status, Status::compile_error);
  EXPECT_EQ(second.verdict.reason, first.verdict.reason);
  EXPECT_EQ(second.log, first.log);
  EXPECT_TRUE(second.object.empty());
  compile(cache, "flaky");
  compile(cache, "flaky");
  EXPECT_EQ(calls, 3);
}

TEST_F(CachingCompilerTest, BoundedLeastRecentlyUsed) {
  CachingCompiler cache(std::make_unique<FakeCompiler>(calls), "id", {root, 2});
  compile(cache, "A");
  compile(cache, "B");
  compile(cache, "A");  // A is now the most recent
  compile(cache, "C");  // evicts B
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(cache.stats().entries, 2u);
  compile(cache, "A");
  EXPECT_EQ(calls, 3);
  compile(cache, "B");
  EXPECT_EQ(calls, 4);
  CachingCompiler none(std::make_unique<FakeCompiler>(calls), "id", {root, 0});
  compile(none, "A");
  compile(none, "A");
  EXPECT_EQ(calls, 6);
}

TEST_F(CachingCompilerTest, ConcurrentIdenticalRequestsCompileOnce) {
  CachingCompiler cache(std::make_unique<FakeCompiler>(calls, 100), "id", {root});
  constexpr int kThreads = 8;
  std::vector<std::unique_ptr<WorkDir>> dirs;
  for (int i = 0; i < kThreads; ++i) dirs.push_back(std::make_unique<WorkDir>(root, "thread"));
  std::vector<CompileOutcome> outcomes(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      outcomes[i] = cache.compile({i % 2 == 0 ? "A" : "B", {"-O3"}, dirs[i]->path()});
    });
  for (std::thread &thread : threads) thread.join();
  EXPECT_EQ(calls, 2);
  for (int i = 0; i < kThreads; ++i) {
    ASSERT_TRUE(outcomes[i].verdict.ok()) << outcomes[i].verdict.reason;
    EXPECT_EQ(outcomes[i].object.parent_path(), dirs[i]->path());
    EXPECT_EQ(contents(outcomes[i].object), i % 2 == 0 ? "object of A" : "object of B");
  }
}

TEST_F(CachingCompilerTest, TheCacheDirectoryIsPrivateAndGoesWithTheCache) {
  fs::path directory;
  {
    CachingCompiler cache(std::make_unique<FakeCompiler>(calls), "id", {root});
    compile(cache, "A");
    for (const auto &entry : fs::directory_iterator(root))
      if (entry.path().filename().string().rfind("compile-cache", 0) == 0) directory = entry.path();
    ASSERT_FALSE(directory.empty());
    EXPECT_EQ(fs::status(directory).permissions() & fs::perms::all, fs::perms::owner_all);
  }
  EXPECT_FALSE(fs::exists(directory));
}

TEST(CompileCacheKey, FieldsCannotRunIntoEachOther) {
  const std::string a = compile_cache_key("id", {"xy", {"-O3"}, {}});
  EXPECT_EQ(a, compile_cache_key("id", {"xy", {"-O3"}, "/elsewhere"}));
  EXPECT_NE(a, compile_cache_key("id", {"xy", {"-O3", ""}, {}}));
  EXPECT_NE(compile_cache_key("id", {"a", {"b"}, {}}), compile_cache_key("id", {"", {"ab"}, {}}));
  EXPECT_NE(compile_cache_key("i", {"d", {}, {}}), compile_cache_key("id", {"", {}, {}}));
  EXPECT_NE(a, compile_cache_key("id", {"xy", {"-O3"}, {}, {"cute"}})) << "CuTe's headers on the path";
  EXPECT_EQ(a.size(), 64u);
}

}  // namespace
}  // namespace hpcreward
