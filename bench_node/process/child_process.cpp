#include "bench_node/process/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <bitset>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <memory>

#include "bench_node/process/frames.hpp"

namespace hpcreward {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kExecErrorFd = 5;  // CLOEXEC in the child: closed by a successful execve
constexpr int kChildFds = kChildGateFd + 1;  // fds 0..7 are placed; the rest are closed

struct ExecError {
  int step;  // which call failed
  int error;  // its errno
};
enum Step : int { kStepFds = 1, kStepLimits, kStepChdir, kStepExec };

const char *step_name(int step) {
  switch (step) {
    case kStepFds: return "setting up descriptors";
    case kStepLimits: return "setrlimit";
    case kStepChdir: return "chdir";
    case kStepExec: return "execve";
  }
  return "start";
}

// A file descriptor closed on scope exit.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

bool make_pipe(Fd &read_end, Fd &write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  read_end.reset(fds[0]);
  write_end.reset(fds[1]);
  return true;
}

// --- in the child, between fork and execve: async-signal-safe calls only -------------

[[noreturn]] void child_fail(int step) {
  const ExecError report{step, errno};
  [[maybe_unused]] ssize_t ignored = ::write(kExecErrorFd, &report, sizeof report);
  ::_exit(127);
}

// Never above the inherited hard limit (raising it needs privilege).
bool set_limit(int resource, std::optional<std::uint64_t> value) {
  if (!value) return true;
  rlimit inherited;
  if (::getrlimit(resource, &inherited) != 0) return false;
  rlimit limit;
  limit.rlim_max = static_cast<rlim_t>(*value);
  if (resource == RLIMIT_CPU) limit.rlim_max += 1;  // SIGXCPU first, SIGKILL a second later
  if (inherited.rlim_max != RLIM_INFINITY && limit.rlim_max > inherited.rlim_max)
    limit.rlim_max = inherited.rlim_max;
  limit.rlim_cur = std::min(static_cast<rlim_t>(*value), limit.rlim_max);
  return ::setrlimit(resource, &limit) == 0;
}

struct ChildPlan {  // everything the child needs, prepared before fork
  const char *program;
  char *const *argv;
  char *const *envp;
  const char *working_directory;  // nullptr: stay
  const ChildLimits *limits;
  int sources[kChildFds];  // what becomes fds 0..kChildFds-1 in the child; -1: closed
  int close_from_fallback;  // highest fd + 1 to close when close_range is missing
  pid_t parent;             // the rank: the child must not outlive it
};

[[noreturn]] void exec_child(const ChildPlan &plan) {
  ::setpgid(0, 0);
  // A rank killed by its job (mpirun, scancel) takes its compiler or runner child along;
  // the child sits in its own process group, so the group kill would miss it.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != plan.parent) ::_exit(127);
  // Handlers are reset by execve, ignored signals are not; the rank's mask is inherited.
  // SIGUSR1 and SIGUSR2 keep the rank's disposition: a rank ignores them (the job scripts'
  // stop signals, which proctrack/cgroup delivers to every process of the step), and a compiler or
  // candidate killed by it would be logged as a failure it did not cause. Candidates cannot
  // change it back (the seccomp filter allows rt_sigaction only for glibc's own signals).
  struct sigaction default_action;
  ::memset(&default_action, 0, sizeof default_action);
  default_action.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP && sig != SIGUSR1 && sig != SIGUSR2) ::sigaction(sig, &default_action, nullptr);
  sigset_t empty;
  ::sigemptyset(&empty);
  ::sigprocmask(SIG_SETMASK, &empty, nullptr);

  // Lift every source above the target range, then place it.
  int lifted[kChildFds];
  for (int i = 0; i < kChildFds; ++i) {
    lifted[i] = -1;
    if (plan.sources[i] >= 0 && (lifted[i] = ::fcntl(plan.sources[i], F_DUPFD, 10)) < 0) {
      // The error pipe may not be in place yet; nothing to report to.
      ::_exit(127);
    }
  }
  for (int i = 0; i < kChildFds; ++i) {
    if (lifted[i] >= 0) {
      if (::dup2(lifted[i], i) < 0) ::_exit(127);
    } else {
      ::close(i);
    }
  }
  ::fcntl(kExecErrorFd, F_SETFD, FD_CLOEXEC);
  if (::syscall(SYS_close_range, static_cast<unsigned>(kChildFds), ~0U, 0U) != 0)
    for (int fd = kChildFds; fd < plan.close_from_fallback; ++fd) ::close(fd);

  const ChildLimits &limits = *plan.limits;
  if (!set_limit(RLIMIT_AS, limits.address_space_bytes) ||
      !set_limit(RLIMIT_DATA, limits.data_bytes) ||
      !set_limit(RLIMIT_CPU, limits.cpu_seconds) ||
      !set_limit(RLIMIT_FSIZE, limits.file_size_bytes) ||
      !set_limit(RLIMIT_NOFILE, limits.open_files) ||
      !set_limit(RLIMIT_CORE, limits.core_bytes))
    child_fail(kStepLimits);
  if (plan.working_directory != nullptr && ::chdir(plan.working_directory) != 0)
    child_fail(kStepChdir);
  ::execve(plan.program, plan.argv, plan.envp);
  child_fail(kStepExec);
}

// --- in the parent ---------------------------------------------------------------------

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

// Reads what is available (at most 1 MiB per call, so a writer that never stops can't keep
// the caller from its deadline); keeps up to `limit` bytes in `kept`. False at end of file.
bool drain(int fd, std::string &kept, std::size_t limit, std::size_t &total) {
  char chunk[65536];
  for (int reads = 0; reads < 16; ++reads) {
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got > 0) {
      total += static_cast<std::size_t>(got);
      if (kept.size() < limit)
        kept.append(chunk, std::min(static_cast<std::size_t>(got), limit - kept.size()));
      continue;
    }
    if (got == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;  // other errors: treat as closed
  }
  return true;
}

bool child_has_exited(pid_t pid) {
  siginfo_t info;
  ::memset(&info, 0, sizeof info);
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid;
}

std::vector<char *> c_strings(std::vector<std::string> &strings) {
  std::vector<char *> pointers;
  for (std::string &text : strings) pointers.push_back(text.data());
  pointers.push_back(nullptr);
  return pointers;
}

double seconds(const timeval &tv) { return static_cast<double>(tv.tv_sec) + 1e-6 * tv.tv_usec; }

}  // namespace

std::string describe_signal(int signal) {
  const char *abbreviation = ::sigabbrev_np(signal);
  const char *description = ::strsignal(signal);
  std::string text = abbreviation != nullptr ? std::string("SIG") + abbreviation
                                             : "signal " + std::to_string(signal);
  if (description != nullptr) text += std::string(" (") + description + ")";
  return text;
}

std::string first_line(const std::string &text, std::size_t limit) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::size_t first = start, last = end;
    while (first < last && std::isspace(static_cast<unsigned char>(text[first]))) ++first;
    while (last > first && std::isspace(static_cast<unsigned char>(text[last - 1]))) --last;
    if (last > first) {
      std::string line = text.substr(first, std::min(last - first, limit));
      for (char &c : line)
        if (static_cast<unsigned char>(c) < 0x20) c = ' ';
      return line;
    }
    start = end + 1;
  }
  return {};
}

struct RunningChild::State {
  ChildSpec spec;
  ChildOutcome outcome;
  pid_t pid = -1;
  bool finished = false;
  Fd output_read, result_read, progress_read, gate, pidfd;
  std::bitset<256> gate_seen;  // every byte the child has sent through the gate
  bool gate_done = false;      // the child closed the gate, or a wait ran out
  std::string result_frames;   // a serving child's result pipe, not yet taken as frames
  std::size_t result_bytes = 0;  // every byte seen on the result pipe (finish)
  Clock::time_point started;
};

RunningChild::RunningChild(const ChildSpec &spec) : state_(std::make_unique<State>()) {
  state_->spec = spec;
  start();
}

void RunningChild::start() {
  State &state = *state_;
  const ChildSpec &spec = state.spec;
  ChildOutcome &outcome = state.outcome;
  auto start_failed = [&](const std::string &what) { outcome.start_error = what + ": " + ::strerror(errno); };

  std::vector<std::string> argv_strings{spec.program};
  argv_strings.insert(argv_strings.end(), spec.arguments.begin(), spec.arguments.end());
  std::vector<std::string> env_strings = spec.environment;
  const std::vector<char *> argv = c_strings(argv_strings);
  const std::vector<char *> envp = c_strings(env_strings);

  Fd dev_null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!dev_null.valid()) return start_failed("open /dev/null");
  Fd output_write, result_write, token_read, token_write, error_read, error_write, progress_write, gate_child;
  if (!make_pipe(state.output_read, output_write) || !make_pipe(error_read, error_write))
    return start_failed("pipe");
  if (spec.result_pipe && !make_pipe(state.result_read, result_write)) return start_failed("pipe");
  if (spec.progress_pipe && !make_pipe(state.progress_read, progress_write)) return start_failed("pipe");
  if (spec.gate) {
    int ends[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) return start_failed("socketpair");
    state.gate.reset(ends[0]);
    gate_child.reset(ends[1]);
  }
  if (spec.token) {
    // Written before fork: the pipe buffer holds it, so the write can't block or SIGPIPE.
    if (spec.token->size() > 4096 || !make_pipe(token_read, token_write)) return start_failed("pipe");
    if (::write(token_write.get(), spec.token->data(), spec.token->size()) !=
        static_cast<ssize_t>(spec.token->size()))
      return start_failed("write token");
    token_write.reset();
  }

  rlimit open_files;
  int close_from = 1024;
  if (::getrlimit(RLIMIT_NOFILE, &open_files) == 0 && open_files.rlim_cur != RLIM_INFINITY)
    close_from = static_cast<int>(std::min<rlim_t>(open_files.rlim_cur, 1 << 20));
  const ChildPlan plan{
      spec.program.c_str(),
      argv.data(),
      envp.data(),
      spec.working_directory.empty() ? nullptr : spec.working_directory.c_str(),
      &spec.limits,
      {dev_null.get(), output_write.get(), output_write.get(), result_write.get(),
       token_read.get(), error_write.get(), progress_write.get(), gate_child.get()},
      close_from,
      ::getpid()};

  state.started = Clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) return start_failed("fork");
  if (pid == 0) exec_child(plan);

  ::setpgid(pid, pid);  // also in the child; whichever runs first wins the race
  dev_null.reset();
  output_write.reset();
  result_write.reset();
  token_read.reset();
  error_write.reset();
  progress_write.reset();
  gate_child.reset();

  // A successful execve closes the error pipe; a failure sends a report first.
  ExecError report{0, 0};
  ssize_t got;
  do got = ::read(error_read.get(), &report, sizeof report);
  while (got < 0 && errno == EINTR);
  if (got != 0) {
    ::kill(-pid, SIGKILL);
    int status;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    errno = got == static_cast<ssize_t>(sizeof report) ? report.error : EIO;
    return start_failed(std::string(step_name(report.step)) + " " + spec.program);
  }
  outcome.started = true;
  state.pid = pid;
  state.pidfd.reset(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  set_nonblocking(state.output_read.get());
  if (state.result_read.valid()) set_nonblocking(state.result_read.get());
  if (state.progress_read.valid()) set_nonblocking(state.progress_read.get());
}

RunningChild::~RunningChild() {
  if (state_ && state_->pid > 0 && !state_->finished) {
    ::kill(-state_->pid, SIGKILL);
    ::kill(state_->pid, SIGKILL);
    while (::waitpid(state_->pid, nullptr, 0) < 0 && errno == EINTR) {}
  }
}

RunningChild::RunningChild(RunningChild &&) noexcept = default;

bool RunningChild::started() const { return state_->outcome.started; }

bool RunningChild::send(char byte) {
  if (!state_->gate.valid()) return false;
  ssize_t sent;
  do sent = ::send(state_->gate.get(), &byte, 1, MSG_NOSIGNAL);
  while (sent < 0 && errno == EINTR);
  return sent == 1;
}

bool RunningChild::await(char byte, double timeout_s) { return await_any(std::string_view(&byte, 1), timeout_s); }

bool RunningChild::await_any(std::string_view bytes, double timeout_s) {
  State &state = *state_;
  auto seen = [&] {
    for (char byte : bytes)
      if (state.gate_seen.test(static_cast<unsigned char>(byte))) return true;
    return false;
  };
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::max(timeout_s, 0.0)));
  while (!seen()) {
    if (!state.gate.valid() || state.gate_done) return false;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd gate{state.gate.get(), POLLIN, 0};
    const int ready = ::poll(&gate, 1, static_cast<int>(std::clamp<long long>(left, 0, 1 << 30)));
    if (ready < 0 && errno == EINTR) continue;
    unsigned char got = 0;
    ssize_t read = 0;
    if (ready > 0) {
      do read = ::recv(state.gate.get(), &got, 1, 0);
      while (read < 0 && errno == EINTR);
    }
    if (read != 1) {  // closed by the child, or waited out: later waits end at once too
      state.gate_done = true;
      return false;
    }
    state.gate_seen.set(got);
  }
  return true;
}

bool RunningChild::send_frame(const std::string &payload) {
  if (!state_->gate.valid()) return false;
  const std::string message = 'T' + frame(payload);
  std::size_t sent = 0;
  while (sent < message.size()) {
    const ssize_t wrote = ::send(state_->gate.get(), message.data() + sent, message.size() - sent, MSG_NOSIGNAL);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return false;
    sent += static_cast<std::size_t>(wrote);
  }
  return true;
}

void RunningChild::forget_gate_bytes() {
  State &state = *state_;
  if (state.gate.valid()) {
    char pending[256];
    ssize_t read;
    do read = ::recv(state.gate.get(), pending, sizeof pending, MSG_DONTWAIT);
    while (read > 0 || (read < 0 && errno == EINTR));
  }
  state.gate_seen.reset();
}

bool RunningChild::said(char byte) const { return state_->gate_seen.test(static_cast<unsigned char>(byte)); }

bool RunningChild::running() const {
  const State &state = *state_;
  return state.outcome.started && !state.finished && state.pid > 0 && !child_has_exited(state.pid);
}

std::optional<std::string> RunningChild::await_result_frame(double timeout_s) {
  State &state = *state_;
  ChildOutcome &outcome = state.outcome;
  if (!outcome.started || state.finished) return std::nullopt;
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::max(timeout_s, 0.0)));
  const std::size_t limit = state.spec.result_limit;
  std::size_t total = 0;
  for (;;) {
    bool too_long = false;
    if (std::optional<std::string> payload = take_frame(state.result_frames, limit, too_long)) return payload;
    if (too_long || !state.result_read.valid()) return std::nullopt;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return std::nullopt;
    pollfd fds[3] = {{state.result_read.get(), POLLIN, 0}, {-1, POLLIN, 0}, {-1, POLLIN, 0}};
    if (state.output_read.valid()) fds[1].fd = state.output_read.get();
    if (state.pidfd.valid()) fds[2].fd = state.pidfd.get();
    const int ready = ::poll(fds, 3, static_cast<int>(std::min<long long>(state.pidfd.valid() ? left : 20, 1 << 30)));
    if (ready < 0 && errno != EINTR) return std::nullopt;
    if (fds[1].revents != 0 && !drain(state.output_read.get(), outcome.output, state.spec.output_limit, outcome.output_bytes))
      state.output_read.reset();
    // A frame the child wrote just before it ended is still taken.
    const bool ended = fds[2].revents != 0 || (!state.pidfd.valid() && child_has_exited(state.pid));
    if ((fds[0].revents != 0 || ended) &&
        !drain(state.result_read.get(), state.result_frames, limit + 2 * sizeof(std::uint32_t), total))
      state.result_read.reset();
    if (ended) {
      bool ignored = false;
      return take_frame(state.result_frames, limit, ignored);
    }
  }
}

ChildOutcome RunningChild::stop(bool timed_out) {
  State &state = *state_;
  if (!state.outcome.started || state.finished) return state.outcome;
  state.finished = true;
  state.outcome.timed_out = timed_out;
  reap(state.started);
  return state.outcome;
}

ChildOutcome RunningChild::finish() {
  State &state = *state_;
  ChildOutcome &outcome = state.outcome;
  if (!outcome.started || state.finished) return outcome;
  state.finished = true;
  const ChildSpec &spec = state.spec;
  const pid_t pid = state.pid;
  // A gated child waited for its go: its deadline runs from now.
  const Clock::time_point started = spec.gate ? Clock::now() : state.started;
  const Clock::time_point deadline =
      started + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(spec.deadline_s));
  Fd &output_read = state.output_read, &result_read = state.result_read, &progress_read = state.progress_read,
     &pidfd = state.pidfd;
  std::size_t &result_bytes = state.result_bytes;
  const std::size_t result_keep = spec.result_limit;
  const bool watch_silence = progress_read.valid() && spec.silence_limit_s > 0;
  const auto silence_limit =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(spec.silence_limit_s));
  Clock::time_point last_progress = started;
  std::string progress_discarded;

  for (;;) {
    if (child_has_exited(pid)) break;
    const Clock::time_point now = Clock::now();
    if (now >= deadline) {
      outcome.timed_out = true;
      break;
    }
    if (watch_silence && now - last_progress >= silence_limit) {
      outcome.went_silent = true;
      break;
    }
    const auto remaining = (watch_silence ? std::min(deadline, last_progress + silence_limit) : deadline) - now;
    pollfd fds[4];
    nfds_t count = 0;
    int output_index = -1, result_index = -1, progress_index = -1;
    if (output_read.valid()) {
      output_index = static_cast<int>(count);
      fds[count++] = {output_read.get(), POLLIN, 0};
    }
    if (result_read.valid()) {
      result_index = static_cast<int>(count);
      fds[count++] = {result_read.get(), POLLIN, 0};
    }
    if (progress_read.valid()) {
      progress_index = static_cast<int>(count);
      fds[count++] = {progress_read.get(), POLLIN, 0};
    }
    if (pidfd.valid()) fds[count++] = {pidfd.get(), POLLIN, 0};
    auto wait_ms = std::chrono::ceil<std::chrono::milliseconds>(remaining).count();
    if (!pidfd.valid()) wait_ms = std::min<long long>(wait_ms, 20);  // poll waitid instead
    const int ready = ::poll(fds, count, static_cast<int>(std::min<long long>(wait_ms, 1 << 30)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    if (output_index >= 0 && fds[output_index].revents != 0 &&
        !drain(output_read.get(), outcome.output, spec.output_limit, outcome.output_bytes))
      output_read.reset();
    if (result_index >= 0 && fds[result_index].revents != 0 &&
        !drain(result_read.get(), outcome.result, result_keep, result_bytes))
      result_read.reset();
    if (progress_index >= 0 && fds[progress_index].revents != 0) {
      const std::size_t before = outcome.progress_marks;
      // A closed progress pipe stops the watchdog's resets, not the child: it goes silent.
      if (!drain(progress_read.get(), progress_discarded, 0, outcome.progress_marks)) progress_read.reset();
      if (outcome.progress_marks > before) last_progress = Clock::now();
    }
  }

  reap(started);
  return outcome;
}

void RunningChild::reap(Clock::time_point started) {
  State &state = *state_;
  ChildOutcome &outcome = state.outcome;
  const ChildSpec &spec = state.spec;
  const pid_t pid = state.pid;
  Fd &output_read = state.output_read, &result_read = state.result_read;
  std::size_t &result_bytes = state.result_bytes;
  const std::size_t result_keep = spec.result_limit;
  // The child is a zombie (or past its deadline): its pgid can't be reused yet, so kill
  // whatever it left in its group, then reap it.
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {}
  outcome.wall_s = std::chrono::duration<double>(Clock::now() - started).count();
  state.pid = -1;
  outcome.cpu_s = seconds(usage.ru_utime) + seconds(usage.ru_stime);

  // What is still buffered in the pipes (writers are dead, unless one left the group).
  if (output_read.valid()) drain(output_read.get(), outcome.output, spec.output_limit, outcome.output_bytes);
  if (result_read.valid()) drain(result_read.get(), outcome.result, result_keep, result_bytes);
  outcome.result_overflow = result_bytes > result_keep;

  if (WIFEXITED(status)) {
    outcome.exited = true;
    outcome.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    outcome.signaled = true;
    outcome.signal = WTERMSIG(status);
  }
}

ChildOutcome run_child(const ChildSpec &spec) {
  RunningChild child(spec);
  return child.finish();
}

}  // namespace hpcreward
