#include "bench_node/sandbox/descriptor_passing.hpp"

#include <sys/socket.h>

#include <cstring>

namespace hpcreward {

namespace {
// A one-byte message with room for one descriptor.
struct OneDescriptorMessage {
  OneDescriptorMessage() {
    header.msg_iov = &data;
    header.msg_iovlen = 1;
    header.msg_control = space;
    header.msg_controllen = sizeof space;
  }
  char byte = 'd';
  iovec data{&byte, 1};
  alignas(cmsghdr) char space[CMSG_SPACE(sizeof(int))] = {};
  msghdr header{};
};
}  // namespace

bool send_descriptor(int socket, int fd) {
  OneDescriptorMessage message;
  cmsghdr *control = CMSG_FIRSTHDR(&message.header);
  control->cmsg_level = SOL_SOCKET;
  control->cmsg_type = SCM_RIGHTS;
  control->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(control), &fd, sizeof fd);
  return ::sendmsg(socket, &message.header, MSG_NOSIGNAL) == 1;
}

int receive_descriptor(int socket) {
  OneDescriptorMessage message;
  if (::recvmsg(socket, &message.header, MSG_CMSG_CLOEXEC) != 1) return -1;
  const cmsghdr *control = CMSG_FIRSTHDR(&message.header);
  if (control == nullptr || control->cmsg_level != SOL_SOCKET || control->cmsg_type != SCM_RIGHTS) return -1;
  int fd = -1;
  std::memcpy(&fd, CMSG_DATA(control), sizeof fd);
  return fd;
}

}  // namespace hpcreward
