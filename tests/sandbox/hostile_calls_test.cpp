// The executors' filters tested as a candidate that took over its own process would test them:
// every system call it could make, with the arguments that would do harm, issued directly
// (no static check stands between a hijacked process and its system calls). Each child sets
// itself up as its executor does (capabilities dropped; for the GPU filter, Landlock's file
// rule and RLIMIT_FSIZE 0 too) and then makes one call. The call must either kill the child
// (SIGSYS, `forbidden`) or leave everything as it was: this process, a victim process of the
// same user, the child's own CPUs, and the kernel's IPC objects.
#include <fcntl.h>
#include <mqueue.h>
#include <pthread.h>
#include <sched.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <linux/sched.h>  // SCHED_IDLE

#include <cstddef>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench_node/gpu/setup_turns.hpp"
#include "bench_node/sandbox/capabilities.hpp"
#include "bench_node/sandbox/file_writes.hpp"
#include "bench_node/sandbox/gpu_seccomp_filter.hpp"
#include "tests/sandbox/filtered_child.hpp"

namespace hpcreward {
namespace {

using namespace hpcreward::testing;

// cpu: a stage with OpenMP (threads allowed); cpu_one_thread: a stage without.
enum class Filter { cpu, cpu_one_thread, gpu };
enum class Outcome { killed, harmless, as_on_cpu };

// One hostile call. `attempt` returns 0 when, seen from inside, nothing changed (a call the
// filter makes a no-op); anything else means the call did what it asked.
struct Hostile {
  const char *name;
  std::function<int()> attempt;
  Outcome cpu;
  Outcome gpu;
  Outcome cpu_one_thread = Outcome::as_on_cpu;  // differs only for calls that start a thread
};

std::ostream &operator<<(std::ostream &out, const Hostile &h) { return out << h.name; }

pid_t g_victim = 0;    // a process of the same user that must stay as it is
int g_exe_fd = -1;     // a file opened before the filter (the executors hold such descriptors)
std::string g_owned;   // a file this process owns, whose metadata must stay as it is
cpu_set_t g_one_cpu;   // the child's CPUs: a single one

cpu_set_t every_cpu() {
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) CPU_SET(cpu, &all);
  return all;
}

// The child still runs on its one CPU only.
int still_on_one_cpu() {
  cpu_set_t now;
  if (::sched_getaffinity(0, sizeof now, &now) != 0) return 10;
  return CPU_EQUAL(&now, &g_one_cpu) ? 0 : 11;
}

void *page(int prot, int flags = MAP_PRIVATE | MAP_ANONYMOUS, int fd = -1) {
  return ::mmap(nullptr, 4096, prot, flags, fd, 0);
}

std::vector<Hostile> hostile_calls() {
  using enum Outcome;
  return {
      // Code made after the load.
      {"mmap_anonymous_rwx", [] { return page(PROT_READ | PROT_WRITE | PROT_EXEC) == MAP_FAILED ? 0 : 1; }, killed, killed},
      {"mmap_anonymous_rx", [] { return page(PROT_READ | PROT_EXEC) == MAP_FAILED ? 0 : 1; }, killed, killed},
      {"mmap_file_rx", [] { return page(PROT_READ | PROT_EXEC, MAP_PRIVATE, g_exe_fd) == MAP_FAILED ? 0 : 1; },
       killed, killed},
      {"mprotect_heap_to_rx",
       [] {
         void *p = page(PROT_READ | PROT_WRITE);
         return ::mprotect(p, 4096, PROT_READ | PROT_EXEC) == 0 ? 1 : 0;
       },
       killed, killed},
      {"mprotect_own_code_to_rwx",
       [] {
         auto code = reinterpret_cast<std::uintptr_t>(&still_on_one_cpu) & ~std::uintptr_t{4095};
         return ::mprotect(reinterpret_cast<void *>(code), 4096, PROT_READ | PROT_WRITE | PROT_EXEC) == 0 ? 1 : 0;
       },
       killed, killed},
      {"pkey_mprotect_to_rx",
       [] {
         void *p = page(PROT_READ | PROT_WRITE);
         return ::syscall(SYS_pkey_mprotect, p, 4096, PROT_READ | PROT_EXEC, -1) == 0 ? 1 : 0;
       },
       killed, killed},
      {"memfd_then_mmap_rx",
       [] {
         const int fd = ::memfd_create("code", 0);  // sized or not, PROT_EXEC is the refusal
         if (fd < 0) return 0;
         return page(PROT_READ | PROT_EXEC, MAP_SHARED, fd) == MAP_FAILED ? 0 : 1;
       },
       killed, killed},
      // A thread of its own (the GPU executor's reports could be rewritten by one).
      {"pthread_create",
       [] {
         pthread_t thread;
         if (::pthread_create(&thread, nullptr, [](void *) -> void * { return nullptr; }, nullptr) != 0) return 0;
         ::pthread_join(thread, nullptr);
         return 0;  // allowed on CPUs with OpenMP, where the measurer stops the whole process
       },
       harmless, killed, killed},
      // CPUs: its own, and another process's.
      {"sched_setaffinity_widen_own",
       [] {
         const cpu_set_t all = every_cpu();
         ::sched_setaffinity(0, sizeof all, &all);
         return still_on_one_cpu();
       },
       harmless, harmless},
      {"sched_setaffinity_widen_thread",
       [] {
         static int result = 1;
         pthread_t thread;
         if (::pthread_create(
                 &thread, nullptr,
                 [](void *) -> void * {
                   const cpu_set_t all = every_cpu();
                   ::sched_setaffinity(0, sizeof all, &all);
                   result = still_on_one_cpu();
                   return nullptr;
                 },
                 nullptr) != 0)
           return 0;
         ::pthread_join(thread, nullptr);
         return result;
       },
       harmless, killed, killed},
      {"sched_setaffinity_victim",
       [] {
         ::sched_setaffinity(g_victim, sizeof g_one_cpu, &g_one_cpu);
         return 0;  // the parent checks the victim
       },
       harmless, harmless},
      // Another process's priority and scheduling.
      {"setpriority_victim", [] { return ::setpriority(PRIO_PROCESS, static_cast<id_t>(g_victim), 19) == 0 ? 1 : 0; },
       killed, killed},
      // The victim's own process group (it is alone in it): the form that would reach a rank's
      // whole group, without risking anything but the victim should the filter let it through.
      {"setpriority_victim_group", [] { return ::setpriority(PRIO_PGRP, static_cast<id_t>(g_victim), 19) == 0 ? 1 : 0; },
       killed, killed},
      {"sched_setscheduler_victim_idle",
       [] {
         sched_param p{};
         return ::sched_setscheduler(g_victim, SCHED_IDLE, &p) == 0 ? 1 : 0;
       },
       killed, killed},
      {"sched_setattr_victim",
       [] {
         std::uint32_t attr[14] = {56, SCHED_IDLE};  // size, policy
         return ::syscall(SYS_sched_setattr, g_victim, attr, 0) == 0 ? 1 : 0;
       },
       killed, killed},
      {"ioprio_set_victim", [] { return ::syscall(SYS_ioprio_set, 1, g_victim, (3 << 13)) == 0 ? 1 : 0; }, killed, killed},
      {"migrate_pages_victim",
       [] {
         unsigned long nodes = 1;
         return ::syscall(SYS_migrate_pages, g_victim, 64, &nodes, &nodes) >= 0 ? 1 : 0;
       },
       killed, killed},
      {"move_pages_victim",
       [] {
         void *pages[1] = {nullptr};
         int status[1];
         return ::syscall(SYS_move_pages, g_victim, 1, pages, nullptr, status, 0) == 0 ? 1 : 0;
       },
       killed, killed},
      {"kcmp_victim", [] { return ::syscall(SYS_kcmp, ::getpid(), g_victim, 0, 0, 0) >= 0 ? 1 : 0; }, killed, killed},
      {"prlimit_victim",
       [] {
         const rlimit none{0, 0};
         return ::prlimit(g_victim, RLIMIT_CPU, &none, nullptr) == 0 ? 1 : 0;
       },
       killed, killed},
      {"kill_victim", [] { return ::kill(g_victim, SIGSTOP) == 0 ? 1 : 0; }, killed, killed},
      {"tgkill_victim", [] { return ::syscall(SYS_tgkill, g_victim, g_victim, SIGSTOP) == 0 ? 1 : 0; }, killed, killed},
      {"ptrace_attach_victim", [] { return ::syscall(SYS_ptrace, 16 /* PTRACE_ATTACH */, g_victim, 0, 0) == 0 ? 1 : 0; },
       killed, killed},
      // Objects that would outlive the process.
      {"shmget_64MiB", [] { return ::shmget(IPC_PRIVATE, 64 << 20, IPC_CREAT | 0600) >= 0 ? 1 : 0; }, killed, killed},
      {"semget", [] { return ::semget(IPC_PRIVATE, 1, IPC_CREAT | 0600) >= 0 ? 1 : 0; }, killed, killed},
      {"msgget", [] { return ::msgget(IPC_PRIVATE, IPC_CREAT | 0600) >= 0 ? 1 : 0; }, killed, killed},
      {"mq_open",
       [] {
         return ::syscall(SYS_mq_open, "hpcreward-hostile-test", O_CREAT | O_RDWR, 0600, nullptr) >= 0 ? 1 : 0;
       },
       killed, killed},
      // The GPU ranks' set-up turn (bench_node/gpu/setup_turns.hpp): held, it would make every
      // set-up on the node wait.
      {"bind_an_abstract_socket_name",
       [] {
         const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
         if (fd < 0) return 0;
         sockaddr_un address{};
         address.sun_family = AF_UNIX;
         const std::string name = default_setup_turns_name();
         std::memcpy(address.sun_path + 1, name.data(), name.size());
         return ::bind(fd, reinterpret_cast<const sockaddr *>(&address),
                       static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size())) == 0
                    ? 1
                    : 0;
       },
       killed, killed},
      // Metadata of a file the child's uid owns (Landlock covers writes, not metadata).
      {"fchmodat2_owned_file",
       [] { return ::syscall(452 /* fchmodat2, Linux 6.6 */, AT_FDCWD, g_owned.c_str(), 0777, 0) == 0 ? 1 : 0; },
       killed, killed},
      {"fchmodat_owned_file", [] { return ::fchmodat(AT_FDCWD, g_owned.c_str(), 0, 0) == 0 ? 1 : 0; }, killed, killed},
      {"setxattr_owned_file",
       [] { return ::setxattr(g_owned.c_str(), "user.hpcreward", "1", 1, 0) == 0 ? 1 : 0; }, killed, killed},
      {"utimensat_owned_file", [] { return ::utimensat(AT_FDCWD, g_owned.c_str(), nullptr, 0) == 0 ? 1 : 0; },
       killed, killed},
      // New namespaces (a way out of every process-wide limit above).
      {"unshare_user", [] { return ::unshare(CLONE_NEWUSER) == 0 ? 1 : 0; }, killed, killed},
      {"unshare_ipc", [] { return ::unshare(CLONE_NEWIPC) == 0 ? 1 : 0; }, killed, killed},
      {"setns", [] { return ::syscall(SYS_setns, 0, 0) == 0 ? 1 : 0; }, killed, killed},
  };
}

// The child's setup, as each executor's: one CPU, no capabilities, and for the GPU filter the
// file rule and size limit the GPU executor takes before its filter.
void set_up_as_executor(Filter filter) {
  if (::sched_setaffinity(0, sizeof g_one_cpu, &g_one_cpu) != 0) ::_exit(90);
  if (!drop_all_capabilities()) ::_exit(91);
  if (filter == Filter::gpu) {
    const rlimit no_writes{0, 0};
    ::setrlimit(RLIMIT_FSIZE, &no_writes);
    ::signal(SIGXFSZ, SIG_DFL);
    if (landlock_abi() > 0) restrict_file_writes(nvidia_device_files());
  }
}

// What a victim looks like from outside: its CPUs, its nice value, its scheduling policy,
// whether it is stopped.
std::string state_of(pid_t pid) {
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  ::sched_getaffinity(pid, sizeof cpus, &cpus);
  errno = 0;
  const int nice = ::getpriority(PRIO_PROCESS, static_cast<id_t>(pid));
  std::ostringstream text;
  text << "cpus " << CPU_COUNT(&cpus) << " nice " << nice << " policy " << ::sched_getscheduler(pid);
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("State:", 0) == 0)  // sleeping or running is the scheduler's; stopped or traced is not
      text << (line.find("T (stopped)") != std::string::npos || line.find("t (tracing") != std::string::npos
                   ? " stopped"
                   : " not stopped");
  return text.str();
}

std::string sysv_objects() {
  std::string all;
  for (const char *kind : {"shm", "sem", "msg"}) {
    std::ifstream file(std::string("/proc/sysvipc/") + kind);
    std::ostringstream text;
    text << file.rdbuf();
    all += text.str();
  }
  return all;
}

// Mode, owner, times and extended attributes of a file.
std::string metadata_of(const std::string &path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "missing";
  char names[1024] = {};
  const ssize_t listed = ::listxattr(path.c_str(), names, sizeof names);
  std::ostringstream text;
  text << "mode " << std::oct << st.st_mode << std::dec << " uid " << st.st_uid << " mtime " << st.st_mtim.tv_sec << "."
       << st.st_mtim.tv_nsec << " ctime " << st.st_ctim.tv_sec << "." << st.st_ctim.tv_nsec << " xattrs "
       << std::string(names, listed > 0 ? static_cast<std::size_t>(listed) : 0);
  return text.str();
}

class HostileCall : public ::testing::TestWithParam<std::tuple<Filter, Hostile>> {
 protected:
  void SetUp() override {
    cpu_set_t mine;
    ASSERT_EQ(::sched_getaffinity(0, sizeof mine, &mine), 0);
    if (CPU_COUNT(&mine) < 2) GTEST_SKIP() << "needs two CPUs to tell a widened mask from the child's one";
    CPU_ZERO(&g_one_cpu);
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &mine)) {
        CPU_SET(cpu, &g_one_cpu);
        break;
      }
    victim_ = ::fork();
    ASSERT_GE(victim_, 0);
    if (victim_ == 0) {
      ::setpgid(0, 0);
      ::alarm(120);
      for (;;) ::pause();
    }
    g_victim = victim_;
    g_exe_fd = ::open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    ASSERT_GE(g_exe_fd, 0);
    char owned[] = "/tmp/hpcreward-hostile-owned-XXXXXX";
    const int fd = ::mkstemp(owned);
    ASSERT_GE(fd, 0);
    ::close(fd);
    g_owned = owned;
  }
  void TearDown() override {
    if (victim_ > 0) {
      ::kill(victim_, SIGKILL);
      ::waitpid(victim_, nullptr, 0);
    }
    if (g_exe_fd >= 0) ::close(g_exe_fd);
    if (!g_owned.empty()) ::unlink(g_owned.c_str());
  }
  pid_t victim_ = 0;
};

TEST_P(HostileCall, IsKilledOrChangesNothing) {
  const auto &[filter, hostile] = GetParam();
  const std::string victim_before = state_of(victim_), ipc_before = sysv_objects(), owned_before = metadata_of(g_owned);
  const Ended ended = run_filtered([&] { return hostile.attempt(); },
                                   {.before_install = {}, .install = [filter] {
                                     set_up_as_executor(filter);
                                     if (filter == Filter::gpu)
                                       install_gpu_candidate_filter({.result_fd = -1, .self = 0});
                                     else
                                       install_candidate_filter(
                                           {.result_fd = -1, .self = 0, .threads = filter == Filter::cpu});
                                   }});
  Outcome expected = filter == Filter::gpu ? hostile.gpu : hostile.cpu;
  if (filter == Filter::cpu_one_thread && hostile.cpu_one_thread != Outcome::as_on_cpu)
    expected = hostile.cpu_one_thread;
  if (expected == Outcome::killed)
    expect_sigsys(ended);
  else
    expect_clean_exit(ended);
  EXPECT_EQ(state_of(victim_), victim_before);
  EXPECT_EQ(sysv_objects(), ipc_before);
  EXPECT_EQ(metadata_of(g_owned), owned_before);
}

INSTANTIATE_TEST_SUITE_P(Executors, HostileCall,
                         ::testing::Combine(::testing::Values(Filter::cpu, Filter::cpu_one_thread, Filter::gpu),
                                            ::testing::ValuesIn(hostile_calls())),
                         [](const auto &info) {
                           const Filter filter = std::get<0>(info.param);
                           return std::string(filter == Filter::cpu              ? "cpu_"
                                              : filter == Filter::cpu_one_thread ? "cpu_one_thread_"
                                                                                 : "gpu_") +
                                  std::get<1>(info.param).name;
                         });

}  // namespace
}  // namespace hpcreward
