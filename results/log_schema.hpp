#pragma once
// The HDF5 side of the log schema (reward_log.hpp describes it): dataset names, chunk
// sizes, the compound types of /rewards and /sources, and the byte encoding of records.
#include <cstddef>
#include <cstdint>

#include "results/hdf5_handle.hpp"
#include "results/reward_row.hpp"

namespace hpcreward::h5 {

inline constexpr const char *kRewardsDataset = "/rewards";
inline constexpr const char *kSourcesDataset = "/sources";
inline constexpr const char *kSourceTextDataset = "/source_text";

// Every append flushes, and a flush rewrites the whole chunk it touched: 64 rows
// (about 44 KiB) keeps that cheap while a run of thousands of rows stays a few chunks.
inline constexpr hsize_t kRewardsChunkRows = 64;
inline constexpr hsize_t kSourcesChunkRows = 256;            // 80 bytes an entry
inline constexpr hsize_t kSourceTextChunkBytes = 16 * 1024;  // a typical candidate or two

inline constexpr std::size_t kSha256Bytes = 64;  // hex digits, stored without a terminator

// Memory types describe our buffers with native numbers; file types are little-endian,
// so a log written anywhere reads the same everywhere. Both use the same packed layout.
enum class TypeFor { memory, file };

// /rewards: the columns of kRowFields, packed in order with no padding.
std::size_t row_record_size();
Datatype make_row_type(TypeFor use);
// `record` points at row_record_size() bytes.
void encode_row(const RewardRow &row, std::byte *record);
RewardRow decode_row(const std::byte *record);

// /sources: where each distinct source lies in /source_text.
struct SourceEntry {
  char sha256[kSha256Bytes];  // null-padded
  std::uint64_t offset;       // first byte in /source_text
  std::uint64_t length;       // bytes
};
Datatype make_source_entry_type(TypeFor use);

}  // namespace hpcreward::h5
