#pragma once
// A forked child under an executor's seccomp filter, for the sandbox's tests: what the filter
// lets through and what it kills, seen from the parent.
//
// Safety: each child first lowers its own limits (RLIMIT_AS, RLIMIT_CPU, no core files),
// arms an alarm, and installs the filter before it tries anything hostile. The parent kills
// the child, by pid, at a deadline.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "bench_node/sandbox/seccomp_filter.hpp"

namespace hpcreward::testing {

// What happened to one child.
struct Ended {
  bool exited = false;
  int code = -1;
  bool signaled = false;
  int signal = 0;
  bool timed_out = false;
  std::string output;  // stdout + stderr
  std::string result;  // what it wrote to the result fd
};

inline std::string describe(const Ended &e) {
  std::string text = e.timed_out ? "timed out, " : "";
  if (e.exited) text += "exited " + std::to_string(e.code);
  if (e.signaled)
    text += std::string("killed by ") + (sigabbrev_np(e.signal) ? sigabbrev_np(e.signal) : "?");
  return text + "; output: " + e.output.substr(0, 300);
}

constexpr int kInstallFailed = 100;

struct Hooks {
  std::function<void()> before_install;  // runs in the child, unfiltered, after the limits
  // Installs the filter (and whatever else the child's executor sets up); the CPU
  // executor's filter when empty. Throws what the installer throws.
  std::function<void()> install;
};

// The result fd the filter was told about, in the child.
inline int g_result_fd = -1;

// Runs `body` in a forked child under the filter; its return value is the exit code (0 for
// "everything as expected"). The child's stdout and stderr go to one pipe, g_result_fd to
// another; the parent collects both and kills the child (by pid) at the deadline.

inline Ended run_filtered(const std::function<int()> &body, const Hooks &hooks = {},
                   double deadline_s = 30) {
  int output[2], result[2];
  if (::pipe2(output, O_CLOEXEC) != 0 || ::pipe2(result, O_CLOEXEC) != 0) std::abort();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) std::abort();
  if (pid == 0) {
    ::dup2(output[1], 1);
    ::dup2(output[1], 2);
    g_result_fd = ::fcntl(result[1], F_DUPFD, 20);
    ::close(output[0]);
    ::close(result[0]);
    const rlimit memory{rlim_t{4} << 30, rlim_t{4} << 30};
    const rlimit cpu{20, 21};
    const rlimit core{0, 0};
    ::setrlimit(RLIMIT_AS, &memory);
    ::setrlimit(RLIMIT_CPU, &cpu);
    ::setrlimit(RLIMIT_CORE, &core);
    ::alarm(static_cast<unsigned>(deadline_s) + 5);
    if (hooks.before_install) hooks.before_install();
    try {
      if (hooks.install)
        hooks.install();
      else
        install_candidate_filter({.result_fd = g_result_fd, .self = 0});
    } catch (const std::exception &error) {
      std::fprintf(stderr, "install failed: %s\n", error.what());
      std::fflush(stderr);
      ::_exit(kInstallFailed);
    }
    const int code = body();
    std::fflush(stdout);
    ::_exit(code);
  }
  ::close(output[1]);
  ::close(result[1]);
  Ended ended;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(deadline_s);
  int status = 0;
  bool open_output = true, open_result = true;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      ended.timed_out = true;
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    pollfd fds[2] = {{open_output ? output[0] : -1, POLLIN, 0},
                     {open_result ? result[0] : -1, POLLIN, 0}};
    ::poll(fds, 2, 20);
    char buffer[4096];
    for (int i = 0; i < 2; ++i)
      if (fds[i].revents != 0) {
        const ssize_t got = ::read(fds[i].fd, buffer, sizeof buffer);
        if (got > 0)
          (i == 0 ? ended.output : ended.result).append(buffer, static_cast<std::size_t>(got));
        else
          (i == 0 ? open_output : open_result) = false;
      }
  }
  // The rest of what the (now dead) child wrote.
  char buffer[4096];
  ssize_t got;
  ::fcntl(output[0], F_SETFL, O_NONBLOCK);
  ::fcntl(result[0], F_SETFL, O_NONBLOCK);
  while ((got = ::read(output[0], buffer, sizeof buffer)) > 0)
    ended.output.append(buffer, static_cast<std::size_t>(got));
  while ((got = ::read(result[0], buffer, sizeof buffer)) > 0)
    ended.result.append(buffer, static_cast<std::size_t>(got));
  ::close(output[0]);
  ::close(result[0]);
  if (WIFEXITED(status)) {
    ended.exited = true;
    ended.code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    ended.signaled = true;
    ended.signal = WTERMSIG(status);
  }
  return ended;
}

inline void expect_clean_exit(const Ended &e) {
  EXPECT_TRUE(e.exited && e.code == 0) << describe(e);
}

inline void expect_sigsys(const Ended &e) {
  EXPECT_TRUE(e.signaled && e.signal == SIGSYS) << describe(e);
}

}  // namespace hpcreward::testing
