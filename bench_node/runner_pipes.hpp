#pragma once
// The two pipes a runner child shares with its rank (runner_args.hpp: --token-fd, --result-fd),
// for both runners (hpcreward-runner, hpcreward-gpu-runner).
#include <string>

namespace hpcreward {

// Everything on `fd` up to end of file (at most 4 KiB kept), then closes it.
std::string read_token(int fd);

// All of `text` to `fd`, retrying short writes and EINTR; gives up quietly on an error.
void write_all(int fd, const std::string &text);

}  // namespace hpcreward
