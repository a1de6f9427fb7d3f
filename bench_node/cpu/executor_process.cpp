#include "bench_node/cpu/executor_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <vector>

#include "bench_node/process/classify.hpp"
#include "bench_node/cpu/executor_protocol.hpp"
#include "bench_node/process/monotonic_clock.hpp"

namespace hpcreward {

namespace {

bool over_cpu_limit(double &limit_s) {
  rlimit limit{};
  rusage usage{};
  if (::getrlimit(RLIMIT_CPU, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return false;
  limit_s = static_cast<double>(limit.rlim_cur);
  ::getrusage(RUSAGE_CHILDREN, &usage);
  const double used = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
                      1e-6 * (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  return used >= limit_s;
}

}  // namespace

std::string untrusted_text(const char *text, std::size_t limit) {
  std::string out(text, ::strnlen(text, limit));
  for (char &c : out)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
  return out;
}

Verdict executor_end_verdict(const siginfo_t &info) {
  if (info.si_code == CLD_EXITED)
    return {Status::runtime_error, "exited with code " + std::to_string(info.si_status) +
                                       " in a call (the candidate ended its own process)"};
  double cpu_limit_s = 0;
  const bool over_cpu = over_cpu_limit(cpu_limit_s);
  return verdict_for_signal(info.si_status, over_cpu, cpu_limit_s, "");
}

pid_t spawn_executor(std::vector<std::string> arguments, const std::vector<int> &descriptors) {
  std::vector<char *> argv;
  for (std::string &argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork of the executor");
  if (pid > 0) return pid;
  // The executor gets `descriptors` and the standard streams, nothing else: not the result
  // pipe, the token or the progress pipe (async-signal-safe calls only until execv). Each is
  // first copied above every target so no dup2 overwrites one still to be placed.
  const int first = kExecutorRegionFd, count = static_cast<int>(descriptors.size());
  int above[8];
  if (count > 8) ::_exit(127);
  for (int i = 0; i < count; ++i)
    if ((above[i] = ::fcntl(descriptors[i], F_DUPFD, first + count)) < 0) ::_exit(127);
  for (int i = 0; i < count; ++i)
    if (::dup2(above[i], first + i) < 0) ::_exit(127);
  ::syscall(SYS_close_range, first + count, ~0U, 0);
  const rlimit no_files{0, 0};  // no file writes (pipes are not files); the region is sized
  if (::setrlimit(RLIMIT_FSIZE, &no_files) != 0) ::_exit(127);
  ::execv(argv[0], argv.data());
  ::_exit(127);
}

ExecutorProcess::ExecutorProcess(const ExecutorOptions &options)
    : options_(options), region_(options.operand_bytes) {
  static_assert(sizeof(ExecutorControl) <= SharedRegion::kControlBytes);
}

ExecutorProcess::~ExecutorProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {}
  }
}

ExecutorControl &ExecutorProcess::control() const { return *reinterpret_cast<ExecutorControl *>(region_.base()); }

siginfo_t ExecutorProcess::next_change() const {
  for (;;) {
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WSTOPPED) == 0) return info;
    if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "waitid on the executor");
  }
}

Verdict ExecutorProcess::resume(double &seconds) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const double start = monotonic_seconds();
  if (::kill(pid_, SIGCONT) != 0) throw std::system_error(errno, std::generic_category(), "SIGCONT to the executor");
  const siginfo_t info = next_change();
  seconds = monotonic_seconds() - start;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (info.si_code == CLD_STOPPED) return {};
  pid_ = -1;  // reaped
  return executor_end_verdict(info);
}

Verdict ExecutorProcess::start() {
  std::vector<std::string> arguments = {options_.program, "--region-bytes", std::to_string(region_.bytes()),
                                        "--object", options_.object, "--threads", options_.threads ? "allowed" : "none"};
  if (options_.openmp_threads > 0) arguments.insert(arguments.end(), {"--openmp-threads", std::to_string(options_.openmp_threads)});
  if (options_.forced_switches_us > 0)
    arguments.insert(arguments.end(), {"--forced-switches-us", std::to_string(options_.forced_switches_us)});
  pid_ = spawn_executor(std::move(arguments), {region_.fd()});
  // The first stop: started, region mapped. Then the handshake, with no candidate loaded.
  if (next_change().si_code != CLD_STOPPED) {
    pid_ = -1;
    return {Status::runtime_error, "the executor did not start (" + options_.program + ")"};
  }
  control().command = ExecutorCommand::none;
  double least = 1;
  for (int round = 0; round < options_.calibration_rounds; ++round) {
    double seconds = 0;
    if (Verdict verdict = resume(seconds); !verdict.ok()) return verdict;
    least = std::min(least, seconds);
  }
  handshake_s_ = least;

  control().command = ExecutorCommand::load;
  control().load_status = LoadStatus::pending;
  control().message[0] = '\0';
  double load_s = 0;
  if (Verdict verdict = resume(load_s); !verdict.ok()) return verdict;
  const std::string message = untrusted_text(control().message, sizeof control().message);
  switch (control().load_status) {
    case LoadStatus::loaded: return {};
    case LoadStatus::load_failed: return {Status::compile_error, "cannot load the compiled object: " + message};
    case LoadStatus::no_entry_point: return {Status::format_error, "no matmul entry point"};
    case LoadStatus::no_sandbox: return {Status::runtime_error, "could not install the sandbox: " + message};
    default: return {Status::runtime_error, "the executor did not report loading the candidate"};
  }
}

CallOutcome ExecutorProcess::call(const Shape &shape, const void *a, const void *b, void *c) {
  ExecutorControl &block = control();
  block.command = ExecutorCommand::call;
  block.element_bytes = static_cast<std::uint32_t>(options_.element_bytes);
  block.batched = options_.batched ? 1 : 0;
  block.batch = shape.batch;
  block.m = shape.m;
  block.n = shape.n;
  block.k = shape.k;
  block.a = region_.offset_of(a);
  block.b = region_.offset_of(b);
  block.c = region_.offset_of(c);
  double seconds = 0;
  if (Verdict verdict = resume(seconds); !verdict.ok()) return {verdict, 0};
  return {{}, std::max(seconds - handshake_s_, seconds / 2)};
}

}  // namespace hpcreward
