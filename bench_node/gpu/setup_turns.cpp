#include "bench_node/gpu/setup_turns.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace hpcreward {

SetupTurns::SetupTurns(const std::string &path) {
  if (path.empty()) {
    why_not_ = "turned off";
    return;
  }
  // Not through a link, and only a file of this user's: another user's file in /dev/shm could
  // be held to slow this job's set-ups.
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd_ < 0) {
    why_not_ = "cannot open " + path + ": " + std::strerror(errno);
    return;
  }
  struct stat status {};
  if (::fstat(fd_, &status) != 0 || !S_ISREG(status.st_mode) || status.st_uid != ::getuid()) {
    why_not_ = path + " is not a file of this user's";
    ::close(fd_);
    fd_ = -1;
  }
}

SetupTurns::~SetupTurns() {
  if (fd_ >= 0) ::close(fd_);
}

SetupTurns::Turn SetupTurns::take(double max_wait_s) const {
  if (fd_ < 0) return Turn();
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(max_wait_s);
  for (;;) {
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return Turn(fd_);
    if (errno != EWOULDBLOCK && errno != EINTR) return Turn();
    if (std::chrono::steady_clock::now() >= until) return Turn();
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}

SetupTurns::Turn::~Turn() {
  if (fd_ >= 0) ::flock(fd_, LOCK_UN);
}

std::string default_setup_turns_path() {
  return "/dev/shm/hpcreward-gpu-setup-turns." + std::to_string(::getuid()) + ".lock";
}

}  // namespace hpcreward
