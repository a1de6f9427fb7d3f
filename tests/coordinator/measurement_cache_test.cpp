// The measurement key and the bounded cache of measurements for identical candidates.
#include "coordinator/scoring/measurement_cache.hpp"

#include <gtest/gtest.h>

#include "coordinator/scoring/measurement_key.hpp"
#include "common/node_failure.hpp"

namespace hpcreward {
namespace {

StageSpec stage(std::string name = "o3", std::vector<std::string> flags = {"-O3"}) {
  StageSpec spec;
  spec.name = std::move(name);
  spec.compiler_flags = std::move(flags);
  return spec;
}

CachedMeasurement measured(Status status, std::string id, double gflops = 0) {
  CachedMeasurement entry;
  entry.measurement.status = status;
  entry.measurement.gflops = gflops;
  entry.candidate_id = std::move(id);
  entry.batch_id = "b1";
  entry.rank = 1;
  return entry;
}

TEST(MeasurementKey, SameInputsSameKeyAnyDifferenceAnotherKey) {
  const std::string key = measurement_key("code", "dgemm-256", stage());
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key, measurement_key("code", "dgemm-256", stage()));
  EXPECT_NE(key, measurement_key("code ", "dgemm-256", stage()));
  EXPECT_NE(key, measurement_key("code", "sgemm-256", stage()));
  EXPECT_NE(key, measurement_key("code", "dgemm-256", stage("o3b")));
  EXPECT_NE(key, measurement_key("code", "dgemm-256", stage("o3", {"-O2"})));
  StageSpec allows = stage();
  allows.techniques_allowed = {"openmp"};
  EXPECT_NE(key, measurement_key("code", "dgemm-256", allows));
  StageSpec requires_it = stage();
  requires_it.techniques_required = {"openmp"};
  EXPECT_NE(key, measurement_key("code", "dgemm-256", requires_it));
  EXPECT_NE(measurement_key("code", "dgemm-256", allows), measurement_key("code", "dgemm-256", requires_it));
  StageSpec cuda = stage();
  cuda.language = Language::cuda;
  EXPECT_NE(key, measurement_key("code", "dgemm-256", cuda));
  StageSpec cute = cuda;
  cute.libraries = {"cute"};
  EXPECT_NE(measurement_key("code", "dgemm-256", cuda), measurement_key("code", "dgemm-256", cute));
}

// Logs written before stages had libraries keep their keys: the repeat cache of a resumed run
// still finds their rows.
TEST(MeasurementKey, AStageWithoutLibrariesKeepsItsEarlierKey) {
  EXPECT_EQ(measurement_key("code", "dgemm-256", stage()),
            "61fe10f25152e037c189c72098053bb2e16b1032c268f3f676250242ca51b803");
}

TEST(MeasurementKey, FieldBoundariesCannotBeShifted) {
  EXPECT_NE(measurement_key("x", "p", stage("o3", {"-O3", "-g"})),
            measurement_key("x", "p", stage("o3", {"-O3 -g"})));
  EXPECT_NE(measurement_key("ab", "c", stage()), measurement_key("a", "bc", stage()));
}

TEST(MeasurementCache, KeepsWhatTheCodeDecidesNotWhatTheNodeMayHaveCaused) {
  for (Status status : {Status::ok, Status::format_error, Status::forbidden, Status::constraint_violation,
                        Status::compile_error, Status::wrong_answer})
    EXPECT_TRUE(MeasurementCache::reusable(failed_measurement(status, "x"))) << to_string(status);
  EXPECT_FALSE(MeasurementCache::reusable(failed_measurement(Status::timeout, "x")));
  EXPECT_FALSE(MeasurementCache::reusable(failed_measurement(Status::runtime_error, "x")));
  EXPECT_TRUE(MeasurementCache::reusable(failed_measurement(Status::compile_error, "compiler failed (exit 1): x")));
  for (const char *reason : {"compiler timed out after 30 s", "compiler killed by signal SIGKILL",
                             "could not start the compiler: ENOMEM",
                             "the checker's C parser ran past its 10 s limit (a macro expansion bomb?)",
                             "the checker's C parser ran out of memory (512 MiB; a macro expansion bomb?)",
                             "the compiled object can't be read: EIO"})
    EXPECT_FALSE(MeasurementCache::reusable(failed_measurement(Status::compile_error, reason)))
        << reason << ": a limit (a loaded node) or the node decided it";
  for (std::string_view start : node_failure::kAll)  // every start its producers use (common/node_failure.hpp)
    EXPECT_FALSE(MeasurementCache::reusable(failed_measurement(Status::compile_error, std::string(start) + ": x")))
        << start;

  MeasurementCache cache(8);
  cache.remember("t", measured(Status::timeout, "slow"));
  cache.remember("r", measured(Status::runtime_error, "crash"));
  cache.remember("w", measured(Status::wrong_answer, "wrong"));
  EXPECT_EQ(cache.find("t"), nullptr);
  EXPECT_EQ(cache.find("r"), nullptr);
  ASSERT_NE(cache.find("w"), nullptr);
  EXPECT_EQ(cache.find("w")->candidate_id, "wrong");
  EXPECT_EQ(cache.size(), 1u);
}

TEST(MeasurementCache, EvictsTheLeastRecentlyUsed) {
  MeasurementCache cache(2);
  cache.remember("a", measured(Status::ok, "a", 1));
  cache.remember("b", measured(Status::ok, "b", 2));
  ASSERT_NE(cache.find("a"), nullptr);  // a is now the most recently used
  cache.remember("c", measured(Status::ok, "c", 3));
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.find("b"), nullptr);
  ASSERT_NE(cache.find("a"), nullptr);
  ASSERT_NE(cache.find("c"), nullptr);
  cache.remember("a", measured(Status::ok, "a-again", 4));  // replaces, no eviction
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.find("a")->candidate_id, "a-again");
  EXPECT_NE(cache.find("c"), nullptr);
}

TEST(MeasurementCache, CapacityZeroKeepsNothing) {
  MeasurementCache cache(0);
  cache.remember("a", measured(Status::ok, "a", 1));
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.find("a"), nullptr);
}

TEST(MeasurementCache, AnEntryKeepsWhatTheLogKeeps) {
  MeasurementCache cache(4);
  CachedMeasurement entry = measured(Status::compile_error, "long");
  entry.measurement.reason = std::string(300, 'e') + "\xc3\xa9";
  entry.measurement.techniques.evidence = std::string(10000, 'v');
  cache.remember("k", entry);
  const CachedMeasurement *kept = cache.find("k");
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->measurement.reason, std::string(256, 'e'));
  EXPECT_TRUE(kept->measurement.techniques.evidence.empty());
}

RewardRow row(std::string id, std::string key, std::string status = "ok", double gflops = 3.5) {
  RewardRow r;
  r.candidate_id = std::move(id);
  r.batch_id = "b1";
  r.status = std::move(status);
  r.gflops = gflops;
  r.median_s = 0.01;
  r.reps = 7;
  r.rank = 2;
  r.host = "node2";
  r.device = "cpu";
  r.seed = 99;
  r.techniques = "openmp";
  r.loop_order = "ikj";
  r.tile_sizes = "64x32";
  r.measurement_key = std::move(key);
  return r;
}

TEST(MeasurementCache, RecallRebuildsFromTheLogsMeasuredRows) {
  RewardRow reused = row("a2", "ka");
  reused.measured_as = "a";
  std::vector<RewardRow> rows = {row("a", "ka"), row("b", "kb"), row("slow", "kt", "timeout"),
                                 row("decided", ""), reused};
  MeasurementCache cache(2);
  cache.recall(rows);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.find("kt"), nullptr);
  const CachedMeasurement *a = cache.find("ka");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->candidate_id, "a");  // the row that measured it, not the one that reused it
  EXPECT_EQ(a->batch_id, "b1");
  EXPECT_EQ(a->rank, 2);
  EXPECT_EQ(a->host, "node2");
  EXPECT_EQ(a->seed, 99u);
  EXPECT_EQ(a->measurement.status, Status::ok);
  EXPECT_EQ(a->measurement.gflops, 3.5);
  EXPECT_EQ(a->measurement.reps, 7);
  EXPECT_EQ(a->measurement.techniques.techniques, std::vector<std::string>{"openmp"});
  EXPECT_EQ(a->measurement.techniques.tile_sizes, (std::vector<int>{64, 32}));

  EXPECT_EQ(a->feedback, "");  // a row with no feedback: the reused row makes it again

  // The log's feedback is the measurement's, opened with the note of the row's own answer.
  std::vector<RewardRow> noted = {row("n", "kn", "compile_error", 0)};
  noted[0].feedback = "Judged block 2 of 2 (```c, lines 4-30), the one that defines matmul. It did not compile: x.";
  MeasurementCache from_log(2);
  from_log.recall(noted);
  ASSERT_NE(from_log.find("kn"), nullptr);
  EXPECT_EQ(from_log.find("kn")->feedback, "It did not compile: x.");

  // The reused row refreshed "ka" after "kb" was remembered: a third key evicts "kb".
  MeasurementCache refreshed(2);
  refreshed.recall(rows);
  refreshed.remember("kc", measured(Status::ok, "c"));
  EXPECT_EQ(refreshed.find("kb"), nullptr);
  EXPECT_NE(refreshed.find("ka"), nullptr);
}

TEST(MeasurementCache, RowsOfAnUnknownStatusAreNotRecalled) {
  MeasurementCache cache(4);
  cache.recall({row("x", "kx", "exploded")});
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_FALSE(measurement_from_row(row("x", "kx", "exploded")).has_value());
}

}  // namespace
}  // namespace hpcreward
