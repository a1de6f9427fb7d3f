#include "prompts/prompt_fields.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "bench_node/source_checks/c_preprocessor_policy.hpp"
#include "bench_node/source_checks/preprocessor_rules.hpp"
#include "common/builtin_catalogs.hpp"
#include "common/problem_catalog.hpp"
#include "stages/builtin_ladder.hpp"
#include "techniques/known_techniques.hpp"

namespace hpcreward::prompts {
namespace {

LadderConfig default_ladder() { return parse_ladder_config(builtin_ladder_json(), "default_ladder.json"); }

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

TEST(PromptFields, EveryProblemOfEveryBuiltInCatalogHasAPromptInEveryStageOfItsLanguage) {
  const LadderConfig ladder = default_ladder();
  const PromptTemplate builtin = PromptTemplate::builtin();
  int prompts = 0;
  for (const std::string &name : builtin_catalog_names()) {
    for (const Problem &problem : load_problem_catalog(name).problems) {
      for (const StageSpec &stage : ladder.stages) {
        if (stage.language != problem.language) continue;
        const PromptFields fields = prompt_fields({problem, stage, {}, "the measured GFLOPS"});
        for (const std::string &field : prompt_field_names()) {
          ASSERT_TRUE(fields.count(field)) << field;
          EXPECT_FALSE(fields.at(field).empty()) << problem.id << " " << stage.name << " " << field;
        }
        const std::string text = builtin.render(fields);
        EXPECT_TRUE(contains(text, entry_point_signature(problem))) << problem.id;
        EXPECT_TRUE(contains(text, "stage `" + stage.name + "`")) << problem.id;
        for (const Shape &shape : problem.check_shapes) EXPECT_TRUE(contains(text, to_string(shape))) << problem.id;
        ++prompts;
      }
    }
  }
  EXPECT_GT(prompts, 300);
}

TEST(PromptFields, TheStageSaysWhatItRequiresAllowsAndRefusesInWords) {
  const LadderConfig ladder = default_ladder();
  const ProblemCatalog catalog = load_problem_catalog("default");
  const Problem &dgemm = *catalog.find("dgemm-256");
  const PromptFields o0 = prompt_fields({dgemm, *ladder.find("o0"), {}, "the measured GFLOPS"});
  EXPECT_EQ(o0.at("compiler_flags"), "-O0");
  EXPECT_FALSE(contains(o0.at("forbids"), technique_words("openmp")));  // gcc ignores it without -fopenmp
  EXPECT_TRUE(contains(o0.at("forbids"), "OpenMP directives are ignored here, compiled without -fopenmp"));
  EXPECT_TRUE(contains(o0.at("forbids"), technique_words("avx512")));
  // SIMD as far as the stage's flags compile: SSE2 without -mavx, up to AVX2 with AVX-512's flags.
  EXPECT_TRUE(contains(o0.at("allows"), "SIMD intrinsics of SSE and SSE2")) << o0.at("allows");
  EXPECT_TRUE(contains(o0.at("allows"), "`_mm256_*` do not build here and are refused"));
  const PromptFields blocking = prompt_fields({dgemm, *ladder.find("blocking"), {}, "the measured GFLOPS"});
  EXPECT_TRUE(contains(blocking.at("requires"), technique_words("blocking")));
  EXPECT_FALSE(contains(blocking.at("allows"), technique_words("blocking")));
  EXPECT_EQ(blocking.at("forbids"), "none of the techniques the stages know");
  EXPECT_TRUE(contains(blocking.at("allows"), technique_words("simd"))) << "-mavx512f compiles AVX2 too";
  const PromptFields openmp = prompt_fields({dgemm, *ladder.find("openmp"), {}, "the measured GFLOPS"});
  EXPECT_FALSE(contains(openmp.at("forbids"), "ignored")) << "compiled with -fopenmp";


  const Problem &hgemm = *catalog.find("cuda-hgemm-4096");
  const PromptFields tensor = prompt_fields({hgemm, *ladder.find("cuda-tensor"), {}, "the measured GFLOPS"});
  EXPECT_TRUE(contains(tensor.at("requires"), technique_words("tensor")));
  EXPECT_TRUE(contains(tensor.at("forbids"), technique_words("async")));
  EXPECT_FALSE(contains(tensor.at("includes"), "cute/"));
  const PromptFields cute = prompt_fields({hgemm, *ladder.find("cuda-cute"), {}, "the measured GFLOPS"});
  EXPECT_TRUE(contains(cute.at("includes"), "cute/tensor.hpp"));
  EXPECT_TRUE(contains(cute.at("precision"), "accumulated in fp32"));
  EXPECT_TRUE(contains(cute.at("precision"), "an fp16 accumulator fails the checks"));
}

// A problem that allows fp16 accumulation says so, in the precision and in the contract.
TEST(PromptFields, AnFp16AccumulationProblemTellsTheModelAnFp16AccumulatorIsAllowed) {
  const ProblemCatalog l2 = load_problem_catalog("cuda-l2");
  const LadderConfig ladder = default_ladder();
  const PromptFields fields = prompt_fields({*l2.find("l2-4096x4096x4096-nt-f16acc"), *ladder.find("cuda-cute"), {}, "GFLOPS"});
  EXPECT_TRUE(contains(fields.at("precision"), "fp16 accumulation is allowed")) << fields.at("precision");
  EXPECT_FALSE(contains(fields.at("precision"), "accumulated in fp32"));
  EXPECT_TRUE(contains(fields.at("abi"), "fp16 accumulation allowed")) << fields.at("abi");
  const PromptFields fp32 = prompt_fields({*l2.find("l2-4096x4096x4096-nt"), *ladder.find("cuda-cute"), {}, "GFLOPS"});
  EXPECT_TRUE(contains(fp32.at("precision"), "accumulated in fp32"));
}

TEST(PromptFields, TheCRulesSayWhatTheCheckerRefusesThatGccOnlyWarnsAbout) {
  // gcc 12 compiles a call before the declaration with a warning; the source checks refuse it
  // (SourceChecks.AFunctionCalledBeforeItsDeclarationIsRefusedWithWhatToDeclare).
  const ProblemCatalog catalog = load_problem_catalog("default");
  const PromptFields c = prompt_fields({*catalog.find("dgemm-256"), *default_ladder().find("o3"), {}, "GFLOPS"});
  EXPECT_TRUE(contains(c.at("rules"), "declare every function before its first call")) << c.at("rules");
}

TEST(PromptFields, EveryTechniqueTheDetectorsKnowHasWords) {
  for (std::string_view name : techniques::kCTechniques) EXPECT_NE(technique_words(name), name);
  for (std::string_view name : techniques::kCudaTechniques) EXPECT_NE(technique_words(name), name);
}

// Every header the prompt names for C passes the source checks' directive rules.
TEST(PromptFields, TheCHeadersNamedPassTheIncludeRule) {
  const LadderConfig ladder = default_ladder();
  const StageSpec &o3 = *ladder.find("o3");
  for (std::string_view header : allowed_headers(Language::c, o3)) {
    const std::string line = "#include <" + std::string(header) + ">\n";
    const auto tokens = source_checks::lex_c(line);
    EXPECT_TRUE(source_checks::preprocessor_findings(tokens, source_checks::c_preprocessor_table()).empty()) << line;
  }
  const ProblemCatalog catalog = load_problem_catalog("default");
  const PromptFields fields = prompt_fields({*catalog.find("dgemm-256"), o3, {}, "GFLOPS"});
  EXPECT_TRUE(contains(fields.at("includes"), "stdio.h")) << fields.at("includes");
  EXPECT_TRUE(contains(fields.at("includes"), "omp_* functions do not link here")) << fields.at("includes");
  const PromptFields openmp = prompt_fields({*catalog.find("dgemm-256"), *ladder.find("openmp"), {}, "GFLOPS"});
  EXPECT_FALSE(contains(openmp.at("includes"), "do not link here")) << openmp.at("includes");
}

TEST(PromptFields, AProblemOfOneShapeSaysSoInsteadOfNamingCheckShapes) {
  const LadderConfig ladder = default_ladder();
  const Problem one_shape = *load_problem_catalog("cuda-l2").find("l2-1024x64x128-nt");
  const PromptFields fields = prompt_fields({one_shape, *ladder.find("cuda-cute"), {}, "the measured GFLOPS"});
  EXPECT_TRUE(contains(fields.at("check_shapes"), "verified at the timed shape alone")) << fields.at("check_shapes");
  const Problem derived = *load_problem_catalog("default").find("cuda-hgemm-4096");
  EXPECT_TRUE(contains(prompt_fields({derived, *ladder.find("cuda-naive"), {}, "the measured GFLOPS"}).at("check_shapes"),
                       "never assume them"));
}

TEST(PromptFields, TheToleranceAndTheRewardAreTheRunsOwn) {
  const LadderConfig ladder = default_ladder();
  Problem problem = *load_problem_catalog("gemm-kinds").find("cuda-bf16-nt-4096");
  problem.tolerance = 0.0123;
  const PromptFields fields = prompt_fields({problem, *ladder.find("cuda-naive"), {},
                                             "the measured GFLOPS over the best yardstick"});
  EXPECT_TRUE(contains(fields.at("tolerance"), "0.0123"));
  EXPECT_TRUE(contains(fields.at("reward"), "over the best yardstick"));
  EXPECT_TRUE(contains(fields.at("abi"), "B given as its transpose"));
  EXPECT_TRUE(contains(fields.at("answer_format"), "```cuda"));
  // A query that still holds its prompt (OpenRLHF without prompts) must not open a reasoning section.
  EXPECT_FALSE(contains(fields.at("answer_format"), "<"));
}

TEST(PromptFields, TheNodeIsTheRanksOwnHardware) {
  const LadderConfig ladder = default_ladder();
  const ProblemCatalog catalog = load_problem_catalog("default");
  const Problem &hgemm = *catalog.find("cuda-hgemm-4096");
  NodeDescription h200;
  h200.kind = "gpu";
  h200.gpu.name = "NVIDIA H200";
  h200.gpu.arch = "sm_90a";
  h200.gpu.compute_capability = "9.0";
  h200.gpu.multiprocessors = 132;
  h200.gpu.memory_bytes = 150ull << 30;
  const PromptFields fields = prompt_fields({hgemm, *ladder.find("cuda-naive"), {h200}, "the measured GFLOPS"});
  EXPECT_EQ(fields.at("node"), "NVIDIA H200 (sm_90a, compute capability 9.0, 132 SMs, 150 GiB of memory)");
  NodeDescription cpu;
  cpu.cpu_model = "AMD EPYC 9654";
  cpu.cores = 1;
  cpu.avx512 = true;
  EXPECT_EQ(cpu.text(), "AMD EPYC 9654, 1 core for your code, AVX-512: yes");
}

}  // namespace
}  // namespace hpcreward::prompts
