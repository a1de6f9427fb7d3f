#pragma once
// The HDF5 side of the log schema (reward_log.hpp describes it): dataset names, chunk
// sizes, the compound types of the record datasets and /sources, and the byte encoding of
// records.
#include <cstddef>
#include <cstdint>

#include "results/hdf5_handle.hpp"
#include "results/log_records.hpp"
#include "results/reward_row.hpp"

namespace hpcreward::h5 {

inline constexpr const char *kRewardsDataset = "/rewards";
inline constexpr const char *kSourcesDataset = "/sources";
inline constexpr const char *kSourceTextDataset = "/source_text";
inline constexpr const char *kStageEventsDataset = "/stage_events";  // schema v2
inline constexpr const char *kArchiveDataset = "/archive";           // schema v2
inline constexpr const char *kRankEventsDataset = "/rank_events";    // schema v4

// Every append flushes, and a flush rewrites the whole chunk it touched: 64 rows
// (about 66 KiB at 1048 bytes a row) keeps that cheap while a run of thousands of rows stays a few chunks.
inline constexpr hsize_t kRewardsChunkRows = 64;
inline constexpr hsize_t kSourcesChunkRows = 256;            // 80 bytes an entry
inline constexpr hsize_t kSourceTextChunkBytes = 16 * 1024;  // a typical candidate or two
inline constexpr hsize_t kStageEventsChunkRows = 16;         // 400 bytes an event; a few a run
inline constexpr hsize_t kArchiveChunkRows = 64;             // 432 bytes a record
inline constexpr hsize_t kRankEventsChunkRows = 8;           // 620 bytes an event; rare

inline constexpr std::size_t kSha256Bytes = 64;  // hex digits, stored without a terminator

// Memory types describe our buffers with native numbers; file types are little-endian,
// so a log written anywhere reads the same everywhere. Both use the same packed layout.
enum class TypeFor { memory, file };

// The record datasets: RewardRow (/rewards), StageEventRecord (/stage_events),
// ArchiveRecord (/archive) and RankEventRecord (/rank_events). Each is the columns of its
// table in row_fields.hpp, packed in order with no padding. Defined for those types only.
template <typename Record>
std::size_t record_size();
template <typename Record>
Datatype make_record_type(TypeFor use);
// `record` points at record_size<Record>() bytes.
template <typename Record>
void encode_record(const Record &value, std::byte *record);
template <typename Record>
Record decode_record(const std::byte *record);

// The memory type of Record restricted to the columns that `file_type` (a dataset's
// compound type) has, at their usual offsets: reading with it fills the columns the file
// has and leaves the others as they were in the buffer (zero bytes: empty strings, 0).
// This is how a schema 3 reader reads a schema 1 or 2 /rewards, by column name.
template <typename Record>
Datatype make_memory_type_for(hid_t file_type);

// True if `file_type` is exactly the schema's file type of Record (same columns, order
// and sizes): what a writer resuming a log requires.
template <typename Record>
bool is_current_file_type(hid_t file_type);

// The /rewards names kept from schema 1.
inline std::size_t row_record_size() { return record_size<RewardRow>(); }
inline Datatype make_row_type(TypeFor use) { return make_record_type<RewardRow>(use); }
inline void encode_row(const RewardRow &row, std::byte *record) { encode_record(row, record); }
inline RewardRow decode_row(const std::byte *record) { return decode_record<RewardRow>(record); }

// /sources: where each distinct source lies in /source_text.
struct SourceEntry {
  char sha256[kSha256Bytes];  // null-padded
  std::uint64_t offset;       // first byte in /source_text
  std::uint64_t length;       // bytes
};
Datatype make_source_entry_type(TypeFor use);

}  // namespace hpcreward::h5
