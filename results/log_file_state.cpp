#include "results/log_file_state.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <utility>
#include <vector>

extern char **environ;

namespace hpcreward::h5 {

namespace {

std::string errno_text(int error) { return std::strerror(error); }

// A file descriptor closed when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

}  // namespace

std::optional<WriterLock> WriterLock::try_acquire(const std::filesystem::path &path) {
  // O_CLOEXEC: a program the writer's process starts (h5clear, a compiler) must not keep the
  // lock alive after the writer dies.
  Fd fd(::open(path.c_str(), O_RDWR | O_CLOEXEC));
  if (fd.get() < 0)
    throw std::runtime_error(path.string() + ": cannot open the reward log for writing: " +
                             errno_text(errno));
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  lock.l_start = 0;
  lock.l_len = 0;  // the whole file
  if (::fcntl(fd.get(), F_OFD_SETLK, &lock) != 0) {
    if (errno == EAGAIN || errno == EACCES) return std::nullopt;
    throw std::runtime_error(path.string() + ": cannot lock the reward log for writing: " +
                             errno_text(errno));
  }
  return WriterLock(fd.release());
}

WriterLock::WriterLock(WriterLock &&other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

WriterLock &WriterLock::operator=(WriterLock &&other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

WriterLock::~WriterLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor of the description unlocks
}

std::string_view to_string(WriterState state) {
  switch (state) {
    case WriterState::running: return "running";
    case WriterState::closed: return "closed";
    case WriterState::died: return "died";
  }
  return "died";
}

WriterState writer_state(const std::filesystem::path &path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0)
    throw std::runtime_error(path.string() + ": cannot open: " + errno_text(errno));
  // Could a read lock be placed? F_OFD_GETLK answers without placing one; any writer's
  // exclusive lock (WriterLock) conflicts with it.
  struct flock query {};
  query.l_type = F_RDLCK;
  query.l_whence = SEEK_SET;
  query.l_start = 0;
  query.l_len = 0;  // the whole file
  if (::fcntl(fd.get(), F_OFD_GETLK, &query) != 0)
    throw std::runtime_error(path.string() + ": cannot ask whether a writer holds the reward log: " +
                             errno_text(errno));
  if (query.l_type != F_UNLCK) return WriterState::running;
  const auto flags = superblock_status_flags(path);
  return flags && *flags == 0 ? WriterState::closed : WriterState::died;
}

bool hdf5_lock_held_elsewhere(const std::filesystem::path &path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0)
    throw std::runtime_error(path.string() + ": cannot open: " + errno_text(errno));
  // The lock HDF5 1.10 takes (flock, exclusive for writing); ours is dropped with `fd`.
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) == 0) return false;
  if (errno == EWOULDBLOCK) return true;
  // A file system without flock: HDF5 cannot lock it either, so nothing is held.
  return false;
}

std::optional<unsigned> superblock_status_flags(const std::filesystem::path &path) {
  static constexpr std::array<unsigned char, 8> kSignature = {0x89, 'H', 'D', 'F',
                                                              '\r', '\n', 0x1a, '\n'};
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot open: " + errno_text(errno));
  // The superblock starts at 0, or after a user block of 512, 1024, 2048, ... bytes.
  for (std::uint64_t offset = 0; offset < (std::uint64_t{1} << 40);
       offset = offset ? offset * 2 : 512) {
    std::array<unsigned char, 12> head{};
    in.clear();
    in.seekg(static_cast<std::streamoff>(offset));
    if (!in.read(reinterpret_cast<char *>(head.data()), head.size())) return std::nullopt;
    if (!std::equal(kSignature.begin(), kSignature.end(), head.begin())) continue;
    // Versions 2 and 3: signature, version, size of offsets, size of lengths, flags.
    const unsigned version = head[8];
    return version >= 2 ? head[11] : 0u;
  }
  return std::nullopt;
}

void clear_status_flags(const std::filesystem::path &path) {
  const std::string what = path.string() + ": cannot clear the \"open for writing\" mark that "
                                           "the log's last writer left when it stopped without "
                                           "closing it";
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0)
    throw std::runtime_error(what + ": pipe: " + errno_text(errno));
  Fd read_end(pipe_fds[0]);
  Fd write_end(pipe_fds[1]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, write_end.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, write_end.get(), STDERR_FILENO);
  std::string program = "h5clear", clear_flags = "-s", increment = "--increment",
              file = path.string();
  std::array<char *, 5> argv = {program.data(), clear_flags.data(), increment.data(), file.data(),
                                nullptr};
  pid_t child = -1;
  // posix_spawnp, not fork: the writer may be an MPI process, where fork is best avoided.
  const int spawned =
      ::posix_spawnp(&child, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  write_end.reset();  // the child holds its copy; EOF comes when it exits
  if (spawned == ENOENT)
    throw std::runtime_error(what + ": h5clear is not on PATH; install it (Debian: apt-get install "
                                    "hdf5-tools, which jobs/install-deps.sh does) or run `h5clear "
                                    "-s --increment " + file + "` yourself, then resume again");
  if (spawned != 0)
    throw std::runtime_error(what + ": cannot start h5clear: " + errno_text(spawned));

  std::string output;
  std::array<char, 4096> buffer;
  for (;;) {
    const ssize_t n = ::read(read_end.get(), buffer.data(), buffer.size());
    if (n > 0) {
      if (output.size() < 16384) output.append(buffer.data(), static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    while (!output.empty() && (output.back() == '\n' || output.back() == ' ')) output.pop_back();
    for (char &c : output)
      if (c == '\n') c = ' ';
    throw std::runtime_error(what + ": `h5clear -s --increment " + file + "` failed" +
                             (WIFEXITED(status) ? " (exit status " +
                                                      std::to_string(WEXITSTATUS(status)) + ")"
                                                : std::string(" (killed by a signal)")) +
                             (output.empty() ? "" : ": " + output));
  }
}

}  // namespace hpcreward::h5
