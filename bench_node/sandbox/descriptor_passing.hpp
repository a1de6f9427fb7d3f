#pragma once
// One file descriptor over a Unix socket (SCM_RIGHTS): how the GPU measurer hands the executor
// the operand pool's descriptor once both have created their CUDA contexts.
namespace hpcreward {

// Sends `fd` with one byte; false (errno set) when it could not.
bool send_descriptor(int socket, int fd);
// The descriptor received (close-on-exec), or -1.
int receive_descriptor(int socket);

}  // namespace hpcreward
