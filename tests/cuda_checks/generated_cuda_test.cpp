// The CUDA candidates of the built-in generator (train_bridge/generator/hpcreward_generator/
// cuda_kernels.py) through every check a GPU rank runs before a candidate runs: source checks,
// nvcc, the object audit, SASS technique detection against the candidate's stage. The samples
// (per stage and precision: the smallest and largest valid genome, both values of each open
// switch, a seeded random one, marked "(corner)"; and genomes the MAP-Elites loop's own
// random/mutate/repair made for the stage, marked "(loop)") are written by ctest's fixture
// generator.cuda_samples into $HPCREWARD_GENERATED_CUDA_DIR with a manifest: file, problem,
// stage, claimed techniques, label. The runner is a fake: nothing is loaded or run (no GPU here).
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <future>
#include <set>
#include <sstream>

#include "nvcc_support.hpp"

namespace hpcreward::cuda_test {
namespace {

struct Sample {
  std::string file, problem, stage, label;
  std::vector<std::string> claim;  // what techniques() says the SASS holds
};

std::vector<Sample> read_manifest(const std::filesystem::path &directory) {
  std::vector<Sample> samples;
  std::ifstream in(directory / "manifest.tsv");
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    Sample sample;
    std::string claim;
    if (!std::getline(fields, sample.file, '\t') || !std::getline(fields, sample.problem, '\t') ||
        !std::getline(fields, sample.stage, '\t') || !std::getline(fields, claim, '\t') ||
        !std::getline(fields, sample.label)) {
      ADD_FAILURE() << "bad manifest line: " << line;
      continue;
    }
    std::istringstream names(claim);
    for (std::string name; std::getline(names, name, ',');)
      if (name != "-") sample.claim.push_back(name);
    samples.push_back(sample);
  }
  return samples;
}

TEST(GeneratedCuda, EverySamplePassesEveryCheckAndShowsItsClaim) {
  REQUIRE_CUDA_TOOLS();
  const char *dir = std::getenv("HPCREWARD_GENERATED_CUDA_DIR");
  if (dir == nullptr) GTEST_SKIP() << "HPCREWARD_GENERATED_CUDA_DIR not set (ctest's fixture sets it)";
  const std::filesystem::path directory = dir;
  const std::vector<Sample> samples = read_manifest(directory);
  ASSERT_GE(samples.size(), 16u) << "every CUDA stage x precision (f64, f32, f16, bf16)";
  std::set<std::pair<std::string, std::string>> from_loop;  // (stage, problem) with a loop-made sample
  for (const Sample &sample : samples)
    if (sample.label.ends_with("(loop)")) from_loop.insert({sample.stage, sample.problem});
  EXPECT_EQ(from_loop.size(), 16u) << "the loop's genomes of every CUDA stage x precision";

  // Two at a time (nvcc is most of the time); every check is thread-safe.
  std::vector<int> runs(samples.size(), 0);
  std::vector<Measurement> results(samples.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i; (i = next++) < samples.size();) {
      const Sample &sample = samples[i];
      results[i] = score_before_run(sample.problem, sample.stage, read_text(directory / sample.file), runs[i]);
    }
  };
  std::future<void> other = std::async(std::launch::async, worker);
  worker();
  other.get();

  for (std::size_t i = 0; i < samples.size(); ++i) {
    const Sample &s = samples[i];
    SCOPED_TRACE(s.file + " " + s.problem + " " + s.stage + " " + s.label);
    EXPECT_EQ(results[i].status, Status::ok) << results[i].reason;
    EXPECT_EQ(runs[i], 1) << "the runner was not reached";
    EXPECT_TRUE(results[i].techniques.detected);
    EXPECT_EQ(results[i].techniques.techniques, s.claim) << results[i].techniques.evidence;
  }
}

}  // namespace
}  // namespace hpcreward::cuda_test
