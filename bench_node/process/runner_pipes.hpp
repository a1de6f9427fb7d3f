#pragma once
// The two pipes a runner child shares with its rank (runner_args.hpp: --token-fd, --result-fd),
// for both runners (hpcreward-runner, hpcreward-gpu-runner); they answer with write_all.hpp.
#include <string>

namespace hpcreward {

// Everything on `fd` up to end of file (at most 4 KiB kept), then closes it.
std::string read_token(int fd);

}  // namespace hpcreward
