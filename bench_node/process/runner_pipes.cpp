#include "bench_node/process/runner_pipes.hpp"

#include <unistd.h>

#include <cerrno>

namespace hpcreward {

std::string read_token(int fd) {
  std::string token;
  char buffer[256];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got > 0 && token.size() < 4096) {
      token.append(buffer, static_cast<std::size_t>(got));
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    break;
  }
  ::close(fd);
  return token;
}

}  // namespace hpcreward
