// The reward log: what goes in comes out, sources are kept once, and readers work on a live log.
#include "results/reward_log.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/sha256.hpp"
#include "results/extendible_dataset.hpp"
#include "results/hdf5_handle.hpp"
#include "results/log_schema.hpp"
#include "test_support.hpp"
#include "old_schema_fixture.hpp"

namespace hpcreward {
namespace {

using test_support::sample_archive_record;
using test_support::sample_event;
using test_support::sample_provenance;
using test_support::sample_row;
using test_support::TempDir;

void expect_same_row(const RewardRow &expected, const RewardRow &actual) {
  EXPECT_EQ(expected.candidate_id, actual.candidate_id);
  EXPECT_EQ(expected.batch_id, actual.batch_id);
  EXPECT_EQ(expected.problem, actual.problem);
  EXPECT_EQ(expected.stage, actual.stage);
  EXPECT_EQ(expected.status, actual.status);
  EXPECT_EQ(expected.reason, actual.reason);
  EXPECT_EQ(expected.reward, actual.reward);
  EXPECT_EQ(expected.gflops, actual.gflops);
  EXPECT_EQ(expected.median_s, actual.median_s);
  EXPECT_EQ(expected.min_s, actual.min_s);
  EXPECT_EQ(expected.iqr_s, actual.iqr_s);
  EXPECT_EQ(expected.cv, actual.cv);
  EXPECT_EQ(expected.reps, actual.reps);
  EXPECT_EQ(expected.max_error, actual.max_error);
  EXPECT_EQ(expected.compile_s, actual.compile_s);
  EXPECT_EQ(expected.verify_s, actual.verify_s);
  EXPECT_EQ(expected.time_s, actual.time_s);
  EXPECT_EQ(expected.source_sha256, actual.source_sha256);
  EXPECT_EQ(expected.rank, actual.rank);
  EXPECT_EQ(expected.host, actual.host);
  EXPECT_EQ(expected.time, actual.time);
  EXPECT_EQ(expected.seed, actual.seed);
  EXPECT_EQ(expected.techniques, actual.techniques);
  EXPECT_EQ(expected.loop_order, actual.loop_order);
  EXPECT_EQ(expected.tile_sizes, actual.tile_sizes);
  EXPECT_EQ(expected.archive, actual.archive);
  EXPECT_EQ(expected.device, actual.device);
  EXPECT_EQ(expected.measurement_key, actual.measurement_key);
  EXPECT_EQ(expected.measured_as, actual.measured_as);
  EXPECT_EQ(expected.measured_batch, actual.measured_batch);
  EXPECT_EQ(expected.openblas_gflops, actual.openblas_gflops);
  EXPECT_EQ(expected.cublas_gflops, actual.cublas_gflops);
  EXPECT_EQ(expected.cublaslt_gflops, actual.cublaslt_gflops);
  EXPECT_EQ(expected.feedback, actual.feedback);
  EXPECT_EQ(expected.episode, actual.episode);
  EXPECT_EQ(expected.turn, actual.turn);
}

// Elements in one dataset of a closed log, read with the HDF5 C API directly.
hsize_t dataset_size(const std::filesystem::path &path, const char *name) {
  h5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!file.valid()) throw std::runtime_error("cannot open " + path.string());
  h5::Dataset dataset = h5::open_dataset(file.get(), name, path);
  return h5::element_count(dataset.get(), name, path);
}

TEST(RewardLog, RoundTripsRowsAndProvenance) {
  TempDir dir;
  const auto path = dir / "log.h5";
  std::vector<RewardRow> rows = {sample_row(0, sha256_hex("a")), sample_row(1), sample_row(2)};
  rows[1].status = "wrong_answer";
  rows[1].reason = "C[3][7] = 12.5, expected 12.25 (257 x 255 x 263)";
  rows[1].reward = -10;
  rows[2].problem = "sgemm-1024-ü";  // UTF-8 that fits survives unchanged
  rows[2].seed = 0;
  rows[0].measurement_key = rows[2].measurement_key = std::string(64, 'c');
  rows[2].measured_as = rows[0].candidate_id;  // row 2 reused row 0's measurement
  rows[2].measured_batch = rows[0].batch_id;
  {
    RewardLogWriter writer(path, sample_provenance());
    for (const RewardRow &row : rows) writer.append(row, "void matmul() {}");
    EXPECT_EQ(writer.rows(), rows.size());
  }

  const std::vector<RewardRow> read = read_rewards(path);
  ASSERT_EQ(read.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE("row " + std::to_string(i));
    expect_same_row(rows[i], read[i]);
  }

  const Provenance expected = sample_provenance();
  const Provenance provenance = read_provenance(path);
  EXPECT_EQ(provenance.schema_version, kRewardLogSchemaVersion);
  EXPECT_EQ(provenance.created_utc, expected.created_utc);
  EXPECT_EQ(provenance.git_revision, expected.git_revision);
  EXPECT_EQ(provenance.config_json, expected.config_json);
  EXPECT_EQ(provenance.hosts_json, expected.hosts_json);
  EXPECT_EQ(provenance.compiler_version, expected.compiler_version);
  EXPECT_EQ(provenance.blas_version, expected.blas_version);
  EXPECT_EQ(provenance.mpi_version, expected.mpi_version);
  EXPECT_EQ(provenance.seed, expected.seed);
  // The writer records the HDF5 library it really used, whatever the caller said.
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  EXPECT_EQ(provenance.hdf5_version,
            std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release));
}

TEST(RewardLog, EmptyLogHasNoRowsAndNoSources) {
  TempDir dir;
  const auto path = dir / "log.h5";
  { RewardLogWriter writer(path, sample_provenance()); }
  EXPECT_TRUE(read_rewards(path).empty());
  EXPECT_TRUE(read_stage_events(path).empty());
  EXPECT_TRUE(read_archive(path).empty());
  EXPECT_EQ(read_source(path, sha256_hex("anything")), std::nullopt);
}

TEST(RewardLog, WritesSchema7WhateverTheCallerSays) {
  TempDir dir;
  const auto path = dir / "log.h5";
  Provenance provenance = sample_provenance();
  provenance.schema_version = 1;
  { RewardLogWriter writer(path, provenance); }
  EXPECT_EQ(read_provenance(path).schema_version, 7);
  EXPECT_EQ(kRewardLogSchemaVersion, 7);
  EXPECT_EQ(dataset_size(path, h5::kStageEventsDataset), 0u);
  EXPECT_EQ(dataset_size(path, h5::kArchiveDataset), 0u);
  EXPECT_EQ(dataset_size(path, h5::kRankEventsDataset), 0u);
  EXPECT_TRUE(has_rank_events(path));
  EXPECT_TRUE(read_rank_events(path).empty());
}

RankEventRecord sample_rank_event(int i) {
  return {1700000000.0 + i, 1 + i, "node" + std::to_string(i), "quarantined",
          "no answer for 75 s; deadline 70 s (task limit 10 s + margin 60 s); held candidate c" + std::to_string(i) +
              " sent to other ranks"};
}

TEST(RewardLog, RoundTripsRankEventsBesideRowsAndCutsLongReasons) {
  TempDir dir;
  const auto path = dir / "log.h5";
  std::vector<RankEventRecord> events = {sample_rank_event(0), sample_rank_event(1)};
  std::string euros;
  for (int i = 0; i < 200; ++i) euros += "€";  // 600 bytes into 512: 170 euros
  events[1].reason = euros;
  {
    RewardLogWriter writer(path, sample_provenance());
    writer.append(sample_row(0), "");
    writer.append_rank_event(events[0]);
    writer.append(sample_row(1), "");
    writer.append_rank_event(events[1]);
    // A reader sees them while the writer is open (each append is flushed).
    EXPECT_EQ(read_rank_events(path).size(), 2u);
  }
  const std::vector<RankEventRecord> read = read_rank_events(path);
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[0], events[0]);
  EXPECT_EQ(read[1].reason.size(), 510u);
  EXPECT_EQ(read[1].reason, euros.substr(0, 510));
  EXPECT_EQ(read[1].rank, 2);
  EXPECT_EQ(read[1].host, "node1");
  EXPECT_EQ(read[1].event, "quarantined");
  EXPECT_EQ(read[1].time, 1700000001.0);
  EXPECT_EQ(read_rewards(path).size(), 2u);
}

TEST(RewardLog, ReadsASchema3LogWhichHasNoRankEvents) {
  TempDir dir;
  const auto path = dir / "v3.h5";
  const std::string source = "void matmul() { /* v3 */ }";
  std::vector<RewardRow> rows = {sample_row(0, sha256_hex(source)), sample_row(1)};
  rows[0].device = "cuda:0 NVIDIA H100 80GB HBM3";
  rows[1].device = "cpu";
  test_support::write_old_log(3, path, rows, {{sha256_hex(source), source}}, sample_provenance(), {sample_event(0)},
                              {sample_archive_record(0)});
  const std::vector<RewardRow> read = read_rewards(path);
  ASSERT_EQ(read.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) expect_same_row(rows[i], read[i]);
  EXPECT_EQ(read_provenance(path).schema_version, 3);
  EXPECT_EQ(read_source(path, sha256_hex(source)), source);
  EXPECT_EQ(read_stage_events(path), std::vector<StageEventRecord>{sample_event(0)});
  EXPECT_EQ(read_archive(path), std::vector<ArchiveRecord>{sample_archive_record(0)});
  EXPECT_FALSE(has_rank_events(path));
  try {
    read_rank_events(path);
    FAIL() << "read rank events from a schema 3 log";
  } catch (const std::runtime_error &error) {
    EXPECT_NE(std::string(error.what()).find("this log has no rank events (schema 3)"), std::string::npos)
        << error.what();
  }
}

TEST(RewardLog, ReadsASchema4LogWhoseRowsSayNothingOfReuse) {
  TempDir dir;
  const auto path = dir / "v4.h5";
  const std::vector<RewardRow> rows = {sample_row(0), sample_row(1)};
  const RankEventRecord lost{1700000000.0, 3, "node3", "quarantined", "no answer for 70 s"};
  test_support::write_old_log(4, path, rows, {}, sample_provenance(), {sample_event(0)}, {sample_archive_record(0)},
                              {lost});
  const std::vector<RewardRow> read = read_rewards(path);
  ASSERT_EQ(read.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) expect_same_row(rows[i], read[i]);
  EXPECT_EQ(read_provenance(path).schema_version, 4);
  EXPECT_EQ(read_rank_events(path), std::vector<RankEventRecord>{lost});
  EXPECT_EQ(read_stage_events(path), std::vector<StageEventRecord>{sample_event(0)});
}

TEST(RewardLog, ReadsASchema5LogWithoutYardsticksAsGflopsRewards) {
  TempDir dir;
  const auto path = dir / "v5.h5";
  std::vector<RewardRow> rows = {sample_row(0), sample_row(1)};
  rows[1].measured_as = "cand-0";
  test_support::write_old_log(5, path, rows, {}, sample_provenance(), {sample_event(0)}, {sample_archive_record(0)});
  const std::vector<RewardRow> read = read_rewards(path);
  ASSERT_EQ(read.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) expect_same_row(rows[i], read[i]);  // yardsticks 0 in both
  EXPECT_EQ(read_provenance(path).schema_version, 5);
  EXPECT_EQ(read_provenance(path).reward_mode, "gflops");
}

TEST(RewardLog, ReadsASchema6LogWithoutFeedback) {
  TempDir dir;
  const auto path = dir / "v6.h5";
  std::vector<RewardRow> rows = {sample_row(0), sample_row(1)};
  rows[0].cublaslt_gflops = 7.5;
  Provenance provenance = sample_provenance();
  provenance.reward_mode = "fraction";
  test_support::write_old_log(6, path, rows, {}, provenance, {sample_event(0)}, {sample_archive_record(0)});
  const std::vector<RewardRow> read = read_rewards(path);
  ASSERT_EQ(read.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) expect_same_row(rows[i], read[i]);  // feedback empty in both
  EXPECT_EQ(read_provenance(path).schema_version, 6);
  EXPECT_EQ(read_provenance(path).reward_mode, "fraction");
}

TEST(RewardLog, KeepsTheFeedbackCutAtAUtf8Boundary) {
  TempDir dir;
  const auto path = dir / "log.h5";
  RewardRow short_row = sample_row(0), long_row = sample_row(1);
  short_row.feedback = "It did not compile: cand.c:3:45: error: expected ';' before '}' token.";
  short_row.episode = "ep-7";
  short_row.turn = 2;
  long_row.feedback = std::string(510, 'x') + "\u00e9\u00e9";  // the second 2-byte character does not fit in 512
  {
    RewardLogWriter writer(path, sample_provenance());
    writer.append(short_row, "");
    writer.append(long_row, "");
  }
  const std::vector<RewardRow> read = read_rewards(path);
  expect_same_row(short_row, read.at(0));
  EXPECT_EQ(read.at(1).feedback, std::string(510, 'x') + "\u00e9");
}

TEST(RewardLog, KeepsTheYardsticksAndTheRewardMode) {
  TempDir dir;
  const auto path = dir / "log.h5";
  Provenance provenance = sample_provenance();
  provenance.reward_mode = "speedup:openblas";
  RewardRow row = sample_row(0);
  row.openblas_gflops = 38.25;
  row.reward = row.gflops / row.openblas_gflops;
  { RewardLogWriter(path, provenance).append(row, ""); }
  expect_same_row(row, read_rewards(path).at(0));
  EXPECT_EQ(read_provenance(path).reward_mode, "speedup:openblas");
}

TEST(RewardLog, RoundTripsStageEventsAndArchiveBesideRows) {
  TempDir dir;
  const auto path = dir / "log.h5";
  const std::vector<StageEventRecord> events = {sample_event(0), sample_event(1)};
  const std::vector<ArchiveRecord> records = {sample_archive_record(0), sample_archive_record(1),
                                              sample_archive_record(2)};
  {
    RewardLogWriter writer(path, sample_provenance());
    writer.append(sample_row(0), "");
    writer.append_archive(records[0]);
    writer.append_event(events[0]);
    writer.append(sample_row(1), "");
    writer.append_archive(records[1]);
    writer.append_archive(records[2]);
    writer.append_event(events[1]);
    EXPECT_EQ(writer.rows(), 2u);
  }
  EXPECT_EQ(read_stage_events(path), events);
  EXPECT_EQ(read_archive(path), records);
  const auto rows = read_rewards(path);
  ASSERT_EQ(rows.size(), 2u);
  expect_same_row(sample_row(1), rows[1]);
}

TEST(RewardLog, CutsLongEventAndArchiveStringsAtUtf8Boundaries) {
  TempDir dir;
  const auto path = dir / "log.h5";
  std::string euros;
  for (int i = 0; i < 100; ++i) euros += "€";
  StageEventRecord event = sample_event(0);
  event.detail = euros;                 // 300 bytes into 256: 85 euros
  event.rule = std::string(40, 'r');    // ASCII into 32
  ArchiveRecord record = sample_archive_record(0);
  record.niche = "openmp|" + euros.substr(0, 60);  // 67 bytes into 64: "openmp|" and 19 euros
  record.change = "new_niche_and_more";             // 18 into 16
  RewardRow row = sample_row(0);
  row.techniques = "openmp+avx512+blocking+" + euros.substr(0, 9);  // 32 bytes: fits exactly
  row.loop_order = "ikj€";                                          // 6 bytes
  row.tile_sizes = std::string(33, '8');
  row.archive = "new_elite_or_niche";
  {
    RewardLogWriter writer(path, sample_provenance());
    writer.append_event(event);
    writer.append_archive(record);
    writer.append(row, "");
  }
  const StageEventRecord read_event = read_stage_events(path).at(0);
  EXPECT_EQ(read_event.detail, euros.substr(0, 85 * 3));
  EXPECT_EQ(read_event.rule, std::string(32, 'r'));
  const ArchiveRecord read_record = read_archive(path).at(0);
  EXPECT_EQ(read_record.niche, "openmp|" + euros.substr(0, 19 * 3));
  EXPECT_EQ(read_record.change, "new_niche_and_mo");
  const RewardRow read_row = read_rewards(path).at(0);
  EXPECT_EQ(read_row.techniques, row.techniques);
  EXPECT_EQ(read_row.loop_order, row.loop_order);
  EXPECT_EQ(read_row.tile_sizes, std::string(32, '8'));
  EXPECT_EQ(read_row.archive, "new_elite_or_nic");
}

TEST(RewardLog, ReadersSeeEventsAndArchiveWhileTheWriterIsOpen) {
  TempDir dir;
  const auto path = dir / "log.h5";
  RewardLogWriter writer(path, sample_provenance());
  writer.append_event(sample_event(0));
  writer.append_archive(sample_archive_record(0));
  EXPECT_EQ(read_stage_events(path), std::vector<StageEventRecord>{sample_event(0)});
  EXPECT_EQ(read_archive(path), std::vector<ArchiveRecord>{sample_archive_record(0)});
  writer.append_event(sample_event(1));
  writer.append_archive(sample_archive_record(1));
  EXPECT_EQ(read_stage_events(path).size(), 2u);
  EXPECT_EQ(read_archive(path).at(1), sample_archive_record(1));
}

TEST(RewardLog, ReadsASchema1LogByColumnName) {
  TempDir dir;
  const auto path = dir / "v1.h5";
  const std::string source = "void matmul() { /* v1 */ }";
  std::vector<RewardRow> rows = {sample_row(0, sha256_hex(source)), sample_row(1)};
  rows[1].status = "wrong_answer";
  rows[1].reason = "mismatch – at C[0][0]";
  test_support::write_v1_log(path, rows, {{sha256_hex(source), source}}, sample_provenance());

  const std::vector<RewardRow> read = read_rewards(path);
  ASSERT_EQ(read.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE("row " + std::to_string(i));
    RewardRow expected = rows[i];
    expected.techniques = expected.loop_order = expected.tile_sizes = expected.archive = "";
    expected.device = "";
    expect_same_row(expected, read[i]);
  }
  EXPECT_EQ(read_provenance(path).schema_version, 1);
  EXPECT_EQ(read_source(path, sha256_hex(source)), source);
  try {
    read_stage_events(path);
    FAIL() << "read stage events from a schema 1 log";
  } catch (const std::runtime_error &error) {
    EXPECT_NE(std::string(error.what()).find("this log has no stage events (schema 1)"),
              std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find(path.string()), std::string::npos) << error.what();
  }
  try {
    read_archive(path);
    FAIL() << "read the archive of a schema 1 log";
  } catch (const std::runtime_error &error) {
    EXPECT_NE(std::string(error.what()).find("this log has no archive (schema 1)"),
              std::string::npos)
        << error.what();
  }
}

TEST(RewardLog, ReadsASchema2LogByColumnName) {
  TempDir dir;
  const auto path = dir / "v2.h5";
  const std::string source = "void matmul() { /* v2 */ }";
  std::vector<RewardRow> rows = {sample_row(0, sha256_hex(source)), sample_row(1), sample_row(2)};
  test_support::write_old_log(2, path, rows, {{sha256_hex(source), source}}, sample_provenance(),
                              {sample_event(0), sample_event(1)}, {sample_archive_record(0)});

  const std::vector<RewardRow> read = read_rewards(path);
  ASSERT_EQ(read.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE("row " + std::to_string(i));
    RewardRow expected = rows[i];
    expected.device = "";  // schema 3's column: a schema 2 log has none
    expect_same_row(expected, read[i]);
    EXPECT_FALSE(read[i].techniques.empty()) << "schema 2's technique columns read";
  }
  EXPECT_EQ(read_provenance(path).schema_version, 2);
  EXPECT_EQ(read_source(path, sha256_hex(source)), source);
  EXPECT_EQ(read_stage_events(path), (std::vector<StageEventRecord>{sample_event(0), sample_event(1)}));
  EXPECT_EQ(read_archive(path), std::vector<ArchiveRecord>{sample_archive_record(0)});
}

TEST(RewardLog, DeviceColumnRoundTripsAndIsCutAtACharacterBoundary) {
  TempDir dir;
  const auto path = dir / "device.h5";
  std::vector<RewardRow> rows = {sample_row(0), sample_row(1), sample_row(2)};
  rows[0].device = "cuda:3 NVIDIA H100 80GB HBM3";
  rows[1].device = "";  // decided by the coordinator
  // 62 ASCII bytes then a 3-byte character: 65 bytes, cut before the character, not inside it.
  rows[2].device = std::string(62, 'g') + "\xe2\x82\xac";
  {
    RewardLogWriter writer(path, sample_provenance());
    for (const RewardRow &row : rows) writer.append(row, "");
  }
  const std::vector<RewardRow> read = read_rewards(path);
  ASSERT_EQ(read.size(), 3u);
  EXPECT_EQ(read[0].device, "cuda:3 NVIDIA H100 80GB HBM3");
  EXPECT_EQ(read[1].device, "");
  EXPECT_EQ(read[2].device, std::string(62, 'g'));
  EXPECT_EQ(read_provenance(path).schema_version, kRewardLogSchemaVersion);
}

TEST(RewardLog, StoresEachSourceOncePerHash) {
  TempDir dir;
  const auto path = dir / "log.h5";
  const std::string first =
      "void matmul(int m, int n, int k, const double *A, const double *B, double *C) {}\n";
  const std::string second =
      "// blocked\nvoid matmul(int m, int n, int k, const double *A, const double *B, double *C) "
      "{}\n";
  {
    RewardLogWriter writer(path, sample_provenance());
    writer.append(sample_row(0, sha256_hex(first)), first);
    writer.append(sample_row(1, sha256_hex(second)), second);
    writer.append(sample_row(2, sha256_hex(first)), first);  // a duplicate candidate
    writer.append(sample_row(3), "text of a row without a hash is not kept");
  }
  EXPECT_EQ(read_source(path, sha256_hex(first)), first);
  EXPECT_EQ(read_source(path, sha256_hex(second)), second);
  EXPECT_EQ(read_source(path, sha256_hex("never stored")), std::nullopt);
  EXPECT_EQ(read_source(path, ""), std::nullopt);

  EXPECT_EQ(dataset_size(path, h5::kRewardsDataset), 4u);
  EXPECT_EQ(dataset_size(path, h5::kSourcesDataset), 2u);
  EXPECT_EQ(dataset_size(path, h5::kSourceTextDataset), first.size() + second.size());
}

TEST(RewardLog, CutsLongStringsAtUtf8Boundaries) {
  TempDir dir;
  const auto path = dir / "log.h5";
  std::string euros;  // "€" is 3 bytes: 256 is not a multiple of 3
  for (int i = 0; i < 100; ++i) euros += "€";
  RewardRow row = sample_row(0);
  row.reason = euros;                          // 300 bytes into 256
  row.candidate_id = std::string(70, 'x');     // ASCII: a plain cut at 64
  row.stage = "stage-" + euros.substr(0, 30);  // 36 bytes into 32: "stage-" and 8 euros
  row.source_sha256 = sha256_hex("exactly 64 hex digits fill the field");
  {
    RewardLogWriter writer(path, sample_provenance());
    writer.append(row, "");
  }
  const RewardRow read = read_rewards(path).at(0);
  EXPECT_EQ(read.reason, euros.substr(0, 85 * 3));
  EXPECT_EQ(read.candidate_id, std::string(64, 'x'));
  EXPECT_EQ(read.stage, "stage-" + euros.substr(0, 8 * 3));
  EXPECT_EQ(read.source_sha256, row.source_sha256);
}

TEST(RewardLog, RefusesToCreateOverAnExistingLog) {
  TempDir dir;
  const auto path = dir / "log.h5";
  {
    RewardLogWriter writer(path, sample_provenance());
    writer.append(sample_row(0), "");
  }
  try {
    RewardLogWriter again(path, sample_provenance());
    FAIL() << "a second writer was created over " << path;
  } catch (const std::runtime_error &error) {
    EXPECT_NE(std::string(error.what()).find(path.string()), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("already exists"), std::string::npos) << error.what();
  }
  EXPECT_EQ(read_rewards(path).size(), 1u) << "the old log must be left as it was";
}

TEST(RewardLog, RefusesToCreateOverAnyExistingFile) {
  TempDir dir;
  const auto path = dir / "notes.txt";
  std::ofstream(path) << "keep me\n";
  EXPECT_THROW(RewardLogWriter(path, sample_provenance()), std::runtime_error);
  std::ifstream in(path);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "keep me");
}

TEST(RewardLog, CreateFailureNamesTheFile) {
  TempDir dir;
  const auto path = dir / "no-such-directory" / "log.h5";
  try {
    RewardLogWriter writer(path, sample_provenance());
    FAIL() << "created a log in a directory that does not exist";
  } catch (const std::runtime_error &error) {
    EXPECT_NE(std::string(error.what()).find(path.string()), std::string::npos) << error.what();
  }
}

TEST(RewardLog, ReadersSeeAppendedRowsWhileTheWriterIsOpen) {
  TempDir dir;
  const auto path = dir / "log.h5";
  const std::string source = "void matmul() {}";
  RewardLogWriter writer(path, sample_provenance());
  writer.append(sample_row(0, sha256_hex(source)), source);
  writer.append(sample_row(1), "");

  std::vector<RewardRow> seen = read_rewards(path);
  ASSERT_EQ(seen.size(), 2u);
  expect_same_row(sample_row(1), seen[1]);
  EXPECT_EQ(read_source(path, sha256_hex(source)), source);
  EXPECT_EQ(read_provenance(path).git_revision, sample_provenance().git_revision);

  writer.append(sample_row(2), "");
  seen = read_rewards(path);
  ASSERT_EQ(seen.size(), 3u);
  expect_same_row(sample_row(2), seen[2]);
}

TEST(RewardLog, KeepsEveryAppendedRowWhenTheWriterDiesWithoutClosing) {
  TempDir dir;
  const auto path = dir / "log.h5";
  const std::string source = "void matmul() {}";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // 70 rows: more than one chunk. _Exit skips every destructor, as a crash would.
    try {
      RewardLogWriter writer(path, sample_provenance());
      for (int i = 0; i < 70; ++i) writer.append(sample_row(i, sha256_hex(source)), source);
      std::_Exit(0);  // while `writer` is still open
    } catch (...) {
      std::_Exit(1);
    }
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the writer failed";

  const std::vector<RewardRow> rows = read_rewards(path);
  ASSERT_EQ(rows.size(), 70u);
  expect_same_row(sample_row(69, sha256_hex(source)), rows.back());
  EXPECT_EQ(read_source(path, sha256_hex(source)), source);
}

TEST(RewardLog, ReadingAMissingFileNamesIt) {
  TempDir dir;
  const auto path = dir / "missing.h5";
  try {
    read_rewards(path);
    FAIL() << "read a file that does not exist";
  } catch (const std::runtime_error &error) {
    EXPECT_NE(std::string(error.what()).find(path.string()), std::string::npos) << error.what();
  }
  EXPECT_THROW(read_provenance(path), std::runtime_error);
  EXPECT_THROW(read_source(path, sha256_hex("x")), std::runtime_error);
}

TEST(RewardLog, ReadingAFileThatIsNotHdf5Fails) {
  TempDir dir;
  const auto path = dir / "log.h5";
  std::ofstream(path) << "not HDF5\n";
  try {
    read_rewards(path);
    FAIL() << "read rows from a text file";
  } catch (const std::runtime_error &error) {
    EXPECT_NE(std::string(error.what()).find(path.string()), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace hpcreward
