// RewardLogWriter: creates a reward log, then appends rows to it in SWMR mode.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "results/extendible_dataset.hpp"
#include "results/hdf5_error.hpp"
#include "results/hdf5_handle.hpp"
#include "results/log_schema.hpp"
#include "results/provenance_attributes.hpp"
#include "results/reward_log.hpp"

namespace hpcreward {

namespace {

std::string hdf5_library_version() {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
}

}  // namespace

struct RewardLogWriter::Impl {
  std::filesystem::path path;
  h5::File file;
  h5::Dataset rewards;
  h5::Dataset sources;
  h5::Dataset source_text;
  h5::Datatype row_type = h5::make_row_type(h5::TypeFor::memory);
  h5::Datatype source_entry_type = h5::make_source_entry_type(h5::TypeFor::memory);
  hsize_t row_count = 0;
  hsize_t source_count = 0;
  hsize_t text_bytes = 0;
  // The hashes whose text is already in the file. This writer is the file's only writer
  // and starts it empty, so memory is the whole truth.
  std::unordered_set<std::string> stored_hashes;

  void create(const Provenance &provenance);
  void append_source(const std::string &sha256, std::string_view text);
};

void RewardLogWriter::Impl::create(const Provenance &provenance) {
  // SWMR needs the newest file format (HDF5 1.10's); readers need HDF5 >= 1.10 as well.
  h5::PropertyList access(
      h5::check(H5Pcreate(H5P_FILE_ACCESS), path, "cannot create a property list"));
  h5::check(H5Pset_libver_bounds(access.get(), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST), path,
            "cannot request the latest file format");
  // H5F_ACC_EXCL: never overwrite, even if the file appeared after the caller's check.
  file = h5::File(h5::check(H5Fcreate(path.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, access.get()), path,
                            "cannot create the reward log"));

  Provenance stamped = provenance;
  stamped.hdf5_version = hdf5_library_version();
  h5::write_provenance(file.get(), stamped, path);

  // SWMR forbids creating objects later, so every dataset is made now.
  h5::Datatype row_file_type = h5::make_row_type(h5::TypeFor::file);
  h5::Datatype entry_file_type = h5::make_source_entry_type(h5::TypeFor::file);
  rewards = h5::create_extendible(file.get(), h5::kRewardsDataset, row_file_type.get(),
                                  h5::kRewardsChunkRows, path);
  sources = h5::create_extendible(file.get(), h5::kSourcesDataset, entry_file_type.get(),
                                  h5::kSourcesChunkRows, path);
  source_text = h5::create_extendible(file.get(), h5::kSourceTextDataset, H5T_STD_U8LE,
                                      h5::kSourceTextChunkBytes, path);

  h5::check(H5Fstart_swmr_write(file.get()), path, "cannot start SWMR writing");
}

void RewardLogWriter::Impl::append_source(const std::string &sha256, std::string_view text) {
  h5::append_elements(source_text.get(), text_bytes, text.size(), H5T_NATIVE_UINT8, text.data(),
                      h5::kSourceTextDataset, path);
  h5::SourceEntry entry{};
  std::memcpy(entry.sha256, sha256.data(), std::min(sha256.size(), sizeof entry.sha256));
  entry.offset = text_bytes;
  entry.length = text.size();
  text_bytes += text.size();
  h5::append_elements(sources.get(), source_count, 1, source_entry_type.get(), &entry,
                      h5::kSourcesDataset, path);
  ++source_count;
  stored_hashes.insert(sha256);
}

RewardLogWriter::RewardLogWriter(const std::filesystem::path &path, const Provenance &provenance) {
  h5::QuietHdf5Errors quiet;
  impl_ = std::make_unique<Impl>();
  impl_->path = path;
  if (std::error_code error; std::filesystem::exists(path, error))
    throw std::runtime_error(path.string() +
                             ": a reward log already exists there; choose another --out or "
                             "remove the old log");
  // HDF5 would say this too, buried in driver details.
  if (const auto directory = std::filesystem::absolute(path).parent_path();
      !std::filesystem::is_directory(directory))
    throw std::runtime_error(path.string() + ": cannot create the reward log: directory " +
                             directory.string() + " does not exist");
  try {
    impl_->create(provenance);
  } catch (...) {
    // We created the file (H5F_ACC_EXCL), so a half-made log is ours to remove; leaving it
    // would make the user's retry fail with "already exists".
    const bool created = impl_->file.valid();
    impl_.reset();
    if (created) {
      std::error_code ignored;
      std::filesystem::remove(path, ignored);
    }
    throw;
  }
}

RewardLogWriter::~RewardLogWriter() {
  if (!impl_) return;
  h5::QuietHdf5Errors quiet;
  // Datasets before the file; every append was flushed, so a failed close loses no rows.
  impl_->rewards.reset();
  impl_->sources.reset();
  impl_->source_text.reset();
  impl_->file.reset();
}

void RewardLogWriter::append(const RewardRow &row, std::string_view source) {
  h5::QuietHdf5Errors quiet;
  // Source before row: a reader (or a crash) never sees a row whose source is missing.
  if (!row.source_sha256.empty() && !source.empty() &&
      !impl_->stored_hashes.contains(row.source_sha256))
    impl_->append_source(row.source_sha256, source);

  std::vector<std::byte> record(h5::row_record_size());
  h5::encode_row(row, record.data());
  h5::append_elements(impl_->rewards.get(), impl_->row_count, 1, impl_->row_type.get(),
                      record.data(), h5::kRewardsDataset, impl_->path);
  ++impl_->row_count;
}

std::size_t RewardLogWriter::rows() const { return impl_->row_count; }

}  // namespace hpcreward
