#include "bench_node/cpu/forced_switches.hpp"

#include <dlfcn.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace hpcreward {

namespace {

// A real-time signal of the application's range: glibc keeps 32 and 33, libgomp uses none.
int switch_signal() { return SIGRTMIN + 2; }

long g_half_period_ns = 0;
thread_local long t_cpu_at_last_yield_ns = 0;

long thread_cpu_ns() {
  timespec now{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return now.tv_sec * 1000000000L + now.tv_nsec;
}

// Yields only a thread that has run for half a period since it last yielded: a thread whose
// signal came while it waited for the CPU has just got it, and yielding again at once would
// hand the CPU round the whole team for nothing.
void yield_on_signal(int) {
  const int saved = errno;
  const long now = thread_cpu_ns();
  if (now - t_cpu_at_last_yield_ns >= g_half_period_ns) {
    ::sched_yield();
    t_cpu_at_last_yield_ns = now;
  }
  errno = saved;
}

struct Arming {
  long period_ns = 0;
  std::atomic<int> failures{0};
  std::atomic<int> first_errno{0};
};

// A timer signalling the calling thread alone. Per thread, because a process-wide timer keeps
// one signal pending at a time and generates nothing more until it is delivered: a thread
// waiting for the CPU would hold it while another runs undisturbed. On the monotonic clock,
// because thread CPU-time timers expire only at the scheduler's tick (milliseconds). A thread
// that was waiting handles its signal when it next runs and yields at once; the running one is
// interrupted within a period wherever it is.
void arm_this_thread(void *data) {
  auto &arming = *static_cast<Arming *>(data);
  sigevent event{};
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = switch_signal();
  event._sigev_un._tid = ::gettid();
  timer_t timer;
  itimerspec every{};
  every.it_interval.tv_sec = arming.period_ns / 1000000000;
  every.it_interval.tv_nsec = arming.period_ns % 1000000000;
  every.it_value = every.it_interval;
  if (::timer_create(CLOCK_MONOTONIC, &event, &timer) != 0 || ::timer_settime(timer, 0, &every, nullptr) != 0) {
    int expected = 0;
    arming.first_errno.compare_exchange_strong(expected, errno);
    ++arming.failures;
  }
}

}  // namespace

std::string start_forced_switches(int period_us) {
  struct sigaction action {};
  action.sa_handler = yield_on_signal;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (::sigaction(switch_signal(), &action, nullptr) != 0) return std::string("sigaction: ") + std::strerror(errno);
  Arming arming;
  arming.period_ns = static_cast<long>(period_us) * 1000;
  g_half_period_ns = arming.period_ns / 2;
  // Every thread of the candidate's OpenMP team (started already: openmp_team.hpp), through
  // libgomp's own entry point as there; the calling thread alone without OpenMP.
  void *libgomp = ::dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD | RTLD_LOCAL);
  using Parallel = void (*)(void (*)(void *), void *, unsigned, unsigned);
  auto parallel = libgomp != nullptr ? reinterpret_cast<Parallel>(::dlsym(libgomp, "GOMP_parallel")) : nullptr;
  if (parallel != nullptr)
    parallel(arm_this_thread, &arming, 0, 0);
  else
    arm_this_thread(&arming);
  if (libgomp != nullptr) ::dlclose(libgomp);
  if (arming.failures > 0) return std::string("timer_create: ") + std::strerror(arming.first_errno.load());
  return "";
}

}  // namespace hpcreward
