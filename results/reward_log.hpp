#pragma once
// The HDF5 reward log (docs/design.md "HDF5 reward log"), schema version 5 (results/README.md
// documents it for users):
//
//   /                 attributes: the Provenance fields (strings, schema_version an int)
//   /rewards          extendible chunked compound dataset, one RewardRow per scored candidate
//   /sources          extendible compound index {sha256, offset, length} into /source_text
//   /source_text      extendible uint8 dataset: each distinct source once, concatenated
//   /stage_events     extendible compound dataset, one StageEventRecord per stage change (v2)
//   /archive          extendible compound dataset, one ArchiveRecord per archive change (v2)
//   /rank_events      extendible compound dataset, one RankEventRecord per rank event (v4):
//                     a benchmark rank quarantined for not answering
//
// Every dataset is created before the file switches to SWMR mode (HDF5 forbids new
// objects afterwards, and SWMR does not allow variable-length data, hence fixed-length
// strings and the offset/length text store). Readers (h5py with swmr=True) can watch a live run.
// Schema 1 logs (no technique columns, no /stage_events or /archive), schema 2 logs (no
// device column), schema 3 logs (no /rank_events) and schema 4 logs (no measurement_key,
// measured_as, measured_batch columns) still read: record datasets are read
// by column name, and a missing column reads empty.
//
// Durability (results/README.md "When rows reach the file"): by default every append is
// flushed, so a writer that dies keeps every record it appended. A writer given a batching
// LogFlushPolicy (the coordinator) holds rows in memory and writes them together at flush():
// when the policy's row count, source bytes or age is reached, before any stage event,
// archive record or rank event (those refer to rows by index), at close, and whenever the
// caller calls flush(). A writer that dies loses only rows not flushed yet. A flush writes the
// new source text first, then its index entries, then the rows, each flushed before the next
// is written, so no row reaches the file before its source. SWMR readers
// (the ones below, h5py with swmr=True) open such a log as it is; tools that do not use SWMR
// (h5dump, h5py without swmr) refuse a log whose writer is running or died until
// `h5clear -s --increment FILE` clears its "open for writing" mark (`-s` alone truncates a
// dead writer's log to the stale size its superblock recorded: see log_file_state.hpp).
#include <chrono>
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

// When a writer's appended rows are written and flushed to the file (see above).
struct LogFlushPolicy {
  std::size_t max_rows = 1;  // flush once this many rows wait; 1: every row at once
  std::size_t max_source_bytes = 4 << 20;  // ... or this much new source text waits
  // ... or the oldest waiting row has waited this long (checked at each append; 0: no limit).
  std::chrono::milliseconds max_age{0};
  // The coordinator's: a row's flush is amortized over up to 1,000 rows and 100 ms.
  static LogFlushPolicy batched() { return {1000, 4 << 20, std::chrono::milliseconds(100)}; }
};

class RewardLogWriter {
 public:
  // Creates the file (fails if it exists), writes provenance, creates all datasets and
  // starts SWMR writing. Throws std::runtime_error naming the file and the HDF5 error.
  RewardLogWriter(const std::filesystem::path &path, const Provenance &provenance);
  ~RewardLogWriter();
  RewardLogWriter(const RewardLogWriter &) = delete;
  RewardLogWriter &operator=(const RewardLogWriter &) = delete;

  // Reopens an existing log to go on writing it (a resumed run): checks that it is a reward
  // log of the current schema (5), clears the "open for writing" mark a crashed writer left
  // (with `h5clear -s --increment`, hdf5-tools), starts SWMR writing. rows() goes on from the
  // rows already there and sources already stored are not stored again. Throws
  // std::runtime_error naming the file and what to do, changing nothing, for: no such file,
  // a file that is not a reward log, a log of an older schema (1 to 4), a log a live writer
  // holds (every writer holds a lock while open), a log another process has open through
  // HDF5 (a reader such as h5py), h5clear missing.
  struct Resume {};
  RewardLogWriter(const std::filesystem::path &path, Resume);

  // Appends one row and, if its source_sha256 is new to this file, the source text; both
  // reach the file when the flush policy says (by default at once).
  void append(const RewardRow &row, std::string_view source);
  // Each flushes the rows still waiting, then appends one record to /stage_events, /archive
  // or /rank_events and flushes it.
  void append_event(const StageEventRecord &event);
  void append_archive(const ArchiveRecord &record);
  void append_rank_event(const RankEventRecord &event);

  // Writes and flushes every row (and source) still waiting: readers see them and a crash
  // from now on cannot lose them.
  void flush();
  void set_flush_policy(const LogFlushPolicy &policy);

  // The rows of /rewards whose batch_id is `batch_id` (as stored: cut to the column's 64
  // bytes), in log order; flushes first. Reads all of /rewards in blocks: it serves a retried
  // batch answered so long ago that the coordinator no longer holds its rows in memory.
  std::vector<RewardRow> rows_of_batch(const std::string &batch_id);
  // The same within rows [first_row, end_row) of /rewards (clipped to the log): a resumed
  // serve run knows where each logged batch's rows lie and reads only those.
  std::vector<RewardRow> rows_of_batch(const std::string &batch_id, std::uint64_t first_row, std::uint64_t end_row);

  // Rows in the log, those still waiting for a flush included.
  std::size_t rows() const;
  // Rows appended but not flushed yet.
  std::size_t unflushed_rows() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Readers open the file read-only with SWMR read access, so they work on a live log.
// read_stage_events and read_archive throw "<file>: this log has no stage events (schema 1)"
// (or "no archive") for a schema 1 log.
std::vector<RewardRow> read_rewards(const std::filesystem::path &path);
Provenance read_provenance(const std::filesystem::path &path);
std::optional<std::string> read_source(const std::filesystem::path &path, std::string_view sha256);
std::vector<StageEventRecord> read_stage_events(const std::filesystem::path &path);
std::vector<ArchiveRecord> read_archive(const std::filesystem::path &path);
// Throws "<file>: this log has no rank events (schema 3)" for a log before schema 4.
std::vector<RankEventRecord> read_rank_events(const std::filesystem::path &path);
// Whether the log has /rank_events (schema 4 on).
bool has_rank_events(const std::filesystem::path &path);

}  // namespace hpcreward
