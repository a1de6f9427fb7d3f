#pragma once
// The HDF5 reward log (DESIGN.md "HDF5 reward log"), schema version 1:
//
//   /                 attributes: the Provenance fields (strings, schema_version an int)
//   /rewards          extendible chunked compound dataset, one RewardRow per scored candidate
//   /sources          extendible compound index {sha256, offset, length} into /source_text
//   /source_text      extendible uint8 dataset: each distinct source once, concatenated
//
// Every dataset is created before the file switches to SWMR mode (HDF5 forbids new
// objects afterwards, and SWMR does not allow variable-length data, hence fixed-length
// strings and the offset/length text store). Readers (h5py with swmr=True) can watch a live run.
//
// Every append is flushed, so a writer that dies keeps every row it appended. SWMR readers
// (the ones below, h5py with swmr=True) open such a log as it is; tools that do not use SWMR
// (h5dump, h5py without swmr) refuse a log whose writer is running or died until
// `h5clear -s FILE` clears its "open for writing" mark.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "results/log_records.hpp"
#include "results/provenance.hpp"
#include "results/reward_row.hpp"

namespace hpcreward {

class RewardLogWriter {
 public:
  // Creates the file (fails if it exists), writes provenance, creates all datasets and
  // starts SWMR writing. Throws std::runtime_error naming the file and the HDF5 error.
  RewardLogWriter(const std::filesystem::path &path, const Provenance &provenance);
  ~RewardLogWriter();
  RewardLogWriter(const RewardLogWriter &) = delete;
  RewardLogWriter &operator=(const RewardLogWriter &) = delete;

  // Reopens an existing log to go on writing it (a resumed run): clears the "open for
  // writing" mark a crashed writer left, checks the schema version, starts SWMR writing.
  // Throws std::runtime_error naming the file and what to do.
  struct Resume {};
  RewardLogWriter(const std::filesystem::path &path, Resume);

  // Appends one row and, if its source_sha256 is new to this file, the source text.
  // Flushes so that a reader (or a crash) sees every appended row.
  void append(const RewardRow &row, std::string_view source);
  // Each appends one record to /stage_events or /archive and flushes.
  void append_event(const StageEventRecord &event);
  void append_archive(const ArchiveRecord &record);

  std::size_t rows() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Readers open the file read-only with SWMR read access, so they work on a live log.
std::vector<RewardRow> read_rewards(const std::filesystem::path &path);
Provenance read_provenance(const std::filesystem::path &path);
std::optional<std::string> read_source(const std::filesystem::path &path, std::string_view sha256);
std::vector<StageEventRecord> read_stage_events(const std::filesystem::path &path);
std::vector<ArchiveRecord> read_archive(const std::filesystem::path &path);

}  // namespace hpcreward
