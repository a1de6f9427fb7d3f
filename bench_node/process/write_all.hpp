#pragma once
// Writing a whole string to a pipe or file descriptor: the runners' result pipe and the
// forked source checks' output pipe.
#include <string>

namespace hpcreward {

// All of `text` to `fd`, retrying short writes and EINTR; gives up quietly on an error.
void write_all(int fd, const std::string &text);

}  // namespace hpcreward
