// hpcreward-executor: the process a candidate runs in, started by hpcreward-runner (the
// measurer) with the operand region on fd 3 and nothing else of the measurer's: not its
// memory (execv), not its pipes (closed), not its secrets. The protocol is in
// executor_protocol.hpp: stop, take the command the measurer wrote, do it, stop again.
//
//   hpcreward-executor --region-bytes N --object FILE --threads allowed|none [--openmp-threads N]
//                      [--forced-switches-us N]
//
// --openmp-threads N: OMP_NUM_THREADS for the candidate's libgomp, which reads it when the
// candidate is loaded (the measurer's executor of the full checks; runner_args.hpp).
// --forced-switches-us N: a thread switch every N microseconds (forced_switches.hpp), so that a
// race shows however few CPUs the team shares (the full checks' executor).
//
// --threads none (a stage without OpenMP): the filter kills any thread the candidate starts,
// so code that runs single-threaded by its prompt cannot take the rank's other CPUs.
//
// The seccomp filter goes on right after the candidate is loaded and before its first call,
// with no writable descriptor but stdout and stderr; stopping itself (tgkill to itself) is
// allowed. Not meant to be run by hand.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench_node/cpu/executor_protocol.hpp"
#include "bench_node/cpu/forced_switches.hpp"
#include "bench_node/sandbox/candidate_loader.hpp"
#include "bench_node/sandbox/capabilities.hpp"
#include "bench_node/sandbox/read_only_view.hpp"
#include "bench_node/sandbox/seccomp_filter.hpp"

namespace hpcreward {
namespace {

template <typename T>
using Matmul = void (*)(int, int, int, const T *, const T *, T *);
template <typename T>
using BatchedMatmul = void (*)(int, int, int, int, const T *, const T *, T *);

template <typename T>
void call_as(const ExecutorControl &control, std::byte *a, std::byte *b, std::byte *c, void *symbol) {
  const auto *a_given = reinterpret_cast<const T *>(a);
  const auto *b_given = reinterpret_cast<const T *>(b);
  auto *c_given = reinterpret_cast<T *>(c);
  if (control.batched != 0)
    reinterpret_cast<BatchedMatmul<T>>(symbol)(control.batch, control.m, control.n, control.k, a_given, b_given,
                                               c_given);
  else
    reinterpret_cast<Matmul<T>>(symbol)(control.m, control.n, control.k, a_given, b_given, c_given);
}

bool g_threads = false;  // --threads allowed
int g_forced_switches_us = 0;

void install_filter() {
  if (g_forced_switches_us > 0)
    if (const std::string failed = start_forced_switches(g_forced_switches_us); !failed.empty())
      std::fprintf(stderr, "hpcreward-executor: no forced thread switches (%s); the checks run without\n", failed.c_str());
  install_candidate_filter({.result_fd = -1, .progress_fd = -1, .self = 0, .threads = g_threads});
}

void call(const ExecutorControl &control, std::byte *region, void *symbol) {
  std::byte *a = region + control.a, *b = region + control.b, *c = region + control.c;
  if (control.element_bytes == sizeof(double))
    call_as<double>(control, a, b, c, symbol);
  else
    call_as<float>(control, a, b, c, symbol);
}

}  // namespace
}  // namespace hpcreward

int main(int argc, char **argv) {
  using namespace hpcreward;
  std::size_t bytes = 0;
  const char *object = nullptr;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--region-bytes") == 0) bytes = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--object") == 0) object = argv[i + 1];
    if (std::strcmp(argv[i], "--threads") == 0) g_threads = std::strcmp(argv[i + 1], "allowed") == 0;
    if (std::strcmp(argv[i], "--openmp-threads") == 0) ::setenv("OMP_NUM_THREADS", argv[i + 1], 1);
    if (std::strcmp(argv[i], "--forced-switches-us") == 0) g_forced_switches_us = std::atoi(argv[i + 1]);
  }
  if (bytes == 0 || object == nullptr) {
    std::fputs("hpcreward-executor: started by hpcreward-runner, not by hand\n", stderr);
    return 2;
  }
  // Every mount read-only to it, and under root an id that owns nothing (sandbox/read_only_view.hpp),
  // before anything starts a thread. That id cannot enter the rank's private directory, so the
  // object is opened first and loaded by its descriptor's name (the file itself must be readable
  // to others: a umask of 022). A view that could not be made refuses the candidate at load.
  std::string path = object;
  const uid_t id = executor_id_under_root();
  const int object_fd = ::geteuid() == 0 ? ::open(object, O_RDONLY | O_CLOEXEC) : -1;
  if (object_fd >= 0) object = (path = "/proc/self/fd/" + std::to_string(object_fd)).c_str();
  std::string no_view = enter_read_only_view({.root_becomes = id, .remount_each = false, .left_writable = {}});
  if (no_view.empty() && object_fd >= 0 && ::access(object, R_OK) != 0)
    no_view = "read-only view: the object is not readable by id " + std::to_string(id) +
              " (the rank's umask must leave it readable to others; HPCREWARD_EXECUTOR_ID names the id)";
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives its measurer (after the id: a new one clears it)
  if (!drop_all_capabilities()) return 3;  // sandbox/capabilities.hpp
  void *mapped = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, kExecutorRegionFd, 0);
  if (mapped == MAP_FAILED) return 3;
  ::close(kExecutorRegionFd);
  auto *region = static_cast<std::byte *>(mapped);
  auto &control = *reinterpret_cast<ExecutorControl *>(region);

  void *symbol = nullptr;
  for (;;) {
    ::raise(SIGSTOP);
    std::atomic_thread_fence(std::memory_order_seq_cst);  // the measurer wrote while we were stopped
    switch (control.command) {
      case ExecutorCommand::none: break;
      case ExecutorCommand::load:
        if (!no_view.empty()) {
          std::snprintf(control.message, sizeof control.message, "%s", no_view.c_str());
          control.load_status = LoadStatus::no_sandbox;
          break;
        }
        symbol = load_candidate(object, install_filter, control.load_status, control.message, sizeof control.message);
        break;
      case ExecutorCommand::call:
        if (symbol != nullptr) call(control, region, symbol);
        break;
    }
  }
}
