#pragma once
// Keeps the calling rank's memory out of other processes of the same user. A GPU executor runs
// as the job's user, and its seccomp filter cannot refuse a read-only open (the CUDA driver
// opens files at will), so without this it could read /proc/<pid>/mem of the coordinator and
// the benchmark ranks, which hold other candidates' sources, rewards and the server's token.
// A non-dumpable process's memory opens only for a caller with CAP_SYS_PTRACE over it, which
// no executor has (bench_node/sandbox/capabilities.hpp).
//
// Open MPI's single-copy transport between ranks of a node (CMA, process_vm_readv) needs the
// same access, so it is turned off: messages go through the shared-memory fragments instead
// (the tasks and results are small). Call before MPI_Init.
namespace hpcreward {

// Returns false if the process could not be made non-dumpable (errno says why).
bool make_rank_memory_private();

}  // namespace hpcreward
