#include "bench_node/process/write_all.hpp"

#include <unistd.h>

#include <cerrno>

namespace hpcreward {

void write_all(int fd, const std::string &text) {
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t got = ::write(fd, text.data() + written, text.size() - written);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return;
    written += static_cast<std::size_t>(got);
  }
}

}  // namespace hpcreward
