// Readers of a reward log. They open it read-only with SWMR read access, so they work on a
// finished log and on one that a run is still writing (they see the records flushed so far).
// Record datasets are read by column name, so a schema 1 log reads too: the columns it does
// not have come back empty.
#include <cstring>
#include <stdexcept>
#include <vector>

#include "results/extendible_dataset.hpp"
#include "results/hdf5_error.hpp"
#include "results/hdf5_handle.hpp"
#include "results/log_file_state.hpp"
#include "results/log_schema.hpp"
#include "results/provenance_attributes.hpp"
#include "results/reward_log.hpp"

namespace hpcreward {

namespace {

h5::File open_for_reading(const std::filesystem::path &path) {
  // HDF5's own messages for a missing file or one of another kind are pages of driver details
  // or "file signature not found"; say plainly what the file is.
  if (std::error_code error; !std::filesystem::exists(path, error))
    throw std::runtime_error(path.string() + ": no such file");
  const hid_t opened = H5Fopen(path.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, H5P_DEFAULT);
  if (opened < 0 && !h5::superblock_status_flags(path))
    throw std::runtime_error(path.string() +
                             ": not an HDF5 file, so not a reward log (an hpcreward run writes DIR/rewards.h5)");
  h5::File file(h5::check(opened, path, "cannot open the reward log"));
  if (H5Aexists(file.get(), "schema_version") <= 0 || H5Lexists(file.get(), h5::kRewardsDataset, H5P_DEFAULT) <= 0)
    throw std::runtime_error(path.string() +
                             ": an HDF5 file but not a reward log (no schema_version attribute or /rewards dataset)");
  return file;
}

// Every record of one dataset, read through the columns that the file has.
template <typename Record>
std::vector<Record> read_records(hid_t file, const char *name, const std::filesystem::path &path) {
  h5::Dataset dataset = h5::open_dataset(file, name, path);
  const hsize_t count = h5::element_count(dataset.get(), name, path);
  h5::Datatype file_type(
      h5::check(H5Dget_type(dataset.get()), path, std::string("cannot get the type of ") + name));
  h5::Datatype memory_type = h5::make_memory_type_for<Record>(file_type.get());

  const std::size_t record_size = h5::record_size<Record>();
  std::vector<std::byte> records(count * record_size);  // zeros: absent columns read empty
  h5::read_elements(dataset.get(), 0, count, memory_type.get(), records.data(), name, path);

  std::vector<Record> result;
  result.reserve(count);
  for (hsize_t i = 0; i < count; ++i)
    result.push_back(h5::decode_record<Record>(&records[i * record_size]));
  return result;
}

// The datasets added after schema 1 beside /rewards; an older log has none, which deserves a
// plain "this log has no X (schema N)" rather than HDF5's "object not found".
template <typename Record>
std::vector<Record> read_later_records(const std::filesystem::path &path, const char *name,
                                    const char *what) {
  h5::QuietHdf5Errors quiet;
  h5::File file = open_for_reading(path);
  if (H5Lexists(file.get(), name, H5P_DEFAULT) <= 0) {
    std::string schema;
    if (H5Aexists(file.get(), "schema_version") > 0)
      schema = " (schema " + std::to_string(h5::read_provenance(file.get(), path).schema_version) +
               ")";
    throw std::runtime_error(path.string() + ": this log has no " + what + schema);
  }
  return read_records<Record>(file.get(), name, path);
}

}  // namespace

std::vector<RewardRow> read_rewards(const std::filesystem::path &path) {
  h5::QuietHdf5Errors quiet;
  h5::File file = open_for_reading(path);
  return read_records<RewardRow>(file.get(), h5::kRewardsDataset, path);
}

std::vector<StageEventRecord> read_stage_events(const std::filesystem::path &path) {
  return read_later_records<StageEventRecord>(path, h5::kStageEventsDataset, "stage events");
}

std::vector<ArchiveRecord> read_archive(const std::filesystem::path &path) {
  return read_later_records<ArchiveRecord>(path, h5::kArchiveDataset, "archive");
}

std::vector<RankEventRecord> read_rank_events(const std::filesystem::path &path) {
  return read_later_records<RankEventRecord>(path, h5::kRankEventsDataset, "rank events");
}

bool has_rank_events(const std::filesystem::path &path) {
  h5::QuietHdf5Errors quiet;
  h5::File file = open_for_reading(path);
  return H5Lexists(file.get(), h5::kRankEventsDataset, H5P_DEFAULT) > 0;
}

Provenance read_provenance(const std::filesystem::path &path) {
  h5::QuietHdf5Errors quiet;
  h5::File file = open_for_reading(path);
  return h5::read_provenance(file.get(), path);
}

std::optional<std::string> read_source(const std::filesystem::path &path, std::string_view sha256) {
  h5::QuietHdf5Errors quiet;
  h5::File file = open_for_reading(path);
  if (sha256.empty() || sha256.size() > h5::kSha256Bytes) return std::nullopt;

  h5::Dataset sources = h5::open_dataset(file.get(), h5::kSourcesDataset, path);
  const hsize_t count = h5::element_count(sources.get(), h5::kSourcesDataset, path);
  std::vector<h5::SourceEntry> entries(count);
  h5::Datatype entry_type = h5::make_source_entry_type(h5::TypeFor::memory);
  h5::read_elements(sources.get(), 0, count, entry_type.get(), entries.data(), h5::kSourcesDataset,
                    path);

  for (const h5::SourceEntry &entry : entries) {
    if (std::string_view(entry.sha256, strnlen(entry.sha256, sizeof entry.sha256)) != sha256)
      continue;
    h5::Dataset text = h5::open_dataset(file.get(), h5::kSourceTextDataset, path);
    std::string source(entry.length, '\0');
    h5::read_elements(text.get(), entry.offset, entry.length, H5T_NATIVE_UINT8, source.data(),
                      h5::kSourceTextDataset, path);
    return source;
  }
  return std::nullopt;
}

}  // namespace hpcreward
