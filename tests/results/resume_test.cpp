// Resuming a reward log: after a writer that died, after a stop, twice; and the refusals
// (a live writer, a reader holding the file, schema 1 or 2, not a reward log, no h5clear).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/sha256.hpp"
#include "results/extendible_dataset.hpp"
#include "results/hdf5_handle.hpp"
#include "results/log_file_state.hpp"
#include "results/log_schema.hpp"
#include "results/reward_log.hpp"
#include "child_that_dies.hpp"
#include "test_support.hpp"
#include "old_schema_fixture.hpp"

namespace hpcreward {
namespace {

using test_support::in_child_that_dies;

using test_support::sample_archive_record;
using test_support::sample_event;
using test_support::sample_provenance;
using test_support::sample_row;
using test_support::TempDir;

const std::vector<std::string> kSources = {
    "void matmul(int m, int n, int k, const double *A, const double *B, double *C) { /* a */ }\n",
    "void matmul(int m, int n, int k, const double *A, const double *B, double *C) { /* bé */ }\n",
    "void matmul(int m, int n, int k, const double *A, const double *B, double *C) { /* c */ }\n",
    "void matmul(int m, int n, int k, const double *A, const double *B, double *C) { /* d */ }\n",
};

// Row i of every test log, with source i % 3 (the fourth source arrives only after resuming).
RewardRow row_of(int i, int source) { return sample_row(i, sha256_hex(kSources[source])); }


// A child that runs `body`, then waits until the parent closes `release` (a pipe) or kills
// it. `ready` is written once `body` returned.
struct HoldingChild {
  pid_t pid = -1;
  int release_fd = -1;

  explicit HoldingChild(const std::function<void()> &body) {
    int ready[2], release[2];
    if (pipe(ready) != 0 || pipe(release) != 0) throw std::runtime_error("pipe");
    pid = fork();
    if (pid < 0) throw std::runtime_error("fork");
    if (pid == 0) {
      close(ready[0]);
      close(release[1]);
      try {
        body();
      } catch (const std::exception &error) {
        std::fprintf(stderr, "child: %s\n", error.what());
        std::_Exit(1);
      }
      if (write(ready[1], "x", 1) != 1) std::_Exit(1);
      char byte;
      while (read(release[0], &byte, 1) > 0) {
      }
      std::_Exit(0);  // still without closing anything
    }
    close(ready[1]);
    close(release[0]);
    release_fd = release[1];
    char byte = 0;
    const bool ready_now = read(ready[0], &byte, 1) == 1;
    close(ready[0]);
    if (!ready_now) throw std::runtime_error("the holding child failed before it was ready");
  }
  void kill_it() { finish(SIGKILL); }
  void let_go() { finish(0); }
  ~HoldingChild() {
    if (pid > 0) finish(SIGKILL);
  }

 private:
  void finish(int signal) {
    if (signal) ::kill(pid, signal);
    close(release_fd);
    waitpid(pid, nullptr, 0);
    pid = -1;
  }
};

unsigned status_flags(const std::filesystem::path &path) {
  const auto flags = h5::superblock_status_flags(path);
  if (!flags) throw std::runtime_error("no superblock in " + path.string());
  return *flags;
}

hsize_t dataset_size(const std::filesystem::path &path, const char *name) {
  h5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, H5P_DEFAULT));
  if (!file.valid()) throw std::runtime_error("cannot open " + path.string());
  h5::Dataset dataset = h5::open_dataset(file.get(), name, path);
  return h5::element_count(dataset.get(), name, path);
}

std::string file_bytes(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Expects `what()` of the exception `call` throws to contain each of `parts`.
void expect_refusal(const std::function<void()> &call, const std::vector<std::string> &parts) {
  try {
    call();
    ADD_FAILURE() << "no exception; expected one saying: " << parts.front();
  } catch (const std::runtime_error &error) {
    for (const std::string &part : parts)
      EXPECT_NE(std::string(error.what()).find(part), std::string::npos)
          << "missing \"" << part << "\" in: " << error.what();
  }
}

// A log whose writer appended 70 rows (more than one chunk), two events, three archive
// records and a rank event, then died without closing.
void write_and_die(const std::filesystem::path &path) {
  in_child_that_dies([&] {
    auto *writer = new RewardLogWriter(path, sample_provenance());  // never closed
    for (int i = 0; i < 70; ++i) {
      writer->append(row_of(i, i % 3), kSources[i % 3]);
      if (i == 10 || i == 50) writer->append_event(sample_event(i == 10 ? 0 : 1));
      if (i % 30 == 0) writer->append_archive(sample_archive_record(i / 30));
      if (i == 40) writer->append_rank_event({1690000000.0, 1, "node0", "quarantined", "no answer"});
    }
  });
}

TEST(Resume, ContinuesALogWhoseWriterDiedAndKeepsEveryRecordInOrder) {
  TempDir dir;
  const auto path = dir / "log.h5";
  write_and_die(path);
  ASSERT_EQ(status_flags(path), 0x05u) << "a dead SWMR writer leaves write + SWMR-write marked";

  {
    RewardLogWriter writer(path, RewardLogWriter::Resume{});
    EXPECT_EQ(writer.rows(), 70u);
    writer.append(row_of(70, 0), kSources[0]);  // a source already stored
    writer.append(row_of(71, 3), kSources[3]);  // a new one
    writer.append(row_of(72, 3), kSources[3]);
    writer.append_event(sample_event(2));
    writer.append_archive(sample_archive_record(3));
    writer.append_rank_event({1700000000.0, 2, "node2", "quarantined", "no answer for 75 s"});
    EXPECT_EQ(writer.rows(), 73u);
  }
  EXPECT_EQ(status_flags(path), 0u) << "a resumed writer that closes leaves the file clean";

  const std::vector<RewardRow> rows = read_rewards(path);
  ASSERT_EQ(rows.size(), 73u);
  for (int i = 0; i < 73; ++i) {
    const RewardRow expected = row_of(i, i < 70 ? i % 3 : (i == 70 ? 0 : 3));
    EXPECT_EQ(rows[i].candidate_id, expected.candidate_id);
    EXPECT_EQ(rows[i].source_sha256, expected.source_sha256);
    EXPECT_EQ(rows[i].seed, expected.seed);
    EXPECT_EQ(rows[i].archive, expected.archive);
  }
  EXPECT_EQ(read_stage_events(path),
            (std::vector<StageEventRecord>{sample_event(0), sample_event(1), sample_event(2)}));
  const std::vector<ArchiveRecord> archive = read_archive(path);
  ASSERT_EQ(archive.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(archive[i], sample_archive_record(i));
  const std::vector<RankEventRecord> rank_events = read_rank_events(path);
  ASSERT_EQ(rank_events.size(), 2u) << "the dead writer's rank event and the resumed one's";
  EXPECT_EQ(rank_events[0].host, "node0");
  EXPECT_EQ(rank_events[1], (RankEventRecord{1700000000.0, 2, "node2", "quarantined", "no answer for 75 s"}));

  // Each source once: the resumed writer knew the three stored before it died.
  EXPECT_EQ(dataset_size(path, h5::kSourcesDataset), 4u);
  std::size_t text_bytes = 0;
  for (const std::string &source : kSources) {
    EXPECT_EQ(read_source(path, sha256_hex(source)), source);
    text_bytes += source.size();
  }
  EXPECT_EQ(dataset_size(path, h5::kSourceTextDataset), text_bytes);
}

TEST(Resume, SurvivesBeingKilledAndResumedTwice) {
  TempDir dir;
  const auto path = dir / "log.h5";
  {
    HoldingChild first([&] {
      auto *writer = new RewardLogWriter(path, sample_provenance());  // never deleted: killed
      for (int i = 0; i < 5; ++i) writer->append(row_of(i, 0), kSources[0]);
    });
    first.kill_it();
  }
  {
    HoldingChild second([&] {
      auto *writer = new RewardLogWriter(path, RewardLogWriter::Resume{});
      if (writer->rows() != 5) throw std::runtime_error("resumed at the wrong row");
      for (int i = 5; i < 10; ++i) writer->append(row_of(i, 1), kSources[1]);
      writer->append_event(sample_event(0));
    });
    second.kill_it();
  }
  {
    RewardLogWriter writer(path, RewardLogWriter::Resume{});
    EXPECT_EQ(writer.rows(), 10u);
    writer.append(row_of(10, 0), kSources[0]);
  }
  const std::vector<RewardRow> rows = read_rewards(path);
  ASSERT_EQ(rows.size(), 11u);
  for (int i = 0; i < 11; ++i) EXPECT_EQ(rows[i].candidate_id, "cand-" + std::to_string(i));
  EXPECT_EQ(read_stage_events(path).size(), 1u);
  EXPECT_EQ(dataset_size(path, h5::kSourcesDataset), 2u);
}

TEST(Resume, ContinuesALogThatWasClosed) {
  TempDir dir;
  const auto path = dir / "log.h5";
  {
    RewardLogWriter writer(path, sample_provenance());
    writer.append(row_of(0, 0), kSources[0]);
  }
  ASSERT_EQ(status_flags(path), 0u);
  {
    RewardLogWriter writer(path, RewardLogWriter::Resume{});
    EXPECT_EQ(writer.rows(), 1u);
    writer.append(row_of(1, 0), kSources[0]);
  }
  EXPECT_EQ(read_rewards(path).size(), 2u);
  EXPECT_EQ(dataset_size(path, h5::kSourcesDataset), 1u);
  EXPECT_EQ(read_provenance(path).git_revision, sample_provenance().git_revision);
}

TEST(Resume, RefusesALogItsWriterInThisProcessStillHolds) {
  TempDir dir;
  const auto path = dir / "log.h5";
  RewardLogWriter writer(path, sample_provenance());
  writer.append(row_of(0, 0), kSources[0]);
  expect_refusal([&] { RewardLogWriter(path, RewardLogWriter::Resume{}); },
                 {path.string(), "a live writer still holds"});
  writer.append(row_of(1, 0), kSources[0]);  // the live writer is undisturbed
  EXPECT_EQ(read_rewards(path).size(), 2u);
}

TEST(Resume, RefusesALogALiveWriterInAnotherProcessHoldsThenResumesOnceItDied) {
  TempDir dir;
  const auto path = dir / "log.h5";
  HoldingChild live([&] {
    auto *writer = new RewardLogWriter(path, sample_provenance());
    writer->append(row_of(0, 0), kSources[0]);
  });
  // The live SWMR writer holds no HDF5 lock and its mark looks like a dead writer's: only
  // the writer lock tells them apart.
  EXPECT_EQ(status_flags(path), 0x05u);
  expect_refusal([&] { RewardLogWriter(path, RewardLogWriter::Resume{}); },
                 {"a live writer still holds", "stop that run"});
  EXPECT_EQ(status_flags(path), 0x05u) << "a refused resume must not clear a live writer's mark";

  live.let_go();  // dies without closing
  RewardLogWriter writer(path, RewardLogWriter::Resume{});
  EXPECT_EQ(writer.rows(), 1u);
}

TEST(Resume, RefusesWhileAReaderHasTheLogOpen) {
  TempDir dir;
  const auto path = dir / "log.h5";
  write_and_die(path);
  {
    HoldingChild reader([&] {
      // What h5py with swmr=True does; HDF5 1.10 keeps a shared lock while the file is open.
      if (H5Fopen(path.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, H5P_DEFAULT) < 0)
        throw std::runtime_error("cannot open the log for reading");
    });
    expect_refusal([&] { RewardLogWriter(path, RewardLogWriter::Resume{}); },
                   {"another process has the reward log open", "h5py"});
    EXPECT_EQ(status_flags(path), 0x05u);
  }
  RewardLogWriter writer(path, RewardLogWriter::Resume{});
  EXPECT_EQ(writer.rows(), 70u);
}

TEST(Resume, RefusesOlderSchemasWithoutChangingThem) {
  TempDir dir;
  for (int schema : {1, 2, 3, 4, 5, 6}) {
    const auto path = dir / ("v" + std::to_string(schema) + ".h5");
    test_support::write_old_log(schema, path, {sample_row(0)}, {}, sample_provenance());
    const std::string before = file_bytes(path);
    expect_refusal([&] { RewardLogWriter(path, RewardLogWriter::Resume{}); },
                   {path.string(), "written by schema " + std::to_string(schema) +
                                       "; resume needs schema 7: start a new run"});
    EXPECT_EQ(file_bytes(path), before);
  }
}

TEST(Resume, RefusesFilesThatAreNotRewardLogs) {
  TempDir dir;
  const auto missing = dir / "missing.h5";
  expect_refusal([&] { RewardLogWriter(missing, RewardLogWriter::Resume{}); },
                 {missing.string(), "no such file"});

  const auto text = dir / "notes.txt";
  std::ofstream(text) << "keep me\n";
  expect_refusal([&] { RewardLogWriter(text, RewardLogWriter::Resume{}); },
                 {text.string(), "not a reward log"});
  EXPECT_EQ(file_bytes(text), "keep me\n");

  const auto other = dir / "other.h5";
  {
    h5::File file(H5Fcreate(other.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT));
    ASSERT_TRUE(file.valid());
    h5::Dataspace scalar(H5Screate(H5S_SCALAR));
    h5::Dataset data(H5Dcreate2(file.get(), "/data", H5T_NATIVE_INT, scalar.get(), H5P_DEFAULT,
                                H5P_DEFAULT, H5P_DEFAULT));
  }
  expect_refusal([&] { RewardLogWriter(other, RewardLogWriter::Resume{}); },
                 {other.string(), "not a reward log"});
}

TEST(Resume, SaysHowToGetH5clearWhenItIsMissing) {
  TempDir dir;
  const auto path = dir / "log.h5";
  write_and_die(path);
  const std::string saved_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  std::filesystem::create_directory(dir / "empty-bin");
  setenv("PATH", (dir / "empty-bin").c_str(), 1);
  expect_refusal([&] { RewardLogWriter(path, RewardLogWriter::Resume{}); },
                 {path.string(), "h5clear is not on PATH", "hdf5-tools",
                  "h5clear -s --increment"});
  setenv("PATH", saved_path.c_str(), 1);
  EXPECT_EQ(status_flags(path), 0x05u);
  RewardLogWriter writer(path, RewardLogWriter::Resume{});
  EXPECT_EQ(writer.rows(), 70u);
}

}  // namespace
}  // namespace hpcreward
