#include "bench_node/gpu/setup_turns.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <optional>
#include <thread>
#include <utility>

namespace hpcreward {
namespace {

struct AbstractAddress {
  sockaddr_un address{};
  socklen_t length = 0;
};

// sun_path starting with a NUL byte: the abstract namespace, no file.
AbstractAddress abstract_address(const std::string &name) {
  AbstractAddress a;
  a.address.sun_family = AF_UNIX;
  const std::size_t bytes = std::min(name.size(), sizeof a.address.sun_path - 1);
  std::memcpy(a.address.sun_path + 1, name.data(), bytes);
  a.length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + bytes);
  return a;
}

// The user of the process listening on the name; none when nobody listens (yet) or its queue
// is full.
std::optional<uid_t> holders_user(const AbstractAddress &a) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return std::nullopt;
  std::optional<uid_t> user;
  if (::connect(fd, reinterpret_cast<const sockaddr *>(&a.address), a.length) == 0) {
    ucred credentials{};
    socklen_t size = sizeof credentials;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0) user = credentials.uid;
  }
  ::close(fd);
  return user;
}

// A holder of ours listens right after it binds: this many looks at a bound name that nobody
// listens on (0.5 ms apart) mean a holder that is not one of ours.
constexpr int kLooksAtASilentHolder = 20;

}  // namespace

SetupTurns::SetupTurns(std::string name, std::string who) : name_(std::move(name)), who_(std::move(who)) {}

SetupTurns::Turn SetupTurns::take(double max_wait_s) const {
  if (name_.empty()) return Turn(Outcome::off);
  const AbstractAddress a = abstract_address(name_);
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(max_wait_s);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Turn(Outcome::failed);
  // Closes the socket on every way out but the turn's.
  const auto without = [fd](Outcome outcome) {
    ::close(fd);
    return Turn(outcome);
  };
  bool holder_is_ours = false;
  int silent_looks = 0;
  for (;;) {
    // A bind that failed leaves the socket unbound: the same one tries again.
    if (::bind(fd, reinterpret_cast<const sockaddr *>(&a.address), a.length) == 0) {
      ::listen(fd, 64);  // so that a waiter can ask whose turn it is
      return Turn(Outcome::held, fd);
    }
    if (errno != EADDRINUSE) return without(Outcome::failed);
    // Asked once a take: every waiter's question stays queued at the holder until it lets go.
    if (!holder_is_ours) {
      const std::optional<uid_t> user = holders_user(a);
      holder_is_ours = user && *user == ::getuid();
      if ((user && !holder_is_ours) || (!user && ++silent_looks >= kLooksAtASilentHolder)) {
        if (!std::exchange(told_of_stranger_, true))
          std::fprintf(stderr, "%sset-up turns: the node's turn is held by %s; set-ups start at once while it is\n",
                       who_.c_str(), user ? "another user's process" : "a process that does not answer");
        return without(Outcome::foreign_holder);
      }
    }
    if (std::chrono::steady_clock::now() >= until) return without(Outcome::waited_out);
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}

SetupTurns::Turn::~Turn() {
  if (fd_ >= 0) ::close(fd_);
}

std::string default_setup_turns_name() { return "hpcreward-gpu-setup-turns." + std::to_string(::getuid()); }

bool setup_turns_wanted(const std::string &setting, int gpu_ranks_on_node) {
  if (setting == "auto") return gpu_ranks_on_node <= kMostGpuRanksTakingTurns;
  return setting == "1";
}

}  // namespace hpcreward
