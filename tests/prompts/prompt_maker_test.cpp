#include "prompts/prompt_maker.hpp"

#include <gtest/gtest.h>

#include <string>

#include "common/cpu_model.hpp"
#include "stages/builtin_ladder.hpp"

namespace hpcreward::prompts {
namespace {

PromptMaker maker(std::vector<RankInfo> ranks = {}) {
  NodeDescription here;
  here.cpu_model = "Fallback CPU";
  here.cores = 3;
  return PromptMaker(load_problem_catalog("default"),
                     parse_ladder_config(builtin_ladder_json(), "default_ladder.json"), PromptTemplate::builtin(),
                     std::move(ranks), {here}, "the measured GFLOPS");
}

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

TEST(PromptMaker, WithoutAStageThePromptIsTheCurrentStages) {
  const auto first = maker().make("dgemm-256", "", {});
  ASSERT_TRUE(std::holds_alternative<Prompt>(first));
  EXPECT_EQ(std::get<Prompt>(first).stage, "o0");  // no run yet: the ladder's first
  EXPECT_TRUE(std::get<Prompt>(first).current_stage);

  const auto advanced = maker().make("dgemm-256", "", {{"dgemm-256", "openmp"}});
  const Prompt &prompt = std::get<Prompt>(advanced);
  EXPECT_EQ(prompt.stage, "openmp");
  EXPECT_TRUE(contains(prompt.text, "This is stage `openmp`, compiled with `-O3 -fopenmp`"));

  const auto named = maker().make("dgemm-256", "avx512", {{"dgemm-256", "openmp"}});
  EXPECT_EQ(std::get<Prompt>(named).stage, "avx512");
  EXPECT_FALSE(std::get<Prompt>(named).current_stage);
  const auto cuda = maker().make("cuda-sgemm-1024", "", {{"dgemm-256", "openmp"}});
  EXPECT_EQ(std::get<Prompt>(cuda).stage, "cuda-naive");
}

TEST(PromptMaker, AnUnknownProblemOrAStageThatDoesNotFitSaysWhatToFix) {
  const auto unknown = maker().make("zgemm-7", "", {});
  ASSERT_TRUE(std::holds_alternative<PromptRefusal>(unknown));
  EXPECT_TRUE(std::get<PromptRefusal>(unknown).not_found);
  EXPECT_TRUE(contains(std::get<PromptRefusal>(unknown).message, "dgemm-256")) << std::get<PromptRefusal>(unknown).message;

  const auto other_language = maker().make("dgemm-256", "cuda-smem", {});
  ASSERT_TRUE(std::holds_alternative<PromptRefusal>(other_language));
  const PromptRefusal &refusal = std::get<PromptRefusal>(other_language);
  EXPECT_FALSE(refusal.not_found);
  EXPECT_TRUE(contains(refusal.message, "stage cuda-smem is for cuda problems")) << refusal.message;
  EXPECT_TRUE(contains(refusal.message, "o0, o3, openmp, avx512, blocking, open")) << refusal.message;

  const auto typo = maker().make("dgemm-256", "o4", {});
  EXPECT_TRUE(contains(std::get<PromptRefusal>(typo).message, "no stage o4 in the ladder"));
}

TEST(PromptMaker, TheHardwareIsTheRanksOfTheProblemsLanguageElseTheFallback) {
  RankInfo cpu;
  cpu.kind = "cpu";
  cpu.cpu_model = "Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz";
  cpu.cores = 8;
  cpu.avx512 = true;
  cpu.compiler_version = "gcc 12.2.0";
  RankInfo gpu;
  gpu.kind = "gpu";
  gpu.gpu.name = "NVIDIA H200";
  gpu.gpu.arch = "sm_90a";
  RankInfo same_gpu = gpu;
  same_gpu.rank = 3;
  const PromptMaker with_ranks = maker({cpu, gpu, same_gpu});
  const std::string c_text = std::get<Prompt>(with_ranks.make("dgemm-256", "", {})).text;
  EXPECT_TRUE(contains(c_text, "Your code runs on: Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz, 8 cores for "
                               "your code, AVX-512: yes; compiler gcc 12.2.0."))
      << c_text;
  const std::string cuda_text = std::get<Prompt>(with_ranks.make("cuda-hgemm-1024", "", {})).text;
  EXPECT_TRUE(contains(cuda_text, "Your code runs on: NVIDIA H200 (sm_90a).")) << cuda_text;  // two alike: one

  const std::string fallback = std::get<Prompt>(maker().make("dgemm-256", "", {})).text;
  EXPECT_TRUE(contains(fallback, "Fallback CPU, 3 cores for your code")) << fallback;
  const std::string no_gpu = std::get<Prompt>(maker().make("cuda-hgemm-1024", "", {})).text;
  EXPECT_TRUE(contains(no_gpu, "an NVIDIA GPU whose rank has not described it yet")) << no_gpu;
}

TEST(CpuModel, TheFirstModelNameOfCpuinfo) {
  EXPECT_EQ(cpu_model_from_cpuinfo("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9654 96-Core "
                                   "Processor\nflags\t: fpu\n\nprocessor\t: 1\nmodel name\t: other\n"),
            "AMD EPYC 9654 96-Core Processor");
  EXPECT_EQ(cpu_model_from_cpuinfo("processor\t: 0\nCPU implementer\t: 0x41\n"), "");
}

}  // namespace
}  // namespace hpcreward::prompts
