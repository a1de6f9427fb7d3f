#pragma once
// Helpers shared by the results tests: a private temporary directory and sample data.
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "results/log_records.hpp"
#include "results/provenance.hpp"
#include "results/reward_row.hpp"

namespace hpcreward::test_support {

// A fresh directory under the system temporary directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "hpcreward-results-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  const std::filesystem::path &path() const { return path_; }
  std::filesystem::path operator/(const std::string &name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// A row with every field set to a value that differs from its default, varied by `n`.
inline RewardRow sample_row(int n, std::string source_sha256 = "") {
  RewardRow row;
  row.candidate_id = "cand-" + std::to_string(n);
  row.batch_id = "batch-" + std::to_string(n / 2);
  row.problem = "dgemm-256";
  row.stage = n % 2 ? "o3" : "o0";
  row.status = "ok";
  row.reason = "verified on 3 shapes";
  row.reward = 1.5 + n;
  row.gflops = 1.5 + n;
  row.median_s = 0.0223 + n * 1e-4;
  row.min_s = 0.0211;
  row.iqr_s = 0.0004;
  row.cv = 0.013;
  row.reps = 30 + n;
  row.max_error = 1.25e-13;
  row.compile_s = 0.41;
  row.verify_s = 0.02;
  row.time_s = 1.9;
  row.source_sha256 = std::move(source_sha256);
  row.rank = 1 + n % 3;
  row.host = "node0" + std::to_string(n % 4);
  row.time = 1732240000.125 + n;
  row.seed = 18446744073709551615ull - static_cast<unsigned>(n);  // needs all 64 bits
  row.techniques = n % 3 ? "openmp+blocking" : "plain";
  row.loop_order = "ikj";
  row.tile_sizes = n % 3 ? "64x" + std::to_string(32 << (n % 2)) : "";
  row.archive = n % 2 ? "new_niche" : "new_elite";
  row.device = "cpu";
  return row;
}

// A stage event with every field set, varied by `n`.
inline StageEventRecord sample_event(int n) {
  StageEventRecord event;
  event.problem = n % 2 ? "sgemm-512" : "dgemm-256";
  event.from = "o" + std::to_string(n);
  event.to = "o" + std::to_string(n + 1);
  event.rule = "best_gflops";
  event.detail = "best " + std::to_string(10 + n) + ".5 GFLOPS >= 10";
  event.time = 1732240100.25 + n;
  event.rows_before = 40u + static_cast<unsigned>(n);
  return event;
}

// An archive record with every field set, varied by `n`.
inline ArchiveRecord sample_archive_record(int n, std::string source_sha256 = std::string(64, 'c')) {
  ArchiveRecord record;
  record.problem = "dgemm-256";
  record.stage = "openmp";
  record.niche = n % 2 ? "openmp|ikj|64x64" : "openmp+blocking|ijk|32x32";
  record.change = n < 2 ? "new_niche" : "new_elite";
  record.candidate_id = "cand-" + std::to_string(n);
  record.batch_id = "batch-" + std::to_string(n / 2);
  record.gflops = 20.25 + n;
  record.source_sha256 = std::move(source_sha256);
  record.previous_candidate_id = n < 2 ? "" : "cand-" + std::to_string(n - 2);
  record.previous_gflops = n < 2 ? 0 : 18.25 + n;
  record.time = 1732240200.5 + n;
  record.row_index = 7u * static_cast<unsigned>(n);
  return record;
}

inline Provenance sample_provenance() {
  Provenance provenance;
  provenance.created_utc = "2024-11-22T01:35:00Z";
  provenance.git_revision = "9eccf2e";
  provenance.config_json = R"({"problems":["dgemm-256"],"stages":["o0","o3"]})";
  provenance.hosts_json = R"([{"rank":1,"host":"node01","cores":64}])";
  provenance.compiler_version = "gcc (Debian 12.2.0-14) 12.2.0";
  provenance.blas_version = "OpenBLAS 0.3.21 OpenMP";
  provenance.mpi_version = "Open MPI v4.1.4";
  provenance.hdf5_version = "set by the caller, replaced by the writer";
  provenance.seed = "18446744073709551615";
  return provenance;
}

}  // namespace hpcreward::test_support
