// One parse per candidate: what the source checks' child reads about techniques from its own
// parse must be exactly what technique detection finds when it parses on its own, for every
// shipped sample and test candidate under every stage's flags; and the memo hands it only to
// the very task it was read for.
#include "bench_node/source_checks/technique_memo.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench_node/source_checks/omp_header.hpp"
#include "bench_node/source_checks/source_checks.hpp"
#include "bench_node/rank/technique_check.hpp"
#include "check_support.hpp"
#include "techniques/technique_json.hpp"

namespace hpcreward::source_checks {
namespace {

using source_checks_test::task;

std::string read(const std::filesystem::path &path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::filesystem::path> candidate_files() {
  std::vector<std::filesystem::path> files;
  for (const char *folder : {HPCREWARD_SAMPLES_DIR, HPCREWARD_CANDIDATES_DIR})
    for (const auto &entry : std::filesystem::directory_iterator(folder))
      if (entry.path().extension() == ".c") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::vector<std::string>> stage_flags() {
  std::vector<std::vector<std::string>> flags;
  const nlohmann::json ladder = nlohmann::json::parse(read(HPCREWARD_DEFAULT_LADDER));
  for (const auto &stage : ladder.at("stages"))
    if (!stage.contains("language") || stage.at("language") == "c")
      flags.push_back(stage.at("flags").get<std::vector<std::string>>());
  std::sort(flags.begin(), flags.end());  // stages with the same flags parse alike
  flags.erase(std::unique(flags.begin(), flags.end()), flags.end());
  return flags;
}

TEST(SourceTechniqueMemo, OneParseFindsWhatDetectionAloneFinds) {
  char pattern[] = "/tmp/hpcreward-technique-memo-test-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const std::filesystem::path root = pattern;
  const std::filesystem::path include_dir = root / "include";
  const bool have_omp = install_compiler_omp_header("gcc", include_dir);

  auto memo = std::make_shared<SourceTechniqueMemo>();
  SourceCheckOptions options;
  options.technique_memo = memo;
  SourceChecks checks(options);
  int compared = 0;
  ASSERT_GE(candidate_files().size(), 30u);
  ASSERT_GE(stage_flags().size(), 5u);
  std::int64_t sequence = 0;
  for (const std::filesystem::path &file : candidate_files())
    for (const std::vector<std::string> &flags : stage_flags()) {
      const std::string name = file.filename().string();
      BenchTask t = task(read(file), flags,
                         name.rfind("sgemm", 0) == 0 || name == "correct_sgemm.c" ? "sgemm-256"
                                                                                  : "dgemm-256");
      t.sequence = ++sequence;
      if (!checks.check_source(t).ok()) {
        EXPECT_FALSE(memo->recall(t)) << name;  // refused candidates never reach detection
        continue;
      }
      const auto remembered = memo->recall(t);
      ASSERT_TRUE(remembered) << name;
      ASSERT_FALSE(remembered->failure) << name << ": " << *remembered->failure;
      const techniques::SourceTechniques alone = techniques::detect_in_source(
          t.source, flags, have_omp ? include_dir : std::filesystem::path());
      EXPECT_EQ(techniques::to_json(remembered->found).dump(), techniques::to_json(alone).dump())
          << name << " with " << nlohmann::json(flags).dump();
      ++compared;
    }
  std::filesystem::remove_all(root);
  EXPECT_GE(compared, 60) << "too few candidates passed the checks to compare";
}

TEST(SourceTechniqueMemo, RecallsOnlyTheSameTask) {
  SourceTechniqueMemo memo;
  BenchTask t = task("int x;", {"-O3"});
  t.sequence = 7;
  SourceTechniqueFindings findings;
  findings.found.parsed = true;
  findings.found.omp_directives = 2;
  memo.remember(t, findings);
  ASSERT_TRUE(memo.recall(t));
  EXPECT_EQ(memo.recall(t)->found.omp_directives, 2);

  BenchTask other_source = t;
  other_source.source += " ";
  BenchTask other_flags = t;
  other_flags.compiler_flags.push_back("-fopenmp");
  BenchTask other_sequence = t;
  other_sequence.sequence = 8;
  EXPECT_FALSE(memo.recall(other_source));
  EXPECT_FALSE(memo.recall(other_flags));
  EXPECT_FALSE(memo.recall(other_sequence));
}

TEST(SourceTechniqueMemo, KeepsOnlyTheLatestTasks) {
  SourceTechniqueMemo memo;
  BenchTask first = task("int x;", {"-O3"});
  first.sequence = 1;
  memo.remember(first, {});
  for (int i = 2; i <= 40; ++i) {
    BenchTask later = first;
    later.sequence = i;
    memo.remember(later, {});
  }
  EXPECT_FALSE(memo.recall(first));
  BenchTask last = first;
  last.sequence = 40;
  EXPECT_TRUE(memo.recall(last));
}

// The technique step takes the memo's findings for its task instead of parsing: a failure
// there fails the candidate as the step's own would, before the object is read.
TEST(SourceTechniqueMemo, ATechniqueStepTakesAFailureFromTheMemo) {
  auto memo = std::make_shared<SourceTechniqueMemo>();
  BenchTask t = task(source_checks_test::kMatmul, {"-O3"});
  t.sequence = 3;
  SourceTechniqueFindings failed;
  failed.failure = "it ran past its 10 s limit";
  memo->remember(t, failed);
  TechniqueCheckOptions options;
  options.source_memo = memo;
  TechniqueCheck step(options);
  const TechniqueAssessment assessment = step.assess(t, "/nonexistent/cand.so");
  EXPECT_EQ(assessment.verdict.status, Status::constraint_violation);
  EXPECT_EQ(assessment.verdict.reason,
            "technique detection failed: it ran past its 10 s limit; the stage's technique "
            "rules could not be checked");
  EXPECT_FALSE(assessment.summary.detected);
  EXPECT_FALSE(step.explain_compile_failure(t));  // a failed detection leaves the compile_error
}

TEST(SourceTechniqueMemo, ACompileFailureIsExplainedFromTheMemo) {
  auto memo = std::make_shared<SourceTechniqueMemo>();
  // The text shows no technique: only the memo's findings can name AVX-512.
  BenchTask t = task(source_checks_test::kMatmul, {"-O3"});
  t.sequence = 4;
  t.stage = "o3";
  SourceTechniqueFindings findings;
  findings.found.parsed = true;
  findings.found.avx512_uses = 1;
  findings.found.evidence = "_mm512_set1_pd at line 3";
  memo->remember(t, findings);
  TechniqueCheckOptions options;
  options.source_memo = memo;
  TechniqueCheck step(options);
  const std::optional<Verdict> verdict = step.explain_compile_failure(t);
  ASSERT_TRUE(verdict);
  EXPECT_EQ(verdict->status, Status::constraint_violation);
  EXPECT_NE(verdict->reason.find("stage o3 does not allow avx512"), std::string::npos)
      << verdict->reason;
  BenchTask unseen = t;
  unseen.sequence = 5;  // not in the memo: parsed in the step's own child, nothing found
  EXPECT_FALSE(step.explain_compile_failure(unseen));
}

TEST(SourceTechniqueMemo, ChecksWithoutAMemoStillJudge) {
  SourceChecks checks;  // the default: the verdict only, no techniques read
  EXPECT_TRUE(checks.check_source(task(source_checks_test::kMatmul)).ok());
}

}  // namespace
}  // namespace hpcreward::source_checks
