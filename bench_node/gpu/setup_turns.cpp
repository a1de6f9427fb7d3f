#include "bench_node/gpu/setup_turns.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hpcreward {

SetupTurns::SetupTurns(const std::string &path) {
  if (path.empty()) {
    why_not_ = "turned off";
    return;
  }
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0) why_not_ = "cannot open " + path + ": " + std::strerror(errno);
}

SetupTurns::~SetupTurns() {
  if (fd_ >= 0) ::close(fd_);
}

SetupTurns::Turn::Turn(int fd) : fd_(fd) {
  if (fd_ < 0) return;
  while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
  }
}

SetupTurns::Turn::~Turn() {
  if (fd_ >= 0) ::flock(fd_, LOCK_UN);
}

std::string default_setup_turns_path() {
  return "/dev/shm/hpcreward-gpu-setup-turns." + std::to_string(::getuid()) + ".lock";
}

}  // namespace hpcreward
