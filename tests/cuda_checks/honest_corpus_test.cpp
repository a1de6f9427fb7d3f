// The honest idioms of tests/gpu/cases/honest_*.cu through every check a GPU rank runs before
// a candidate runs (source checks, nvcc, the object audit, technique detection for the stage
// the case's first line names). The runner is a fake: nothing is loaded or run here;
// tests/gpu/gpu_corpus.py runs them for real on a GPU. Also: the host memory bomb reaches the
// runner (only the child's RLIMIT_DATA stops it).
#include <regex>
#include <set>

#include "nvcc_support.hpp"

namespace hpcreward::cuda_test {
namespace {

const std::filesystem::path kCases = HPCREWARD_GPU_CASES_DIR;

// Every idiom the corpus must keep passing; a case file that is missing fails its test.
const char *const kHonestCases[] = {
    "honest_device_helper", "honest_templates",  "honest_launch_bounds",  "honest_dynamic_smem",
    "honest_splitk_workspace", "honest_constant_memory", "honest_streams", "honest_coop_shuffle",
    "honest_wmma_dgemm", "honest_wmma_hgemm", "honest_async_alloc", "honest_tf32_truncated",
    "honest_cute_hgemm", "honest_cute_bf16_nt", "honest_host_error_checks", "honest_device_printf",
    "honest_cute_tma_wgmma"};

// Scores the case `name` through the rank's pre-run checks with the stage its first line names
// (the runner is CountingRunner): what the checks say, and whether the runner was reached.
Measurement score_case(const std::string &name, const std::string &expected_status, int &runs) {
  const std::filesystem::path path = kCases / (name + ".cu");
  EXPECT_TRUE(std::filesystem::is_regular_file(path)) << path;
  const std::string source = read_text(path);
  std::smatch header;
  const std::string first_line = source.substr(0, source.find('\n'));
  if (!std::regex_search(first_line, header,
                         std::regex(R"(^// expect: (\w+) +problem: ([\w-]+) +stage: ([\w-]+))"))) {
    ADD_FAILURE() << "no expect/problem/stage line: " << first_line;
    return {};
  }
  EXPECT_EQ(header[1], expected_status);
  return score_before_run(header[2].str(), header[3].str(), source, runs);
}

class HonestCudaCorpus : public ::testing::TestWithParam<const char *> {};

TEST_P(HonestCudaCorpus, PassesEveryCheckBeforeTheRun) {
  REQUIRE_CUDA_TOOLS();
  int runs = 0;
  const Measurement m = score_case(GetParam(), "ok", runs);
  EXPECT_EQ(m.status, Status::ok) << m.reason;
  EXPECT_EQ(runs, 1);
  EXPECT_TRUE(m.techniques.detected);
}

// Host memory is the runner's to bound (RLIMIT_DATA), not the checks': the bomb must reach it.
TEST(HonestCudaCorpusSandboxOnly, TheHostMemoryBombReachesTheRunner) {
  REQUIRE_CUDA_TOOLS();
  int runs = 0;
  const Measurement m = score_case("host_memory_bomb", "runtime_error", runs);
  EXPECT_EQ(m.status, Status::ok) << m.reason;  // the fake runner's answer
  EXPECT_EQ(runs, 1);
}

// CuTe's own <iostream> constructor is kept out of the CuTe stage's objects; a candidate's own
// load-time code is not, and the object audit refuses it before anything is loaded.
TEST(CuteStage, ACandidatesOwnLoadTimeCodeIsStillRefused) {
  REQUIRE_CUDA_TOOLS();
  int runs = 0;
  const Measurement m = score_case("cute_load_time_code", "forbidden", runs);
  EXPECT_EQ(m.status, Status::forbidden) << m.reason;
  EXPECT_NE(m.reason.find("constructor"), std::string::npos) << m.reason;
  EXPECT_EQ(runs, 0);
}

// Reaching libc's `open` and `write` by pointer arithmetic names nothing a check before the run
// can refuse: only the executor's Landlock ruleset stops this case, so it must reach the runner
// (tests/gpu/gpu_corpus.py runs it on a GPU and checks the file it aims at).
TEST(HonestCudaCorpusSandboxOnly, TheFileWriterByAddressReachesTheRunner) {
  REQUIRE_CUDA_TOOLS();
  int runs = 0;
  const Measurement m = score_case("opens_file_by_address", "ok", runs);
  EXPECT_EQ(m.status, Status::ok) << m.reason;
  EXPECT_EQ(runs, 1);
}

// A candidate in control of its own process: each of these reaches a libc call by address, which
// no check before the run can see, so each must reach the runner, where the executor's filter
// alone decides (its status on a GPU is the case's first line, checked by gpu_corpus.py).
struct SandboxOnlyCase {
  const char *name;
  const char *expected_on_a_gpu;
};
const SandboxOnlyCase kSandboxOnlyCases[] = {{"thread_by_address", "forbidden"},
                                             {"exec_memory_by_address", "forbidden"},
                                             {"shm_by_address", "forbidden"},
                                             {"priority_by_address", "forbidden"},
                                             {"affinity_by_address", "wrong_answer"},
                                             {"metadata_by_address", "forbidden"},
                                             // Bugs that end the process: the status is the run's.
                                             {"exits_in_call", "runtime_error"},
                                             {"aborts_in_call", "runtime_error"},
                                             {"throws_in_call", "runtime_error"}};

class SandboxOnlyCudaCase : public ::testing::TestWithParam<SandboxOnlyCase> {};

TEST_P(SandboxOnlyCudaCase, ReachesTheRunner) {
  REQUIRE_CUDA_TOOLS();
  int runs = 0;
  const Measurement m = score_case(GetParam().name, GetParam().expected_on_a_gpu, runs);
  EXPECT_EQ(m.status, Status::ok) << m.reason;  // the fake runner's answer
  EXPECT_EQ(runs, 1);
}

INSTANTIATE_TEST_SUITE_P(Cases, SandboxOnlyCudaCase, ::testing::ValuesIn(kSandboxOnlyCases),
                         [](const auto &info) { return std::string(info.param.name); });

INSTANTIATE_TEST_SUITE_P(Cases, HonestCudaCorpus, ::testing::ValuesIn(kHonestCases),
                         [](const auto &info) { return std::string(info.param); });

TEST(HonestCudaCorpusList, NamesEveryHonestCase) {
  std::set<std::string> listed(std::begin(kHonestCases), std::end(kHonestCases)), found;
  for (const auto &entry : std::filesystem::directory_iterator(kCases)) {
    const std::string name = entry.path().stem().string();
    if (name.rfind("honest_", 0) == 0 && entry.path().extension() == ".cu") found.insert(name);
  }
  EXPECT_EQ(found, listed);
}

}  // namespace
}  // namespace hpcreward::cuda_test
