// RewardLogWriter: creates a reward log (or reopens one to resume it), then appends rows,
// stage events, archive records and rank events to it in SWMR mode.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <unordered_set>
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

std::string hdf5_library_version() {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
}

// SWMR needs the newest file format (HDF5 1.10's); readers need HDF5 >= 1.10 as well.
h5::PropertyList latest_format_access(const std::filesystem::path &path) {
  h5::PropertyList access(
      h5::check(H5Pcreate(H5P_FILE_ACCESS), path, "cannot create a property list"));
  h5::check(H5Pset_libver_bounds(access.get(), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST), path,
            "cannot request the latest file format");
  return access;
}

// One record dataset (/rewards, /stage_events, /archive, /rank_events): its handle, its memory type and
// how many records it holds.
template <typename Record>
struct RecordDataset {
  explicit RecordDataset(const char *dataset_name) : name(dataset_name) {}

  const char *name;
  h5::Dataset dataset;
  h5::Datatype memory_type = h5::make_record_type<Record>(h5::TypeFor::memory);
  hsize_t count = 0;

  void create(hid_t file, hsize_t chunk_rows, const std::filesystem::path &path) {
    h5::Datatype file_type = h5::make_record_type<Record>(h5::TypeFor::file);
    dataset = h5::create_extendible(file, name, file_type.get(), chunk_rows, path);
  }

  void open(hid_t file, const std::filesystem::path &path) {
    dataset = h5::open_dataset(file, name, path);
    count = h5::element_count(dataset.get(), name, path);
  }

  void append(const Record &value, const std::filesystem::path &path) {
    std::vector<std::byte> record(h5::record_size<Record>());
    h5::encode_record(value, record.data());
    h5::append_elements(dataset.get(), count, 1, memory_type.get(), record.data(), name, path);
    ++count;
  }
};

// The datasets a resumed log must have, with exactly the types this build writes (schema 5).
void check_resumable(const std::filesystem::path &path) {
  h5::File file(h5::check(H5Fopen(path.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, H5P_DEFAULT),
                          path, "cannot open the reward log to resume it"));
  const std::string not_a_log = path.string() + ": not a reward log";
  if (H5Aexists(file.get(), "schema_version") <= 0 ||
      H5Lexists(file.get(), h5::kRewardsDataset, H5P_DEFAULT) <= 0)
    throw std::runtime_error(not_a_log +
                             " (it has no schema_version attribute or no /rewards dataset); "
                             "resume needs the rewards.h5 of an earlier run");
  const int version = h5::read_provenance(file.get(), path).schema_version;
  if (version != kRewardLogSchemaVersion)
    throw std::runtime_error(
        path.string() + ": written by schema " + std::to_string(version) + "; resume needs schema " +
        std::to_string(kRewardLogSchemaVersion) + ": start a new run");

  const auto type_of = [&](const char *name) {
    if (H5Lexists(file.get(), name, H5P_DEFAULT) <= 0)
      throw std::runtime_error(not_a_log + " of schema " + std::to_string(version) + ": it has no " +
                               name + " dataset");
    h5::Dataset dataset = h5::open_dataset(file.get(), name, path);
    return h5::Datatype(h5::check(H5Dget_type(dataset.get()), path,
                                  std::string("cannot get the type of ") + name));
  };
  const auto require = [&](const char *name, bool matches) {
    if (!matches)
      throw std::runtime_error(not_a_log + " of schema " + std::to_string(version) + ": its " +
                               name + " columns differ from the ones this build writes");
  };
  require(h5::kRewardsDataset,
          h5::is_current_file_type<RewardRow>(type_of(h5::kRewardsDataset).get()));
  require(h5::kStageEventsDataset,
          h5::is_current_file_type<StageEventRecord>(type_of(h5::kStageEventsDataset).get()));
  require(h5::kArchiveDataset,
          h5::is_current_file_type<ArchiveRecord>(type_of(h5::kArchiveDataset).get()));
  require(h5::kRankEventsDataset,
          h5::is_current_file_type<RankEventRecord>(type_of(h5::kRankEventsDataset).get()));
  h5::Datatype entry_type = h5::make_source_entry_type(h5::TypeFor::file);
  require(h5::kSourcesDataset, H5Tequal(type_of(h5::kSourcesDataset).get(), entry_type.get()) > 0);
  require(h5::kSourceTextDataset,
          H5Tequal(type_of(h5::kSourceTextDataset).get(), H5T_STD_U8LE) > 0);
}

}  // namespace

struct RewardLogWriter::Impl {
  std::filesystem::path path;
  std::optional<h5::WriterLock> lock;  // held from creation or resumption until destruction
  h5::File file;
  RecordDataset<RewardRow> rewards{h5::kRewardsDataset};
  RecordDataset<StageEventRecord> stage_events{h5::kStageEventsDataset};
  RecordDataset<ArchiveRecord> archive{h5::kArchiveDataset};
  RecordDataset<RankEventRecord> rank_events{h5::kRankEventsDataset};
  h5::Dataset sources;
  h5::Dataset source_text;
  h5::Datatype source_entry_type = h5::make_source_entry_type(h5::TypeFor::memory);
  hsize_t source_count = 0;
  hsize_t text_bytes = 0;
  // The hashes whose text is already in the file. This writer is the file's only writer
  // (WriterLock), so what it read when it opened the file plus what it appended is the truth.
  std::unordered_set<std::string> stored_hashes;

  void create(const Provenance &provenance);
  void resume();
  void append_source(const std::string &sha256, std::string_view text);
  void close();
};

void RewardLogWriter::Impl::create(const Provenance &provenance) {
  h5::PropertyList access = latest_format_access(path);
  // H5F_ACC_EXCL: never overwrite, even if the file appeared after the caller's check.
  file = h5::File(h5::check(H5Fcreate(path.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, access.get()), path,
                            "cannot create the reward log"));
  // HDF5's own lock keeps everyone else out until SWMR writing starts; ours from then on.
  lock = h5::WriterLock::try_acquire(path);
  if (!lock)
    throw std::runtime_error(path.string() + ": another writer locked the new reward log");

  Provenance stamped = provenance;
  stamped.schema_version = kRewardLogSchemaVersion;
  stamped.hdf5_version = hdf5_library_version();
  h5::write_provenance(file.get(), stamped, path);

  // SWMR forbids creating objects later, so every dataset is made now.
  rewards.create(file.get(), h5::kRewardsChunkRows, path);
  h5::Datatype entry_file_type = h5::make_source_entry_type(h5::TypeFor::file);
  sources = h5::create_extendible(file.get(), h5::kSourcesDataset, entry_file_type.get(),
                                  h5::kSourcesChunkRows, path);
  source_text = h5::create_extendible(file.get(), h5::kSourceTextDataset, H5T_STD_U8LE,
                                      h5::kSourceTextChunkBytes, path);
  stage_events.create(file.get(), h5::kStageEventsChunkRows, path);
  archive.create(file.get(), h5::kArchiveChunkRows, path);
  rank_events.create(file.get(), h5::kRankEventsChunkRows, path);

  h5::check(H5Fstart_swmr_write(file.get()), path, "cannot start SWMR writing");
}

void RewardLogWriter::Impl::resume() {
  if (std::error_code error; !std::filesystem::exists(path, error))
    throw std::runtime_error(path.string() + ": cannot resume: no such file");
  if (H5Fis_hdf5(path.c_str()) <= 0)
    throw std::runtime_error(path.string() +
                             ": not a reward log (not an HDF5 file); resume needs the rewards.h5 "
                             "of an earlier run");
  // First the writer lock: nothing below may touch a log that a live writer is appending to.
  lock = h5::WriterLock::try_acquire(path);
  if (!lock)
    throw std::runtime_error(path.string() +
                             ": a live writer still holds this reward log (a run is still "
                             "writing it); stop that run before resuming");
  check_resumable(path);  // refuses, changing nothing, whatever is not a log of this schema

  // Readers and non-SWMR writers hold HDF5's file lock, which makes every open for writing
  // (and h5clear) fail with "unable to lock file": say who to ask instead.
  if (h5::hdf5_lock_held_elsewhere(path))
    throw std::runtime_error(path.string() +
                             ": another process has the reward log open (a reader such as h5py, "
                             "h5dump or hpcreward-results, or another HDF5 writer); close it, "
                             "then resume");
  // We hold the writer lock, so a mark that the file is open for writing was left by a
  // writer that died (or was stopped) without closing: clear it, and repair the stale
  // end-of-allocation such a writer leaves, with `h5clear -s --increment`.
  if (const auto flags = h5::superblock_status_flags(path); flags && *flags != 0) {
    std::error_code error;
    const auto size_before = std::filesystem::file_size(path, error);
    h5::clear_status_flags(path);
    if (const auto after = h5::superblock_status_flags(path); after && *after != 0)
      throw std::runtime_error(path.string() +
                               ": h5clear left the \"open for writing\" mark in place");
    if (!error && std::filesystem::file_size(path, error) < size_before)
      throw std::runtime_error(path.string() + ": h5clear shrank the log from " +
                               std::to_string(size_before) + " bytes; look at it before resuming");
  }

  h5::PropertyList access = latest_format_access(path);
  file = h5::File(h5::check(
      H5Fopen(path.c_str(), H5F_ACC_RDWR | H5F_ACC_SWMR_WRITE, access.get()), path,
      "cannot reopen the reward log for writing"));
  rewards.open(file.get(), path);
  stage_events.open(file.get(), path);
  archive.open(file.get(), path);
  rank_events.open(file.get(), path);
  sources = h5::open_dataset(file.get(), h5::kSourcesDataset, path);
  source_text = h5::open_dataset(file.get(), h5::kSourceTextDataset, path);
  source_count = h5::element_count(sources.get(), h5::kSourcesDataset, path);
  // Bytes past the last entry (a writer that died between text and entry) are left unused.
  text_bytes = h5::element_count(source_text.get(), h5::kSourceTextDataset, path);

  std::vector<h5::SourceEntry> entries(source_count);
  h5::read_elements(sources.get(), 0, source_count, source_entry_type.get(), entries.data(),
                    h5::kSourcesDataset, path);
  for (const h5::SourceEntry &entry : entries)
    stored_hashes.emplace(entry.sha256, strnlen(entry.sha256, sizeof entry.sha256));
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

void RewardLogWriter::Impl::close() {
  // Datasets before the file, the file before the lock; every append was flushed, so a
  // failed close loses no rows.
  rewards.dataset.reset();
  stage_events.dataset.reset();
  archive.dataset.reset();
  rank_events.dataset.reset();
  sources.reset();
  source_text.reset();
  file.reset();
  lock.reset();
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
    impl_->close();
    impl_.reset();
    if (created) {
      std::error_code ignored;
      std::filesystem::remove(path, ignored);
    }
    throw;
  }
}

RewardLogWriter::RewardLogWriter(const std::filesystem::path &path, Resume) {
  h5::QuietHdf5Errors quiet;
  impl_ = std::make_unique<Impl>();
  impl_->path = path;
  try {
    impl_->resume();
  } catch (...) {
    impl_->close();  // the file is someone's log: leave it, only let go of it
    impl_.reset();
    throw;
  }
}

RewardLogWriter::~RewardLogWriter() {
  if (!impl_) return;
  h5::QuietHdf5Errors quiet;
  impl_->close();
}

void RewardLogWriter::append(const RewardRow &row, std::string_view source) {
  h5::QuietHdf5Errors quiet;
  // Source before row: a reader (or a crash) never sees a row whose source is missing.
  if (!row.source_sha256.empty() && !source.empty() &&
      !impl_->stored_hashes.contains(row.source_sha256))
    impl_->append_source(row.source_sha256, source);
  impl_->rewards.append(row, impl_->path);
}

void RewardLogWriter::append_event(const StageEventRecord &event) {
  h5::QuietHdf5Errors quiet;
  impl_->stage_events.append(event, impl_->path);
}

void RewardLogWriter::append_archive(const ArchiveRecord &record) {
  h5::QuietHdf5Errors quiet;
  impl_->archive.append(record, impl_->path);
}

void RewardLogWriter::append_rank_event(const RankEventRecord &event) {
  h5::QuietHdf5Errors quiet;
  impl_->rank_events.append(event, impl_->path);
}

std::size_t RewardLogWriter::rows() const { return impl_->rewards.count; }

}  // namespace hpcreward
