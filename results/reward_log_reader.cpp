// Readers of a reward log. They open it read-only with SWMR read access, so they work on a
// finished log and on one that a run is still writing (they see the rows flushed so far).
#include <cstring>
#include <stdexcept>
#include <vector>

#include "results/extendible_dataset.hpp"
#include "results/hdf5_error.hpp"
#include "results/hdf5_handle.hpp"
#include "results/log_schema.hpp"
#include "results/provenance_attributes.hpp"
#include "results/reward_log.hpp"

namespace hpcreward {

namespace {

h5::File open_for_reading(const std::filesystem::path &path) {
  // HDF5's own message for a missing file is a page of driver details; say it plainly.
  if (std::error_code error; !std::filesystem::exists(path, error))
    throw std::runtime_error(path.string() + ": no such file");
  return h5::File(h5::check(H5Fopen(path.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, H5P_DEFAULT),
                            path, "cannot open the reward log"));
}

}  // namespace

std::vector<RewardRow> read_rewards(const std::filesystem::path &path) {
  h5::QuietHdf5Errors quiet;
  h5::File file = open_for_reading(path);
  h5::Dataset rewards = h5::open_dataset(file.get(), h5::kRewardsDataset, path);
  const hsize_t count = h5::element_count(rewards.get(), h5::kRewardsDataset, path);

  const std::size_t record_size = h5::row_record_size();
  std::vector<std::byte> records(count * record_size);
  h5::Datatype row_type = h5::make_row_type(h5::TypeFor::memory);
  h5::read_elements(rewards.get(), 0, count, row_type.get(), records.data(), h5::kRewardsDataset,
                    path);

  std::vector<RewardRow> rows;
  rows.reserve(count);
  for (hsize_t i = 0; i < count; ++i) rows.push_back(h5::decode_row(&records[i * record_size]));
  return rows;
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
