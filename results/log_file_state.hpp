#pragma once
// What a writer must know about a log file outside HDF5's API before it reopens it
// (RewardLogWriter's Resume): whether a live writer holds it, whether other processes have
// it open, whether a writer that died left its "open for writing" mark, and how to clear it.
// Readers ask the same two questions, without getting in a writer's way: writer_state().
//
// Why not HDF5 alone (1.10, checked against 1.10.8):
//  - A SWMR writer drops HDF5's file lock (flock) once SWMR writing starts, so a live SWMR
//    writer and a dead one look the same: both leave the superblock status flags set
//    (WRITE_ACCESS | SWMR_WRITE_ACCESS = 0x05) and hold no lock. RewardLogWriter therefore
//    holds its own lock, WriterLock below, for as long as it is open.
//  - H5Fopen refuses a file with those flags set in every write mode, SWMR_WRITE included;
//    only a read-only SWMR open works. The one way to clear them in-process is a FAPL
//    property that HDF5 declares private to h5clear ("clear_status_flags", H5Fprivate.h),
//    not part of the documented API; the documented way is the h5clear tool, so we run it.
//    (The EOA repair it does with --increment has a public call, H5Fincrement_filesize,
//    but only on a file already open for writing, which the flags forbid.)
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace hpcreward::h5 {

// An exclusive open-file-description lock (fcntl F_OFD_SETLK) on the whole log, held by a
// RewardLogWriter for as long as it is open. The kernel drops it when the writer's process
// dies however it dies, so "lock taken" means "no live writer". It does not interact with
// HDF5's own flock locks on Linux, so SWMR readers are unaffected, and unlike a classic
// fcntl lock it is not lost when the same process closes another descriptor of the file
// (a reader in the writer's own process).
class WriterLock {
 public:
  // Locks `path` for writing; nullopt if another writer holds it. Throws if the file
  // cannot be opened for writing.
  static std::optional<WriterLock> try_acquire(const std::filesystem::path &path);

  WriterLock(WriterLock &&other) noexcept;
  WriterLock &operator=(WriterLock &&other) noexcept;
  WriterLock(const WriterLock &) = delete;
  WriterLock &operator=(const WriterLock &) = delete;
  ~WriterLock();

 private:
  explicit WriterLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// A log's writer as a reader sees it: still writing, gone after closing the log, or gone
// without closing it (killed, crashed, its node lost).
enum class WriterState { running, closed, died };

// "running", "closed" or "died".
std::string_view to_string(WriterState state);

// Whether a live writer holds the log's WriterLock, asked with F_OFD_GETLK, which places no
// lock: looking never stops a writer from starting or resuming. If none holds it, the
// superblock's flags tell a log that was closed (clear) from one whose writer died (set, or no
// HDF5 superblock at all). Ask before reading the log: once the answer is "closed" or "died",
// a read that follows sees every record there will ever be. Throws if the file cannot be opened.
WriterState writer_state(const std::filesystem::path &path);

// True if some process has the file open through HDF5 with its file lock (flock) held: a
// reader (h5py, h5dump, hpcreward-results; SWMR readers hold a shared lock while open) or
// a writer that is not in SWMR mode. Such a lock makes H5Fopen for writing, and h5clear,
// fail. Throws if the file cannot be opened.
bool hdf5_lock_held_elsewhere(const std::filesystem::path &path);

// The superblock's file consistency flags (0 for a log that was closed, 0x05 for one whose
// SWMR writer is running or died); nullopt if the file has no HDF5 superblock. Superblocks
// before version 2 have no such flags: 0.
std::optional<unsigned> superblock_status_flags(const std::filesystem::path &path);

// Runs `h5clear -s --increment FILE` (hdf5-tools): clears the consistency flags and sets the
// superblock's end-of-allocation (EOA) to max(EOA, end of file) + 1 MiB. The second part
// matters: a SWMR writer flushes datasets but not the superblock, so a writer that died
// leaves an EOA far behind the data it flushed, and `h5clear -s` alone, reopening the file
// for writing, truncates it to that stale EOA on close: every row after the first flush of
// the superblock is lost. (Checked with HDF5 1.10.8: a 35 KB log became 479 bytes.) The
// 1 MiB is h5clear's default margin for space the dead writer allocated but never wrote;
// it is a hole in the file, not written bytes. Throws std::runtime_error naming the file
// and what to do if h5clear is missing or fails.
void clear_status_flags(const std::filesystem::path &path);

}  // namespace hpcreward::h5
