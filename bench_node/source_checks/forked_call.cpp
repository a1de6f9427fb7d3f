#include "bench_node/source_checks/forked_call.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>

#include "bench_node/process/child_process.hpp"
#include "bench_node/process/write_all.hpp"

namespace hpcreward::source_checks {

namespace {

constexpr int kOutOfMemory = 3;
constexpr int kThrew = 4;
constexpr std::size_t kOutputLimit = 1 << 20;

// The process's current virtual size in bytes (0 when unknown).
std::uint64_t virtual_size() {
  std::FILE *statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr) return 0;
  unsigned long pages = 0;
  const int read = std::fscanf(statm, "%lu", &pages);
  std::fclose(statm);
  return read == 1 ? static_cast<std::uint64_t>(pages) * ::sysconf(_SC_PAGESIZE) : 0;
}

[[noreturn]] void child(int out, const std::function<void(const Send &)> &work,
                        const ForkLimits &limits, pid_t parent) {
  // Dies with the rank that forked it (see child_process.cpp).
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  const int null = ::open("/dev/null", O_RDWR);
  if (null >= 0) {
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
  }
  const rlimit core{0, 0};
  ::setrlimit(RLIMIT_CORE, &core);
  const auto cpu = static_cast<rlim_t>(std::ceil(limits.deadline_s)) + 1;
  const rlimit cpu_limit{cpu, cpu + 1};
  ::setrlimit(RLIMIT_CPU, &cpu_limit);
  const rlim_t memory = virtual_size() + limits.memory_bytes;
  const rlimit memory_limit{memory, memory};
  ::setrlimit(RLIMIT_AS, &memory_limit);
  try {
    work([out](const std::string &part) { write_all(out, part); });
  } catch (const std::bad_alloc &) {
    ::_exit(kOutOfMemory);
  } catch (...) {
    ::_exit(kThrew);
  }
  ::_exit(0);
}

}  // namespace

ForkOutcome run_forked(const std::function<std::string()> &work, const ForkLimits &limits) {
  ForkOutcome outcome = run_forked_in_parts([&](const Send &send) { send(work()); }, limits);
  if (outcome.end != ForkOutcome::End::returned) outcome.output.clear();
  return outcome;
}

ForkOutcome run_forked_in_parts(const std::function<void(const Send &)> &work,
                                const ForkLimits &limits) {
  ForkOutcome outcome;
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    outcome.detail = std::string("pipe: ") + std::strerror(errno);
    return outcome;
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    outcome.detail = std::string("fork: ") + std::strerror(errno);
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return outcome;
  }
  if (pid == 0) {
    ::close(pipe_fds[0]);
    child(pipe_fds[1], work, limits, parent);
  }
  ::close(pipe_fds[1]);

  using Clock = std::chrono::steady_clock;
  const auto after = [start = Clock::now()](double seconds) {
    return start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  };
  const Clock::time_point deadline = after(limits.deadline_s);
  // Until the first part arrives, the (earlier) first-part deadline holds.
  const Clock::time_point first_part_deadline =
      limits.first_part_deadline_s > 0 ? std::min(deadline, after(limits.first_part_deadline_s))
                                       : deadline;
  bool timed_out = false;
  char buffer[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        (outcome.output.empty() ? first_part_deadline : deadline) - Clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd poll_fd{pipe_fds[0], POLLIN, 0};
    const int ready = ::poll(&poll_fd, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;  // the loop head sees the deadline
    const ssize_t got = ::read(pipe_fds[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // end of file: the child is gone (or closed its end)
    if (outcome.output.size() < kOutputLimit)
      outcome.output.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(pipe_fds[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    outcome.end = ForkOutcome::End::timed_out;
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    outcome.end = ForkOutcome::End::returned;
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == kOutOfMemory) {
    outcome.end = ForkOutcome::End::out_of_memory;
  } else if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL)) {
    outcome.end = ForkOutcome::End::timed_out;  // the CPU-time limit
  } else {
    outcome.end = ForkOutcome::End::crashed;
    outcome.detail = WIFSIGNALED(status) ? describe_signal(WTERMSIG(status))
                                         : "exit status " + std::to_string(WEXITSTATUS(status));
  }
  return outcome;
}

}  // namespace hpcreward::source_checks
