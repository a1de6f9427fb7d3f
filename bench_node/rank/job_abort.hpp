#pragma once
// How a benchmark rank (CPU or GPU) gives up the whole job when it cannot serve: a line on
// stderr naming the rank, then MPI_Abort, since the coordinator would otherwise wait for it.
#include <string>
#include <string_view>

namespace hpcreward {

// `kind` follows the rank's number in the line: "" for a CPU rank, " (GPU)" for a GPU one.
[[noreturn]] void abort_job(int rank, std::string_view kind, const std::string &message);

}  // namespace hpcreward
