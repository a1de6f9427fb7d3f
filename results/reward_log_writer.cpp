// RewardLogWriter: creates a reward log (or reopens one to resume it), then appends rows,
// stage events, archive records and rank events to it in SWMR mode.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <optional>
#include <span>
#include <unordered_set>
#include <vector>

#include "results/extendible_dataset.hpp"
#include "results/hdf5_error.hpp"
#include "results/hdf5_handle.hpp"
#include "results/log_file_state.hpp"
#include "results/log_schema.hpp"
#include "results/provenance_attributes.hpp"
#include "results/reward_log.hpp"
#include "results/row_fields.hpp"
#include "results/utf8_truncate.hpp"

namespace hpcreward {

namespace {

// The stored width of /rewards' batch_id column.
constexpr std::size_t batch_id_column_bytes() {
  for (const RowField &field : kRowFields)
    if (const auto *text = std::get_if<StringField>(&field); text && text->name == "batch_id") return text->size;
  return 0;
}
constexpr std::size_t kBatchIdColumnBytes = batch_id_column_bytes();
static_assert(kBatchIdColumnBytes > 0, "/rewards has a batch_id column");

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

  void append(const Record &value, const std::filesystem::path &path) { append_all({&value, 1}, path); }

  // One extend, one write and one flush for all of them.
  void append_all(std::span<const Record> values, const std::filesystem::path &path) {
    if (values.empty()) return;
    const std::size_t size = h5::record_size<Record>();
    std::vector<std::byte> records(size * values.size());
    for (std::size_t i = 0; i < values.size(); ++i) h5::encode_record(values[i], records.data() + i * size);
    h5::append_elements(dataset.get(), count, values.size(), memory_type.get(), records.data(), name, path);
    count += values.size();
  }
};

// A source hash as its 32 bytes (a set of them costs less than one of 64-character hex
// strings); nullopt for text that is not 64 hex digits.
using Digest = std::array<unsigned char, 32>;

std::optional<Digest> digest_of(std::string_view hex) {
  if (hex.size() != 64) return std::nullopt;
  const auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  Digest digest{};
  for (std::size_t i = 0; i < digest.size(); ++i) {
    const int high = nibble(hex[2 * i]), low = nibble(hex[2 * i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    digest[i] = static_cast<unsigned char>(high << 4 | low);
  }
  return digest;
}

struct DigestHash {
  std::size_t operator()(const Digest &digest) const {
    std::size_t value = 0;  // a SHA-256 is already well mixed: its first bytes will do
    std::memcpy(&value, digest.data(), sizeof value);
    return value;
  }
};

// The source hashes whose text is in the file (or waiting to be flushed with it).
class StoredSources {
 public:
  bool contains(std::string_view sha256) const {
    if (const auto digest = digest_of(sha256)) return digests_.contains(*digest);
    return others_.contains(std::string(sha256));
  }
  void insert(std::string_view sha256) {
    if (const auto digest = digest_of(sha256))
      digests_.insert(*digest);
    else
      others_.emplace(sha256);  // not a SHA-256 in hex: kept as given
  }

 private:
  std::unordered_set<Digest, DigestHash> digests_;
  std::unordered_set<std::string> others_;
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
  StoredSources stored_hashes;

  // What waits for the next flush: rows, and the new sources' text and index entries.
  LogFlushPolicy policy;
  std::vector<RewardRow> pending_rows;
  std::string pending_text;
  std::vector<h5::SourceEntry> pending_entries;
  std::chrono::steady_clock::time_point oldest_pending;

  void create(const Provenance &provenance);
  void resume();
  void add_source(const std::string &sha256, std::string_view text);
  bool flush_due() const;
  void flush();
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
    stored_hashes.insert(std::string_view(entry.sha256, strnlen(entry.sha256, sizeof entry.sha256)));
}

// The entry's offset counts the text still waiting, so it is right once both are flushed.
void RewardLogWriter::Impl::add_source(const std::string &sha256, std::string_view text) {
  h5::SourceEntry entry{};
  std::memcpy(entry.sha256, sha256.data(), std::min(sha256.size(), sizeof entry.sha256));
  entry.offset = text_bytes + pending_text.size();
  entry.length = text.size();
  pending_text.append(text);
  pending_entries.push_back(entry);
  stored_hashes.insert(sha256);
}

bool RewardLogWriter::Impl::flush_due() const {
  if (pending_rows.size() >= policy.max_rows || pending_text.size() >= policy.max_source_bytes) return true;
  return policy.max_age.count() > 0 && std::chrono::steady_clock::now() - oldest_pending >= policy.max_age;
}

void RewardLogWriter::Impl::flush() {
  // Text, then its index, then the rows, each flushed before the next is written: a crash
  // at any point leaves no row whose source is missing (at worst text or entries no row
  // uses yet, which a resume reads as stored).
  h5::append_elements(source_text.get(), text_bytes, pending_text.size(), H5T_NATIVE_UINT8,
                      pending_text.data(), h5::kSourceTextDataset, path);
  text_bytes += pending_text.size();
  pending_text.clear();
  h5::append_elements(sources.get(), source_count, pending_entries.size(), source_entry_type.get(),
                      pending_entries.data(), h5::kSourcesDataset, path);
  source_count += pending_entries.size();
  pending_entries.clear();
  rewards.append_all(pending_rows, path);
  pending_rows.clear();
}

void RewardLogWriter::Impl::close() {
  // Datasets before the file, the file before the lock; the caller flushed what waited, so
  // a failed close loses no rows.
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
  try {
    impl_->flush();
  } catch (const std::exception &error) {  // a destructor must not throw; a resume rescores them
    std::fprintf(stderr, "hpcreward: %zu rows not written to the reward log: %s\n",
                 impl_->pending_rows.size(), error.what());
  }
  impl_->close();
}

void RewardLogWriter::append(const RewardRow &row, std::string_view source) {
  h5::QuietHdf5Errors quiet;
  if (impl_->pending_rows.empty()) impl_->oldest_pending = std::chrono::steady_clock::now();
  if (!row.source_sha256.empty() && !source.empty() &&
      !impl_->stored_hashes.contains(row.source_sha256))
    impl_->add_source(row.source_sha256, source);
  impl_->pending_rows.push_back(row);
  if (impl_->flush_due()) impl_->flush();
}

// Events, archive records and rank events refer to rows by index: those rows go first.
void RewardLogWriter::append_event(const StageEventRecord &event) {
  h5::QuietHdf5Errors quiet;
  impl_->flush();
  impl_->stage_events.append(event, impl_->path);
}

void RewardLogWriter::append_archive(const ArchiveRecord &record) {
  h5::QuietHdf5Errors quiet;
  impl_->flush();
  impl_->archive.append(record, impl_->path);
}

void RewardLogWriter::append_rank_event(const RankEventRecord &event) {
  h5::QuietHdf5Errors quiet;
  impl_->flush();
  impl_->rank_events.append(event, impl_->path);
}

void RewardLogWriter::flush() {
  h5::QuietHdf5Errors quiet;
  impl_->flush();
}

void RewardLogWriter::set_flush_policy(const LogFlushPolicy &policy) {
  if (policy.max_rows == 0)
    throw std::invalid_argument("a log flush policy needs max_rows of at least 1 (1: flush every row)");
  impl_->policy = policy;
  if (impl_->flush_due()) flush();
}

std::vector<RewardRow> RewardLogWriter::rows_of_batch(const std::string &batch_id) {
  return rows_of_batch(batch_id, 0, std::numeric_limits<std::uint64_t>::max());
}

std::vector<RewardRow> RewardLogWriter::rows_of_batch(const std::string &batch_id, std::uint64_t first_row,
                                                      std::uint64_t end_row) {
  h5::QuietHdf5Errors quiet;
  impl_->flush();
  const std::string_view stored = truncate_utf8(batch_id, kBatchIdColumnBytes);
  constexpr hsize_t kBlockRows = 4096;  // ~2 MB a block
  const std::size_t size = h5::record_size<RewardRow>();
  std::vector<std::byte> block(size * kBlockRows);
  std::vector<RewardRow> rows;
  const RecordDataset<RewardRow> &rewards = impl_->rewards;
  const hsize_t end = std::min<hsize_t>(rewards.count, end_row);
  for (hsize_t first = first_row; first < end; first += kBlockRows) {
    const hsize_t count = std::min(kBlockRows, end - first);
    h5::read_elements(rewards.dataset.get(), first, count, rewards.memory_type.get(), block.data(), rewards.name,
                      impl_->path);
    for (hsize_t i = 0; i < count; ++i) {
      RewardRow row = h5::decode_record<RewardRow>(&block[i * size]);
      if (row.batch_id == stored) rows.push_back(std::move(row));
    }
  }
  return rows;
}

std::size_t RewardLogWriter::rows() const { return impl_->rewards.count + impl_->pending_rows.size(); }

std::size_t RewardLogWriter::unflushed_rows() const { return impl_->pending_rows.size(); }

}  // namespace hpcreward
