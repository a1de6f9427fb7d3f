#include "bench_node/gpu/gpu_executor.hpp"

#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include "bench_node/cpu/executor_process.hpp"
#include "bench_node/process/monotonic_clock.hpp"
#include "bench_node/sandbox/descriptor_passing.hpp"

namespace hpcreward::gpu {

namespace {

GpuCallOutcome ended(Verdict verdict) {
  GpuCallOutcome outcome;
  outcome.verdict = std::move(verdict);
  return outcome;
}

std::uint64_t load_word(std::uint64_t &word) {
  return std::atomic_ref<std::uint64_t>(word).load(std::memory_order_acquire);
}
void store_word(std::uint64_t &word, std::uint64_t value) {
  std::atomic_ref<std::uint64_t>(word).store(value, std::memory_order_release);
}

// Waits in a spin for the first 5 ms (a call's end is read to a microsecond), then in sleeps
// of a thousandth of the wait so far (a long call's end to 0.1%), up to 1 ms.
class EndWait {
 public:
  void pause() {
    const double waited = monotonic_seconds() - start_;
    if (waited < 5e-3) {
      __builtin_ia32_pause();
      return;
    }
    const double sleep_s = std::min(1e-3, waited / 1000);
    const timespec duration{0, static_cast<long>(sleep_s * 1e9)};
    ::nanosleep(&duration, nullptr);
  }

 private:
  double start_ = monotonic_seconds();
};

}  // namespace

GpuExecutor::GpuExecutor(GpuExecutorOptions options) : options_(std::move(options)), region_(0) {
  static_assert(sizeof(GpuExecutorControl) <= SharedRegion::kControlBytes);
  int sockets[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0)
    throw std::system_error(errno, std::generic_category(), "socketpair for the executor");
  pool_socket_ = sockets[0];
  try {
    std::vector<std::string> args = {options_.program};
    if (options_.activity_clock) args.insert(args.end(), {"--activity-clock", "1"});
    pid_ = spawn_executor(args, {region_.fd(), sockets[1]});
  } catch (...) {
    ::close(sockets[0]);
    ::close(sockets[1]);
    throw;
  }
  ::close(sockets[1]);
}

GpuExecutor::~GpuExecutor() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {}
  }
  if (pool_socket_ >= 0) ::close(pool_socket_);
}

void GpuExecutor::kill() {
  if (pid_ > 0) ::kill(pid_, SIGKILL);
}

GpuExecutorControl &GpuExecutor::control() const { return *reinterpret_cast<GpuExecutorControl *>(region_.base()); }

bool GpuExecutor::peek_change(siginfo_t &info) const {
  info = {};
  if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WSTOPPED | WNOHANG | WNOWAIT) != 0) return false;
  return info.si_pid == pid_;
}

Verdict GpuExecutor::wait_for_stop() {
  siginfo_t info{};
  for (;;) {
    if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WSTOPPED) == 0) break;
    if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "waitid on the GPU executor");
  }
  if (info.si_code == CLD_STOPPED) return {};
  pid_ = -1;  // reaped
  return executor_end_verdict(info);
}

void GpuExecutor::start_context() {
  if (context_started_ || pid_ <= 0) return;
  // Its first stop: the driver initialised, no context yet.
  if (!driver_up_) {
    ended_early_ = wait_for_stop();
    if (!ended_early_.ok()) return;  // await_context() says how it ended
    driver_up_ = true;
  }
  if (::kill(pid_, SIGCONT) != 0) throw std::system_error(errno, std::generic_category(), "SIGCONT to the executor");
  context_started_ = true;
}

Verdict GpuExecutor::await_context() { return ensure_started(); }

Verdict GpuExecutor::ensure_started() {
  if (started_) return {};
  if (pid_ > 0) start_context();
  // Its next stop: its CUDA context is created, the control page mapped.
  if (pid_ <= 0 || !context_started_)
    return {Status::runtime_error, "the GPU executor did not start (" + options_.program + ")" +
                                       (ended_early_.ok() ? "" : ": " + ended_early_.reason)};
  if (Verdict verdict = wait_for_stop(); !verdict.ok())
    return {Status::runtime_error, "the GPU executor did not start (" + options_.program + "): " + verdict.reason};
  started_ = true;
  return {};
}

Verdict GpuExecutor::resume() {
  if (Verdict verdict = ensure_started(); !verdict.ok()) return verdict;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (::kill(pid_, SIGCONT) != 0) throw std::system_error(errno, std::generic_category(), "SIGCONT to the executor");
  Verdict verdict = wait_for_stop();
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return verdict;
}

Verdict GpuExecutor::open_pool(int pool_fd, std::size_t pool_bytes) {
  GpuExecutorControl &block = control();
  block.command = GpuCommand::open_pool;
  block.pool_bytes = pool_bytes;
  block.load_status = LoadStatus::pending;
  block.message[0] = '\0';
  if (!send_descriptor(pool_socket_, pool_fd))
    throw std::system_error(errno, std::generic_category(), "sending the operand pool to the executor");
  ::close(pool_socket_);
  pool_socket_ = -1;
  if (Verdict verdict = resume(); !verdict.ok()) return verdict;
  if (control().load_status != LoadStatus::loaded)
    return {Status::runtime_error, "the GPU executor could not map the operand pool: " +
                                       untrusted_text(control().message, sizeof control().message)};
  return {};
}

GpuCallOutcome GpuExecutor::round(GpuCommand command, Precision precision, const Shape &shape, std::uint64_t a,
                                  std::uint64_t b, std::uint64_t c, const CallSteps &steps) {
  if (Verdict verdict = ensure_started(); !verdict.ok()) return ended(verdict);
  GpuExecutorControl &block = control();
  block.command = command;
  block.precision = static_cast<std::uint32_t>(precision);
  block.batched = batched_ ? 1 : 0;
  block.batch = shape.batch;
  block.m = shape.m;
  block.n = shape.n;
  block.k = shape.k;
  block.a = a;
  block.b = b;
  block.c = c;
  const std::uint64_t sequence = ++sequence_;
  block.sequence = sequence;
  block.cuda_error = 0;
  block.threw = 0;
  block.message[0] = '\0';
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (::kill(pid_, SIGCONT) != 0) throw std::system_error(errno, std::generic_category(), "SIGCONT to the executor");
  // Untimed: the executor wakes and says it is ready. It has seen no input yet.
  siginfo_t info{};
  for (EndWait wait; load_word(block.armed) != sequence; wait.pause())
    if (peek_change(info)) {
      if (Verdict verdict = wait_for_stop(); !verdict.ok()) return ended(verdict);
      return ended({Status::runtime_error, "the GPU executor stopped before its call (it broke the protocol)"});
    }

  const double start = monotonic_seconds();
  steps.prepare();
  const double prepared = monotonic_seconds();
  store_word(block.go, sequence);
  for (EndWait wait; load_word(block.done) != sequence; wait.pause())
    if (peek_change(info)) break;  // stopped or ended without saying done: verified on what it left
  const double returned = monotonic_seconds();
  steps.finish();
  const double end = monotonic_seconds();
  GpuCallOutcome outcome;
  outcome.window_s = end - start;
  outcome.prepare_s = prepared - start;
  outcome.call_s = returned - prepared;
  outcome.finish_s = end - returned;

  if (Verdict verdict = wait_for_stop(); !verdict.ok()) {
    outcome.verdict = verdict;
    return outcome;
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const double event_seconds = block.event_seconds;
  const std::int32_t cuda_error = block.cuda_error, threw = block.threw;
  const std::string message = untrusted_text(block.message, sizeof block.message);
  // Untrusted: call_seconds() bounds what is read from it. CUPTI's fields only when asked for
  // (they are in the candidate's reach like the rest of the page).
  outcome.report = {event_seconds, 0, 0};
  if (options_.activity_clock) {  // the records, read now that the window is closed
    block.command = GpuCommand::report;
    block.activity_records = 0;
    if (Verdict verdict = resume(); !verdict.ok()) {
      outcome.verdict = verdict;
      return outcome;
    }
    std::atomic_thread_fence(std::memory_order_seq_cst);
    outcome.report.activity_s = block.activity_seconds;
    outcome.report.records = block.activity_records;
  }
  outcome.event_s = call_reading(outcome.report);
  if (threw != 0)
    outcome.exception = message;
  else if (cuda_error != 0)
    outcome.cuda_error = message;
  return outcome;
}

Verdict GpuExecutor::calibrate(Precision precision, const Shape &shape, std::uint64_t a, std::uint64_t b,
                               std::uint64_t c, const CallSteps &steps) {
  std::vector<double> overheads;
  for (int i = 0; i < options_.calibration_rounds; ++i) {
    const GpuCallOutcome outcome = round(GpuCommand::none, precision, shape, a, b, c, steps);
    if (!outcome.verdict.ok()) return outcome.verdict;
    if (!outcome.cuda_error.empty())
      return {Status::runtime_error, "the GPU executor's own kernel failed: " + outcome.cuda_error};
    overheads.push_back(std::max(outcome.window_s - outcome.event_s, 0.0));
  }
  overhead_ = call_overhead(overheads);
  return {};
}

Verdict GpuExecutor::load() {
  GpuExecutorControl &block = control();
  // The run's directory is the measurer's working directory (the executor may have been
  // started before the run, elsewhere).
  const std::string directory = std::filesystem::current_path().string();
  if (options_.object.empty() || options_.object.size() >= sizeof block.object || directory.size() >= sizeof block.directory)
    return {Status::runtime_error, "harness error: the candidate's object or directory path is empty or too long"};
  std::memcpy(block.object, options_.object.c_str(), options_.object.size() + 1);
  std::memcpy(block.directory, directory.c_str(), directory.size() + 1);
  block.command = GpuCommand::load;
  block.load_status = LoadStatus::pending;
  block.message[0] = '\0';
  if (Verdict verdict = resume(); !verdict.ok()) return verdict;
  const std::string message = untrusted_text(block.message, sizeof block.message);
  switch (block.load_status) {
    case LoadStatus::loaded: return {};
    case LoadStatus::load_failed: return {Status::compile_error, "cannot load the compiled object: " + message};
    case LoadStatus::no_entry_point: return {Status::format_error, "no matmul entry point"};
    case LoadStatus::no_sandbox: return {Status::runtime_error, "could not install the sandbox: " + message};
    default: return {Status::runtime_error, "the GPU executor did not report loading the candidate"};
  }
}

GpuCallOutcome GpuExecutor::call(Precision precision, const Shape &shape, std::uint64_t a, std::uint64_t b,
                                 std::uint64_t c, const CallSteps &steps) {
  GpuCallOutcome outcome = round(GpuCommand::call, precision, shape, a, b, c, steps);
  outcome.seconds = call_seconds(outcome.event_s, outcome.window_s, overhead_);
  return outcome;
}

}  // namespace hpcreward::gpu
