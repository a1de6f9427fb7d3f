// Technique detection on the rank, end to end: real candidates compiled by gcc under each
// stage of stages/default_ladder.json and scored by a Scorer with every default check (source
// checks, object audit, the technique step) and the built hpcreward-runner.
#include "bench_node/rank/technique_check.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench_node/rank/default_checks.hpp"
#include "bench_node/rank/rank_info.hpp"
#include "bench_node/rank/scorer.hpp"
#include "bench_node/process/work_dir.hpp"
#include "stages/ladder_config.hpp"
#include "techniques/summary_text.hpp"
#include "tests/bench_node/candidate_support.hpp"
#include "tests/support/quick_bench_options.hpp"
#include "tests/techniques/candidates.hpp"

namespace hpcreward {
namespace {

namespace kernels = techniques::testing;

// The detection tests' kernels (C += A * B, named gemm) behind the candidate ABI (C is
// overwritten): the wrapper zeroes C, which adds no technique and no update of the C += A*B form.
std::string as_matmul(const char *kernel) {
  return std::string(kernel) + R"(
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (long x = 0; x < (long)m * n; ++x) C[x] = 0.0;
  gemm(m, n, k, A, B, C);
}
)";
}

const LadderConfig &ladder() {
  static const LadderConfig config = load_ladder_config(HPCREWARD_DEFAULT_LADDER);
  return config;
}

BenchTask task_in_stage(const std::string &stage_name, const std::string &name,
                        const std::string &source) {
  static std::int64_t sequence = 0;
  const StageSpec *stage = ladder().find(stage_name);
  EXPECT_NE(stage, nullptr) << stage_name;
  BenchTask task;
  task.sequence = ++sequence;
  task.candidate_id = name;
  task.problem = small_problem();
  task.stage = stage->name;
  task.compiler_flags = stage->compiler_flags;
  task.techniques_allowed = stage->techniques_allowed;
  task.techniques_required = stage->techniques_required;
  task.source = source;
  task.seed = 4242;
  return task;
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

class TechniqueCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options = quick_bench_options(HPCREWARD_RUNNER_PATH, "hpcreward-technique-check-test");
    // The table needs statuses, not precise timings: a few calls suffice.
    options.timing.warmup_s = 0;
    options.timing.min_reps = 2;
    options.timing.time_cap_s = 0.02;
  }
  void TearDown() override { remove_tree(options.work_root); }

  // A Scorer as every rank has one (add_default_checks), made on first use.
  Scorer &scorer() {
    if (!scorer_) {
      scorer_ = std::make_unique<Scorer>(options);
      add_default_checks(*scorer_, options);
    }
    return *scorer_;
  }

  Measurement score(const BenchTask &task) {
    const auto start = std::chrono::steady_clock::now();
    Measurement m = scorer().score(task);
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%-18s %-9s %-20s [%s] %.2f s: %s\n", task.candidate_id.c_str(),
                task.stage.c_str(), std::string(to_string(m.status)).c_str(),
                techniques_text(m.techniques).c_str(), wall_s, m.reason.c_str());
    return m;
  }

  BenchOptions options;
  std::unique_ptr<Scorer> scorer_;
};

// ---- The decision table: candidate x stage -> status -------------------------------------

// What one cell expects: the status and, for a constraint_violation, every part its reason
// must name ("does not allow blocking", "requires openmp").
struct Expected {
  Status status;
  std::vector<std::string> reason_parts = {};
};

const Expected kOk{Status::ok};
// Intrinsics without -mavx512f do not compile; the source shows the technique the stage
// does not allow, and that is the decision.
const Expected kAvx512NotAllowed{Status::constraint_violation, {"does not allow avx512", "does not compile"}};
Expected refused(std::vector<std::string> parts) {
  return {Status::constraint_violation, std::move(parts)};
}
const Expected kNeedsOpenmp = refused({"stage openmp requires openmp"});
const Expected kNeedsAvx512 = refused({"stage avx512 requires avx512"});
const Expected kNeedsBlocking = refused({"stage blocking requires blocking"});

struct Row {
  std::string name;
  std::string source;
  bool runs_avx512;                        // skipped on a CPU without AVX-512
  std::map<std::string, Expected> stages;  // every C stage of default_ladder.json
};

// The decision for a candidate without any technique: plain C is what o0, o3 and open take.
std::map<std::string, Expected> plain_c() {
  return {{"o0", kOk},           {"o3", kOk},           {"openmp", kNeedsOpenmp},
          {"avx512", kNeedsAvx512}, {"blocking", kNeedsBlocking}, {"open", kOk}};
}

// A public simd helper: gcc exports its variants for every ISA (SSE2 to AVX-512) at any flags;
// those beyond the stage's are made unreachable, so it is plain C wherever it is.
constexpr const char *kSimdHelper = R"(
__attribute__((simd)) double scaled(double a, double b, double c) { return a * b + c; }
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (long x = 0; x < (long)m * n; ++x) C[x] = 0.0;
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) C[i * n + j] = scaled(A[i * k + p], B[p * n + j], C[i * n + j]);
}
)";

std::vector<Row> table() {
  return {
      {"simd_helper", kSimdHelper, false, plain_c()},
      // No technique at all.
      {"plain", as_matmul(kernels::kPlainIkj), false, plain_c()},
      // OpenMP: a `#pragma omp parallel for` that gcc ignores without -fopenmp (o0, o3) is no
      // use of OpenMP: the code runs serially, plain C, and the object imports no GOMP_*.
      {"openmp", as_matmul(kernels::kOpenmp), false,
       {{"o0", kOk},
        {"o3", kOk},
        {"openmp", kOk},
        {"avx512", kNeedsAvx512},
        {"blocking", kNeedsBlocking},
        {"open", kOk}}},
      {"mentions_openmp", candidate("mentions_openmp.c"), false, plain_c()},
      // AVX-512 intrinsics: gcc refuses them where the stage's flags do not enable AVX-512.
      {"avx512", as_matmul(kernels::kAvx512), true,
       {{"o0", kAvx512NotAllowed},
        {"o3", kAvx512NotAllowed},
        {"openmp", kAvx512NotAllowed},
        {"avx512", kOk},
        {"blocking", kNeedsBlocking},
        {"open", kOk}}},
      {"mentions_avx512", candidate("mentions_avx512.c"), false, plain_c()},
      // Cache blocking: only the blocking and open stages allow it.
      {"blocking", as_matmul(kernels::kBlocked2), false,
       {{"o0", refused({"stage o0 does not allow blocking"})},
        {"o3", refused({"stage o3 does not allow blocking"})},
        {"openmp", refused({"stage openmp does not allow blocking", "requires openmp"})},
        {"avx512", refused({"stage avx512 does not allow blocking", "requires avx512"})},
        {"blocking", kOk},
        {"open", kOk}}},
      {"mentions_blocking", candidate("mentions_blocking.c"), false, plain_c()},
      // All three, the intrinsics and tiles inside the OpenMP region.
      {"all_three", candidate("all_three.c"), true,
       {{"o0", kAvx512NotAllowed},
        {"o3", kAvx512NotAllowed},
        {"openmp", kAvx512NotAllowed},
        {"avx512", refused({"stage avx512 does not allow blocking"})},
        {"blocking", kOk},
        {"open", kOk}}},
  };
}

void PrintTo(const Row &row, std::ostream *out) { *out << row.name; }

class StageTable : public TechniqueCheckTest, public ::testing::WithParamInterface<Row> {};

TEST_P(StageTable, DecisionPerStage) {
  const Row &row = GetParam();
  if (row.runs_avx512 && !cpu_supports_avx512())
    GTEST_SKIP() << "this CPU lacks AVX-512: " << row.name << " cannot run";
  // C candidates against the C stages; CUDA stages are a GPU rank's business.
  std::vector<StageSpec> c_stages;
  for (const StageSpec &stage : ladder().stages)
    if (stage.language == Language::c) c_stages.push_back(stage);
  ASSERT_EQ(row.stages.size(), c_stages.size()) << "a C stage of the ladder has no cell";
  for (const StageSpec &stage : c_stages) {
    const Expected &expected = row.stages.at(stage.name);
    // gcc vectorizes with zmm where the flags enable AVX-512 (blocking, open): code that would
    // score ok there cannot run on a CPU without it.
    const bool flags_need_avx512 = std::find(stage.compiler_flags.begin(), stage.compiler_flags.end(),
                                             "-mavx512f") != stage.compiler_flags.end();
    if (expected.status == Status::ok && flags_need_avx512 && !cpu_supports_avx512()) continue;
    const Measurement m = score(task_in_stage(stage.name, row.name, row.source));
    EXPECT_EQ(m.status, expected.status) << row.name << " in " << stage.name << ": " << m.reason
                                         << " | " << m.techniques.evidence;
    for (const std::string &part : expected.reason_parts)
      EXPECT_TRUE(contains(m.reason, part)) << row.name << " in " << stage.name << ": " << m.reason;
    // Every candidate that compiled carries its descriptor, whatever its status.
    if (m.status != Status::compile_error && !contains(m.reason, "does not compile")) {
      EXPECT_TRUE(m.techniques.detected) << row.name << " in " << stage.name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(DefaultLadder, StageTable, ::testing::ValuesIn(table()),
                         [](const ::testing::TestParamInfo<Row> &info) { return info.param.name; });

// ---- The descriptor in the Measurement -----------------------------------------------------

void expect_blocked3_descriptor(const TechniqueSummary &techniques) {
  EXPECT_TRUE(techniques.detected);
  EXPECT_EQ(techniques.techniques, std::vector<std::string>{"blocking"});
  EXPECT_EQ(techniques.loop_order, "ikj");
  EXPECT_EQ(techniques.tile_sizes, (std::vector<int>{128, 256, 64}));
  EXPECT_TRUE(contains(techniques.evidence, "tile loop over ii")) << techniques.evidence;
}

// kBlocked3's tiles (128, 256, 64) split nothing at the suite's 64^3: time it at 256^3.
BenchTask blocked3_task(const std::string &stage) {
  BenchTask task = task_in_stage(stage, "blocked", as_matmul(kernels::kBlocked3));
  task.problem.nominal = {256, 256, 256};
  return task;
}

// Two AVX-512 FMAs in 64-bit constants (techniques' detection test), beside an unused simd
// helper whose AVX-512 clone used to switch the hidden-instruction scan off.
constexpr const char *kHiddenZmmBesideSimdHelper = R"(
__attribute__((simd)) double unused(double x) { return x + 1.0; }
__attribute__((noinline)) unsigned long long hidden_a(void) { return 0x02EBC2B848F5F262ULL; }
__attribute__((noinline)) unsigned long long hidden_b(void) { return 0x02EBDAB848F5F262ULL; }
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int p = 0; p < k; ++p) s += A[i * k + p] * B[p * n + j];
      C[i * n + j] = s + (double)(hidden_a() == hidden_b());
    }
}
)";

TEST_F(TechniqueCheckTest, HiddenZmmBesideASimdHelperIsAvx512) {
  const Measurement m = score(task_in_stage("o3", "hidden_zmm", kHiddenZmmBesideSimdHelper));
  EXPECT_EQ(m.status, Status::constraint_violation) << m.reason;
  EXPECT_TRUE(contains(m.reason, "stage o3 does not allow avx512 (the object holds 2 zmm instructions inside"))
      << m.reason;
  EXPECT_TRUE(contains(m.reason, "no 64-bit constants that encode AVX-512 instructions")) << m.reason;
  // The helper's clones are gone (the linker drops what matmul does not call) or, where kept,
  // made unreachable: either way the scan stays on.
}

TEST_F(TechniqueCheckTest, HiddenYmmIsBeyondSse2Flags) {
  const std::string source = std::string(R"(
__attribute__((noinline)) unsigned long long hidden_a(void) { return 0x02EBC2B8F5E2C490ULL; }
__attribute__((noinline)) unsigned long long hidden_b(void) { return 0x02EBDAB8F5E2C490ULL; }
)") + "void matmul(int m, int n, int k, const double *A, const double *B, double *C) {\n"
      "  for (int i = 0; i < m * n; ++i) C[i] = (double)(hidden_a() == hidden_b());\n"
      "  for (int i = 0; i < m; ++i) for (int p = 0; p < k; ++p) for (int j = 0; j < n; ++j)\n"
      "    C[i * n + j] += A[i * k + p] * B[p * n + j];\n}\n";
  const Measurement m = score(task_in_stage("o3", "hidden_ymm", source));
  EXPECT_EQ(m.status, Status::constraint_violation) << m.reason;
  EXPECT_TRUE(contains(m.reason, "stage o3: the stage's flags compile for SSE2")) << m.reason;
  EXPECT_TRUE(contains(m.reason, "vfmadd231pd ymm")) << m.reason;
}

TEST_F(TechniqueCheckTest, DescriptorReachesAnOkMeasurement) {
  if (!cpu_supports_avx512()) GTEST_SKIP() << "the blocking stage compiles for AVX-512, which this CPU lacks";
  const Measurement m = score(blocked3_task("blocking"));
  ASSERT_EQ(m.status, Status::ok) << m.reason;
  EXPECT_GT(m.gflops, 0);
  expect_blocked3_descriptor(m.techniques);
}

TEST_F(TechniqueCheckTest, TilesNoSmallerThanTheTimedShapeAreNotBlocking) {
  // At 64^3 every tile of kBlocked3 covers the whole dimension: one tile, nothing split.
  const Measurement m = score(task_in_stage("blocking", "blocked", as_matmul(kernels::kBlocked3)));
  EXPECT_EQ(m.status, Status::constraint_violation) << m.reason;
  EXPECT_EQ(m.reason, "stage blocking requires blocking, which the candidate does not use");
  EXPECT_TRUE(contains(m.techniques.evidence, "splits nothing")) << m.techniques.evidence;
  EXPECT_EQ(m.techniques.tile_sizes, (std::vector<int>{128, 256, 64})) << "the nest is still described";
}

TEST_F(TechniqueCheckTest, DescriptorReachesAConstraintViolation) {
  const Measurement m = score(blocked3_task("o3"));
  ASSERT_EQ(m.status, Status::constraint_violation) << m.reason;
  EXPECT_EQ(m.reason, "stage o3 does not allow blocking");
  EXPECT_GT(m.compile_s, 0);
  EXPECT_EQ(m.reps, 0);  // never ran
  expect_blocked3_descriptor(m.techniques);
}

TEST_F(TechniqueCheckTest, DescriptorReachesFailedRuns) {
  const Measurement wrong = score(task_in_stage("o3", "half_work", candidate("half_work.c")));
  EXPECT_EQ(wrong.status, Status::wrong_answer) << wrong.reason;
  EXPECT_TRUE(wrong.techniques.detected);
  EXPECT_EQ(wrong.techniques.loop_order, "ikj");

  const Measurement crashed = score(task_in_stage("o0", "segfault", candidate("segfault.c")));
  EXPECT_EQ(crashed.status, Status::runtime_error) << crashed.reason;
  EXPECT_TRUE(crashed.techniques.detected);
  EXPECT_TRUE(crashed.techniques.techniques.empty());

  options.run_timeout_s = 1;
  scorer_.reset();  // the runner's deadline is fixed when the Scorer is made
  const Measurement hung = score(task_in_stage("o0", "infinite_loop", candidate("infinite_loop.c")));
  EXPECT_EQ(hung.status, Status::timeout) << hung.reason;
  EXPECT_TRUE(hung.techniques.detected);
}

TEST_F(TechniqueCheckTest, ChecksFailingEarlierLeaveNoDescriptor) {
  const Measurement m = score(task_in_stage("o3", "syntax_error", candidate("syntax_error.c")));
  EXPECT_EQ(m.status, Status::compile_error);
  EXPECT_FALSE(m.techniques.detected);
}

// ---- What gcc compiles is what is read -------------------------------------------------------

// Tiles only where _OPENMP is not defined: gcc never compiles them under -fopenmp, so they
// must not count there (libclang reads loops from a parse with OpenMP off, which must still
// take the branches gcc takes).
constexpr const char *kTilesWithoutOpenmp = R"(
void matmul(int m, int n, int k, const double *A, const double *B, double *C) {
  for (long x = 0; x < (long)m * n; ++x) C[x] = 0.0;
#ifndef _OPENMP
  for (int ii = 0; ii < m; ii += 32)
    for (int i = ii; i < ii + 32 && i < m; ++i)
#else
  for (int i = 0; i < m; ++i)
#endif
      for (int p = 0; p < k; ++p)
        for (int j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
}
)";

TEST_F(TechniqueCheckTest, BranchesGccDoesNotCompileCountForNothing) {
  // The blocking stage compiles with -fopenmp: the plain branch.
  const Measurement openmp_on = score(task_in_stage("blocking", "tiles_without_openmp", kTilesWithoutOpenmp));
  EXPECT_EQ(openmp_on.status, Status::constraint_violation) << openmp_on.techniques.evidence;
  EXPECT_TRUE(contains(openmp_on.reason, "requires blocking")) << openmp_on.reason;
  // o3 compiles without it: the tiles.
  const Measurement openmp_off = score(task_in_stage("o3", "tiles_without_openmp", kTilesWithoutOpenmp));
  EXPECT_EQ(openmp_off.status, Status::constraint_violation) << openmp_off.techniques.evidence;
  EXPECT_EQ(openmp_off.reason, "stage o3 does not allow blocking");
}

// ---- A detection that cannot finish ------------------------------------------------------

// The technique step alone (no source checks, no audit): its child gets tiny limits.
Measurement score_with_limits(const BenchOptions &options, const TechniqueCheckOptions &limits,
                              const BenchTask &task) {
  Scorer scorer(options);
  scorer.set_technique_step(std::make_unique<TechniqueCheck>(limits));
  return scorer.score(task);
}

TEST_F(TechniqueCheckTest, DetectionPastItsDeadlineIsAConstraintViolation) {
  TechniqueCheckOptions limits;
  limits.timeout_s = 0.001;  // the child is killed before libclang has parsed anything
  const Measurement m = score_with_limits(
      options, limits, task_in_stage("open", "blocked", as_matmul(kernels::kBlocked3)));
  EXPECT_EQ(m.status, Status::constraint_violation);
  EXPECT_EQ(m.reason,
            "technique detection failed: it ran past its 0.001 s limit; the stage's technique "
            "rules could not be checked");
  EXPECT_FALSE(m.techniques.detected);
  EXPECT_EQ(m.techniques.evidence, m.reason);
  EXPECT_EQ(m.reps, 0);  // never ran
}

TEST_F(TechniqueCheckTest, DetectionOutOfMemoryIsAConstraintViolation) {
  TechniqueCheckOptions limits;
  limits.memory_bytes = 1 << 20;  // libclang can't allocate its first buffers
  const Measurement m = score_with_limits(
      options, limits, task_in_stage("o3", "plain", as_matmul(kernels::kPlainIkj)));
  EXPECT_EQ(m.status, Status::constraint_violation);
  EXPECT_TRUE(contains(m.reason, "technique detection failed: ")) << m.reason;
  EXPECT_FALSE(m.techniques.detected);
}

}  // namespace
}  // namespace hpcreward
