// The runner's seccomp filter, in forked children (filtered_child.hpp): what honest code needs
// still works, and every forbidden call ends the child with SIGSYS (or fails with the
// documented errno). RLIMIT_NPROC means nothing to root, so a fork is only ever tried under the
// filter. Nothing here runs OpenMP in the test process itself: libgomp's thread pool would not
// survive the fork.
#include "bench_node/sandbox/seccomp_filter.hpp"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/sched.h>  // struct clone_args

#include <algorithm>
#include <atomic>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/sandbox/filtered_child.hpp"

extern char **environ;

namespace hpcreward {
namespace {

namespace fs = std::filesystem;
using namespace hpcreward::testing;

// A fresh directory for the file-system tests, removed afterwards.
class Scratch {
 public:
  Scratch()
      : path_(fs::path(::testing::TempDir()) /
              ("hpcreward-seccomp-test-" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~Scratch() { fs::remove_all(path_); }
  fs::path operator/(const std::string &name) const { return path_ / name; }

 private:
  fs::path path_;
};

// --- what must keep working --------------------------------------------------------------

TEST(SeccompFilter, TextIsAnAllowListThatKillsByDefault) {
  const std::string text = candidate_filter_text({.result_fd = 3, .self = 1234});
  EXPECT_NE(text.find("action KILL_PROCESS"), std::string::npos) << text;
  EXPECT_NE(text.find("\"futex\""), std::string::npos);
  EXPECT_EQ(text.find("\"execve\""), std::string::npos);  // not named: the default kills it
  EXPECT_EQ(text.find("\"fork\""), std::string::npos);
  EXPECT_EQ(text.find("\"socket\""), std::string::npos);
  EXPECT_EQ(text.find("\"read\""), std::string::npos);
  EXPECT_EQ(text.find("\"kill\""), std::string::npos);
}

TEST(SeccompFilter, SmallAndLargeAllocations) {
  expect_clean_exit(run_filtered([] {
    std::vector<void *> small;
    for (int i = 0; i < 10000; ++i)
      small.push_back(std::malloc(static_cast<std::size_t>(16 + i % 500)));
    for (void *p : small) std::free(p);
    // mmap-backed chunks, realloc through mremap, calloc, aligned_alloc.
    char *big = static_cast<char *>(std::malloc(std::size_t{256} << 20));
    if (big == nullptr) return 1;
    std::memset(big, 1, std::size_t{256} << 20);
    big = static_cast<char *>(std::realloc(big, std::size_t{512} << 20));
    if (big == nullptr || big[12345] != 1) return 2;
    std::free(big);
    void *zeros = std::calloc(std::size_t{64} << 20, 1);
    void *aligned = std::aligned_alloc(4096, std::size_t{32} << 20);
    if (zeros == nullptr || aligned == nullptr) return 3;
    std::free(zeros);
    std::free(aligned);
    std::vector<double> v(1 << 22, 1.0);  // C++ allocation too
    return v[100] == 1.0 ? 0 : 4;
  }));
}

TEST(SeccompFilter, OpenMPParallelRegionWithFourThreads) {
  // The thread team is created here, under the filter: clone3 -> ENOSYS -> clone with
  // CLONE_THREAD, the SIGSETXID handler, robust lists, rseq, futexes.
  const Ended e = run_filtered([] {
    std::atomic<int> ran{0};
    int team = 0;
#pragma omp parallel num_threads(4)
    {
#pragma omp single
      team = omp_get_num_threads();
      ran.fetch_add(1);
    }
    if (team != 4 || ran.load() != 4) return 1;
    // A reduction over a second, smaller team and a larger one.
    double sum = 0;
#pragma omp parallel for reduction(+ : sum) num_threads(2)
    for (int i = 0; i < 1000000; ++i) sum += 1.0;
#pragma omp parallel num_threads(6)
    { ran.fetch_add(1); }
    std::printf("team %d sum %.0f ran %d\n", team, sum, ran.load());
    return sum == 1000000.0 && ran.load() == 10 ? 0 : 2;
  });
  expect_clean_exit(e);
  EXPECT_EQ(e.output, "team 4 sum 1000000 ran 10\n");
}

TEST(SeccompFilter, PinnedThreadsStartAndExit) {
  // glibc pins a new thread from its parent with sched_setaffinity(tid), as libgomp asks
  // for with OMP_PROC_BIND: under the filter the call does nothing and succeeds, so the thread
  // starts (on its creator's CPUs); its exit frees its stack with madvise and calls exit.
  expect_clean_exit(run_filtered([] {
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    if (::sched_getaffinity(0, sizeof cpus, &cpus) != 0) return 1;
    pthread_attr_t attr;
    ::pthread_attr_init(&attr);
    ::pthread_attr_setaffinity_np(&attr, sizeof cpus, &cpus);
    for (int round = 0; round < 3; ++round) {
      pthread_t thread;
      if (::pthread_create(
              &thread, &attr, [](void *) -> void * { return reinterpret_cast<void *>(7); },
              nullptr) != 0)
        return 2;
      void *value = nullptr;
      if (::pthread_join(thread, &value) != 0 || value != reinterpret_cast<void *>(7)) return 3;
    }
    std::thread plain([] {});  // C++ threads are the same clone
    plain.join();
    return ::pthread_setname_np(::pthread_self(), "matmul") == 0 ? 0 : 4;
  }));
}

TEST(SeccompFilter, WritesToStdoutStderrAndTheResultFd) {
  const Ended e = run_filtered([] {
    std::printf("to stdout %d\n", 1);
    std::fflush(stdout);
    std::fprintf(stderr, "to stderr\n");
    iovec parts[2] = {{const_cast<char *>("v"), 1}, {const_cast<char *>("ec\n"), 3}};
    if (::writev(1, parts, 2) != 4) return 1;
    struct stat info;
    if (::fstat(1, &info) != 0 || ::fstat(g_result_fd, &info) != 0) return 2;
    const char result[] = "{\"result\":1}";
    return ::write(g_result_fd, result, sizeof result - 1) == sizeof result - 1 ? 0 : 3;
  });
  expect_clean_exit(e);
  EXPECT_EQ(e.output, "to stdout 1\nto stderr\nvec\n");
  EXPECT_EQ(e.result, "{\"result\":1}");
}

TEST(SeccompFilter, AbortEndsWithSigabrtNotSigsys) {
  const Ended e = run_filtered([] {
    std::abort();
    return 1;
  });
  EXPECT_TRUE(e.signaled && e.signal == SIGABRT) << describe(e);
}

TEST(SeccompFilter, AbortFromAnOpenMPThreadEndsWithSigabrt) {
  const Ended e = run_filtered([] {
#pragma omp parallel num_threads(2)
    {
      if (omp_get_thread_num() == 1) std::abort();
#pragma omp barrier
    }
    return 1;
  });
  EXPECT_TRUE(e.signaled && e.signal == SIGABRT) << describe(e);
}

TEST(SeccompFilter, ClocksAndSleeps) {
  expect_clean_exit(run_filtered([] {
    timespec ts{};
    for (clockid_t clock : {CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_PROCESS_CPUTIME_ID,
                            CLOCK_THREAD_CPUTIME_ID, CLOCK_MONOTONIC_RAW, CLOCK_BOOTTIME})
      if (::clock_gettime(clock, &ts) != 0 || ::clock_getres(clock, &ts) != 0) return 1;
    // The system call itself, as when the clock source has no vDSO path.
    if (::syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts) != 0) return 2;
    timeval tv{};
    if (::gettimeofday(&tv, nullptr) != 0 || ::time(nullptr) <= 0) return 3;
    const auto start = std::chrono::steady_clock::now();
    const timespec ms{0, 1000000};
    if (::nanosleep(&ms, nullptr) != 0) return 4;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    (void)std::clock();
    return std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(2) ? 0 : 5;
  }));
}

TEST(SeccompFilter, ReadOnlyOpensFailWithEaccesAndGlibcCopes) {
  expect_clean_exit(run_filtered([] {
    errno = 0;
    if (::open("/etc/passwd", O_RDONLY) != -1 || errno != EACCES) return 1;
    errno = 0;
    if (::openat(AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC) != -1 || errno != EACCES)
      return 2;
    if (std::fopen("/etc/hostname", "r") != nullptr) return 3;
    if (::opendir("/tmp") != nullptr) return 4;
    // glibc reads /sys for these and falls back to sched_getaffinity.
    if (::sysconf(_SC_NPROCESSORS_ONLN) < 1 || ::sysconf(_SC_NPROCESSORS_CONF) < 1) return 5;
    if (omp_get_num_procs() < 1) return 6;
    // isatty: ioctl(TCGETS) fails with ENOTTY rather than killing.
    errno = 0;
    if (::isatty(1) != 0 || errno != ENOTTY) return 7;
    return 0;
  }));
}

TEST(SeccompFilter, HarmlessQueries) {
  expect_clean_exit(run_filtered([] {
    rlimit limit;
    if (::getrlimit(RLIMIT_STACK, &limit) != 0 || ::getrlimit(RLIMIT_AS, &limit) != 0) return 1;
    char random[16];
    if (::getrandom(random, sizeof random, 0) != sizeof random) return 2;
    rusage usage;
    if (::getrusage(RUSAGE_SELF, &usage) != 0) return 3;
    if (::sysconf(_SC_PHYS_PAGES) <= 0) return 4;
    std::vector<int> numbers(1 << 20);
    for (std::size_t i = 0; i < numbers.size(); ++i)
      numbers[i] = static_cast<int>((i * 7919) % 100003);
    std::qsort(numbers.data(), numbers.size(), sizeof(int), [](const void *a, const void *b) {
      return *static_cast<const int *>(a) - *static_cast<const int *>(b);
    });
    if (!std::is_sorted(numbers.begin(), numbers.end())) return 5;
    if (::getpid() <= 0 || ::gettid() <= 0 || sched_getcpu() < 0) return 6;
    ::sched_yield();
    try {
      throw std::runtime_error("exceptions unwind without system calls");
    } catch (const std::exception &) {
    }
    return 0;
  }));
}

TEST(SeccompFilter, Clone3FailsWithEnosysSoGlibcFallsBack) {
  expect_clean_exit(run_filtered([] {
    clone_args args{};
    args.flags = CLONE_VM | CLONE_THREAD | CLONE_SIGHAND;
    errno = 0;
    return ::syscall(SYS_clone3, &args, sizeof args) == -1 && errno == ENOSYS ? 0 : 1;
  }));
}

TEST(SeccompFilter, ThreadsStartedBeforeTheFilterAreFilteredToo) {
  // TSYNC: a thread that exists when the filter goes on is covered by it.
  static std::atomic<int> go{0};
  const Ended e = run_filtered(
      [] {
        go.store(1);
        for (int i = 0; i < 5000; ++i)  // the thread forks and the whole process dies
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return 1;
      },
      {.before_install = [] {
        std::thread([] {
          while (go.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
          ::fork();
          ::_exit(3);
        }).detach();
      },
       .install = {}});
  expect_sigsys(e);
}

// --- what must kill (or fail) -------------------------------------------------------------

// An attempt returns only if the call was (wrongly) let through; the test child then exits 1.
struct Forbidden {
  const char *name;
  std::function<void()> attempt;
};

std::ostream &operator<<(std::ostream &out, const Forbidden &f) {
  return out << f.name;
}

// A pipe and a file opened before the filter: what a candidate could find among the fds.
int g_spare_pipe = -1;
int g_spare_file = -1;
pid_t g_parent = 0;

std::vector<Forbidden> forbidden_calls() {
  // A child made by a call that (wrongly) got through leaves at once.
  return {
      {"fork",
       [] {
         if (::fork() == 0) ::_exit(0);
       }},
      {"vfork",
       [] {
         if (::syscall(SYS_vfork) == 0) ::_exit(0);
       }},
      {"posix_spawn",
       [] {
         pid_t pid;
         char *argv[] = {const_cast<char *>("/bin/true"), nullptr};
         ::posix_spawn(&pid, "/bin/true", nullptr, nullptr, argv, environ);
       }},
      {"system", [] { (void)std::system("true"); }},
      {"execve",
       [] {
         char *argv[] = {const_cast<char *>("/bin/true"), nullptr};
         ::execve("/bin/true", argv, environ);
       }},
      {"execveat",
       [] {
         char *argv[] = {const_cast<char *>("true"), nullptr};
         ::syscall(SYS_execveat, AT_FDCWD, "/bin/true", argv, environ, 0);
       }},
      {"raw_clone_without_CLONE_THREAD",
       [] {
         if (::syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0) == 0) ::_exit(0);
       }},
      {"clone_thread_into_a_new_user_namespace",
       [] {
         // Invalid for the kernel too, so nothing starts even if it got through.
         ::syscall(SYS_clone, CLONE_THREAD | CLONE_VM | CLONE_SIGHAND | CLONE_NEWUSER, 0, 0, 0, 0);
       }},
      {"socket_inet", [] { ::socket(AF_INET, SOCK_STREAM, 0); }},
      {"socket_unix", [] { ::socket(AF_UNIX, SOCK_DGRAM, 0); }},
      {"socketpair",
       [] {
         int sv[2];
         ::socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
       }},
      {"kill_parent", [] { ::kill(g_parent, 0); }},
      {"kill_self", [] { ::kill(::getpid(), 0); }},
      {"kill_group", [] { ::kill(0, 0); }},
      {"tgkill_parent", [] { ::syscall(SYS_tgkill, g_parent, g_parent, 0); }},
      {"tkill", [] { ::syscall(SYS_tkill, ::gettid(), 0); }},
      {"setsid", [] { ::setsid(); }},
      {"setpgid", [] { ::setpgid(0, 0); }},
      {"ptrace_traceme", [] { ::ptrace(PTRACE_TRACEME, 0, nullptr, nullptr); }},
      // Not the parent: were it let through, root could stop the test process.
      {"ptrace_attach", [] { ::ptrace(PTRACE_ATTACH, 0x3ffffff0, nullptr, nullptr); }},
      {"process_vm_readv",
       [] {
         char byte;
         iovec local{&byte, 1}, remote{&byte, 1};
         ::process_vm_readv(g_parent, &local, 1, &remote, 1, 0);
       }},
      {"read_stdin",
       [] {
         char c;
         (void)::read(0, &c, 1);
       }},
      {"write_to_another_fd", [] { (void)::write(g_spare_pipe, "x", 1); }},
      {"mmap_a_file", [] { ::mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE, g_spare_file, 0); }},
      {"dup", [] { ::dup(1); }},
      {"fcntl", [] { ::fcntl(1, F_GETFL); }},
      {"pipe",
       [] {
         int p[2];
         ::pipe(p);
       }},
      {"memfd_create", [] { ::memfd_create("x", 0); }},
      {"signal_handler_for_SIGSEGV", [] { std::signal(SIGSEGV, [](int) {}); }},
      {"signal_handler_for_SIGXCPU", [] { std::signal(SIGXCPU, SIG_IGN); }},
      {"setrlimit",
       [] {
         const rlimit more{RLIM_INFINITY, RLIM_INFINITY};
         ::setrlimit(RLIMIT_CPU, &more);
       }},
      {"prlimit_other_process",
       [] {
         rlimit old;
         ::prlimit(g_parent, RLIMIT_CPU, nullptr, &old);
       }},
      {"setpriority", [] { ::setpriority(PRIO_PROCESS, 0, 5); }},
      {"sched_setscheduler",
       [] {
         sched_param p{};
         ::sched_setscheduler(0, SCHED_OTHER, &p);
       }},
      {"prctl_set_dumpable", [] { ::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0); }},
      {"prctl_set_pdeathsig", [] { ::prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0); }},
      {"personality", [] { ::personality(0xffffffff); }},
      {"mount", [] { ::mount("none", "/nonexistent-hpcreward", "tmpfs", 0, nullptr); }},
      {"unshare", [] { ::unshare(CLONE_NEWUSER); }},
      {"chdir", [] { (void)::chdir("/"); }},
      {"madvise_mergeable",
       [] {
         void *p =
             ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
         ::madvise(p, 4096, MADV_MERGEABLE);
       }},
      {"ioctl_other_than_tcgets",
       [] {
         int n;
         ::ioctl(1, FIONREAD, &n);
       }},
      {"io_uring_setup",
       [] {
         char params[120] = {};
         ::syscall(425, 8, params);
       }},
      {"x32_getpid", [] { ::syscall(0x40000000 | SYS_getpid); }},
      {"uname",
       [] {
         char buffer[512];
         ::syscall(SYS_uname, buffer);
       }},
  };
}

class ForbiddenCall : public ::testing::TestWithParam<Forbidden> {};

TEST_P(ForbiddenCall, KillsWithSigsys) {
  g_parent = ::getpid();
  int spare[2];
  ASSERT_EQ(::pipe(spare), 0);
  g_spare_pipe = spare[1];
  g_spare_file = ::open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(g_spare_file, 0);
  const Forbidden &forbidden = GetParam();
  const Ended e = run_filtered([&] {
    forbidden.attempt();
    return 1;
  });
  ::close(spare[0]);
  ::close(spare[1]);
  ::close(g_spare_file);
  expect_sigsys(e);
}

INSTANTIATE_TEST_SUITE_P(SeccompFilter, ForbiddenCall, ::testing::ValuesIn(forbidden_calls()),
                         [](const ::testing::TestParamInfo<Forbidden> &info) {
                           return std::string(info.param.name);
                         });

TEST(SeccompFilter, I386SystemCallsKill) {
  const Ended e = run_filtered([] {
    long ret = 20;  // i386 getpid
    asm volatile("int $0x80" : "+a"(ret) : : "memory");
    return 1;
  });
  if (e.signaled && e.signal == SIGSEGV) GTEST_SKIP() << "no i386 emulation in this kernel";
  expect_sigsys(e);
}

// Files: nothing is created, changed or removed.
TEST(SeccompFilter, FileWritesAndCreationKillAndLeaveNoTrace) {
  const Scratch scratch;
  const std::string existing = scratch / "existing";
  {
    std::FILE *f = std::fopen(existing.c_str(), "w");
    std::fputs("untouched\n", f);
    std::fclose(f);
  }
  struct stat before;
  ASSERT_EQ(::stat(existing.c_str(), &before), 0);
  static std::string s_dir, s_existing;
  s_dir = (scratch / "").string();
  s_existing = existing;
  const std::vector<Forbidden> attempts = {
      {"open_create", [] { ::open((s_dir + "new1").c_str(), O_WRONLY | O_CREAT, 0644); }},
      {"openat_create",
       [] { ::openat(AT_FDCWD, (s_dir + "new2").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644); }},
      {"fopen_w", [] { std::fopen((s_dir + "new3").c_str(), "w"); }},
      {"fopen_a", [] { std::fopen(s_existing.c_str(), "a"); }},
      {"open_rdwr_existing", [] { ::open(s_existing.c_str(), O_RDWR); }},
      {"open_wronly_existing", [] { ::open(s_existing.c_str(), O_WRONLY); }},
      {"open_trunc_existing", [] { ::open(s_existing.c_str(), O_RDONLY | O_TRUNC); }},
      {"open_tmpfile", [] { ::open(s_dir.c_str(), O_TMPFILE | O_RDWR, 0600); }},
      {"openat2",
       [] {
         struct {
           std::uint64_t flags, mode, resolve;
         } how{O_RDONLY, 0, 0};
         ::syscall(437, AT_FDCWD, s_existing.c_str(), &how, sizeof how);
       }},
      {"creat", [] { ::creat((s_dir + "new4").c_str(), 0644); }},
      {"mkdir", [] { ::mkdir((s_dir + "newdir").c_str(), 0755); }},
      {"unlink", [] { ::unlink(s_existing.c_str()); }},
      {"rename", [] { ::rename(s_existing.c_str(), (s_dir + "moved").c_str()); }},
      {"link", [] { ::link(s_existing.c_str(), (s_dir + "hard").c_str()); }},
      {"symlink", [] { ::symlink(s_existing.c_str(), (s_dir + "soft").c_str()); }},
      {"chmod", [] { ::chmod(s_existing.c_str(), 0777); }},
      {"truncate", [] { ::truncate(s_existing.c_str(), 0); }},
      {"mknod", [] { ::mknod((s_dir + "fifo").c_str(), S_IFIFO | 0600, 0); }},
  };
  for (const Forbidden &attempt : attempts) {
    SCOPED_TRACE(attempt.name);
    expect_sigsys(run_filtered([&] {
      attempt.attempt();
      return 1;
    }));
  }
  std::vector<std::string> left;
  for (const auto &entry : fs::directory_iterator(scratch / ""))
    left.push_back(entry.path().filename());
  EXPECT_EQ(left, std::vector<std::string>{"existing"});
  std::FILE *f = std::fopen(existing.c_str(), "r");
  char text[32] = {};
  ASSERT_NE(f, nullptr);
  std::fgets(text, sizeof text, f);
  std::fclose(f);
  EXPECT_STREQ(text, "untouched\n");
  struct stat after;
  ASSERT_EQ(::stat(existing.c_str(), &after), 0);
  EXPECT_EQ(after.st_mode, before.st_mode);
  EXPECT_EQ(after.st_ino, before.st_ino);
}

TEST(SeccompFilter, ExitFromTheCandidateRunsNoForbiddenCleanup) {
  // exit() flushes stdio and runs atexit handlers (libgomp's, OpenBLAS's in the runner).
  const Ended e = run_filtered([] {
#pragma omp parallel num_threads(2)
    { (void)omp_get_thread_num(); }
    std::printf("bye\n");
    std::exit(0);
    return 1;
  });
  expect_clean_exit(e);
  EXPECT_EQ(e.output, "bye\n");
}

}  // namespace
}  // namespace hpcreward
