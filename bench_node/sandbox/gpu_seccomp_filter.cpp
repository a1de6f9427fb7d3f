#include "bench_node/sandbox/gpu_seccomp_filter.hpp"

#include "bench_node/sandbox/seccomp_context.hpp"

#include <fcntl.h>
#include <linux/mempolicy.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdint>

// The policy, in one place: an allow-list, like the CPU executor's (seccomp_filter.cpp), of what
// the CUDA driver and runtime were measured to call after the load, with what honest host code
// calls (output, its own errors, leaving), plus calls of the same families the driver makes at
// set-up that change nothing outside this process. Measured on an H200 (driver 580.159, CUDA 13)
// by tests/gpu/syscall_census.sh over the GPU corpus: every thread of every executor, after
// the filter was in. The executor keeps the rank's uid with no capabilities, in a read-only
// view of every mount but /proc, and may open for writing nothing but the GPU's device files
// (Landlock, file_writes.hpp); regular files it cannot grow (RLIMIT_FSIZE 0).
//
// ALLOWED (with the condition, if any):
//   memory   brk, munmap, mremap; mmap and mprotect never with PROT_EXEC (file-backed mmap
//            too: the driver maps /dev/nvidiactl and its UVM ranges MAP_SHARED); madvise only
//            the CPU filter's advice and DONTFORK, DOFORK, WIPEONFORK, KEEPONFORK (pinned host
//            memory); mbind not MPOL_MF_MOVE_ALL; get_mempolicy
//   threads  futex, set_robust_list, rseq, exit, gettid, getpid, sched_yield (the runtime's
//            yielding waits), sched_getaffinity, getcpu, sched_get_priority_min/max
//   signals  rt_sigprocmask, rt_sigreturn, restart_syscall (the executor stops itself between
//            rounds and its driver threads' polls restart); rt_sigaction only 32 and 33
//            (glibc's own); tgkill only to this process (raise, abort)
//   time     clock_gettime, clock_getres, gettimeofday, time, nanosleep, clock_nanosleep
//   files    openat and open without O_CREAT, O_TRUNC, O_APPEND or O_TMPFILE (the driver opens
//            /dev/nvidiactl read-write; Landlock decides what may be written); read, readv,
//            pread64, write, writev on any descriptor (the driver's eventfds; regular files
//            are capped at size 0 and on read-only mounts); close, dup, dup3; fcntl only
//            F_DUPFD, F_DUPFD_CLOEXEC, F_GETFD, F_SETFD, F_GETFL, F_SETFL (no locks: a lock
//            on a file read-only is still a lock others wait for); fstat, newfstatat, statx,
//            lseek, getdents64, readlink, readlinkat, access, faccessat, faccessat2, getcwd
//            (what the driver reads of /proc and /sys); poll, ppoll, epoll_create1, epoll_ctl,
//            epoll_wait, epoll_pwait, eventfd2, pipe2 (the driver's threads' waits)
//   ioctl    NVIDIA's requests only: type 'F' (the resource manager, /dev/nvidiactl and
//            /dev/nvidiaN), UVM's plain numbers below 0x1000 and UVM_INITIALIZE/DEINITIALIZE
//            (0x30000001/2); TCGETS and TIOCGWINSZ fail with ENOTTY (isatty)
//   queries  getrandom, sysinfo, uname, getrlimit, getrusage, getuid, geteuid, getgid, getegid,
//            prlimit64 only as getrlimit of this process, prctl only PR_SET_NAME/PR_GET_NAME;
//            exit_group
//
// SUCCEEDS WITHOUT EFFECT: sched_setaffinity (errno 0): placement is the rank's, and seccomp
// can't tell this process's thread ids from another process's.
//
// KILLED (SIGSYS, `forbidden`): everything else, in particular new processes and threads (fork,
// vfork, execve, execveat, clone, clone3: the driver's threads start with the context, before
// the filter, and a thread of the candidate's could rewrite what the executor reports after it
// wrote it); pkey_mprotect; every metadata change (chmod family with fchmodat2, chown family,
// the setxattr and removexattr families, utimensat, futimesat, ...), unlink, rename, mkdir,
// link, symlink, truncate, mknod, creat, openat2; flock and fcntl locks; kill, tkill, tgkill to
// another process, ptrace, process_vm_*, pidfd_*; setpriority, sched_setscheduler/param/attr,
// ioprio_set, migrate_pages, move_pages, set_mempolicy; SysV IPC and POSIX message queues;
// sockets; setsid, setpgid, setrlimit; mount, unshare, setns, bpf, perf_event_open, io_uring,
// seccomp, landlock_*; every call of another ABI (x32, i386).
//
// LIMITS: ioctl type 'F' is also the framebuffer's (linux/fb.h): a /dev/fb* the rank's uid may
// open (a root rank on a node with a console) takes its mode-setting ioctls. Read-only opens are
// not confined: a candidate can read what the rank's uid can read.
//
// After a driver or CUDA upgrade, run syscall_census.sh again and compare; a call the driver
// newly makes kills honest candidates as `forbidden` until it is added here (and to
// tests/sandbox/every_system_call_test.cpp, which checks the list both ways).

namespace hpcreward {

namespace {

SeccompContext build(const CandidateFilter &filter) {
  SeccompContext ctx(SCMP_ACT_KILL_PROCESS, "seccomp (GPU)");
  const pid_t self = filter.self != 0 ? filter.self : ::getpid();

  // Memory.
  for (const char *name : {"brk", "munmap", "mremap", "get_mempolicy"}) ctx.allow(name);
  ctx.allow("mmap", {SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)});
  ctx.allow("mprotect", {SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)});
  constexpr std::uint64_t kGuardInstall = 102, kGuardRemove = 103;  // Linux 6.13, not in glibc 2.36
  ctx.allow_if_in("madvise", 2,
                {MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_WILLNEED, MADV_DONTNEED, MADV_FREE,
                 MADV_HUGEPAGE, MADV_NOHUGEPAGE, MADV_DONTDUMP, MADV_DODUMP, kGuardInstall, kGuardRemove,
                 MADV_DONTFORK, MADV_DOFORK, MADV_WIPEONFORK, MADV_KEEPONFORK});
  ctx.allow("mbind", {SCMP_A5(SCMP_CMP_MASKED_EQ, MPOL_MF_MOVE_ALL, 0)});

  // Threads, already there.
  for (const char *name : {"futex", "set_robust_list", "rseq", "exit", "gettid", "getpid", "sched_yield",
                           "sched_getaffinity", "getcpu", "sched_get_priority_min", "sched_get_priority_max"})
    ctx.allow(name);
  ctx.rule(SCMP_ACT_ERRNO(0), "sched_setaffinity");

  // Signals.
  for (const char *name : {"rt_sigprocmask", "rt_sigreturn", "restart_syscall"}) ctx.allow(name);
  ctx.allow_if_in("rt_sigaction", 0, {32, 33});
  ctx.allow("tgkill", {SCMP_A0(SCMP_CMP_EQ, static_cast<std::uint64_t>(self))});

  // Time.
  for (const char *name : {"clock_gettime", "clock_getres", "gettimeofday", "time", "nanosleep", "clock_nanosleep"})
    ctx.allow(name);

  // Files and descriptors.
  constexpr std::uint64_t kTmpfileBit = O_TMPFILE & ~O_DIRECTORY;  // O_DIRECTORY alone is opendir
  constexpr std::uint64_t kCreateOrChange = O_CREAT | O_TRUNC | O_APPEND | kTmpfileBit;
  ctx.allow("open", {SCMP_A1(SCMP_CMP_MASKED_EQ, kCreateOrChange, 0)});
  ctx.allow("openat", {SCMP_A2(SCMP_CMP_MASKED_EQ, kCreateOrChange, 0)});
  for (const char *name : {"read", "readv", "pread64", "write", "writev", "close", "dup", "dup3", "fstat",
                           "newfstatat", "statx", "lseek", "getdents64", "readlink", "readlinkat", "access",
                           "faccessat", "faccessat2", "getcwd", "poll", "ppoll", "epoll_create1", "epoll_ctl",
                           "epoll_wait", "epoll_pwait", "eventfd2", "pipe2"})
    ctx.allow(name);
  ctx.allow_if_in("fcntl", 1, {F_DUPFD, F_DUPFD_CLOEXEC, F_GETFD, F_SETFD, F_GETFL, F_SETFL});

  // The driver's ioctls (see the policy above), and isatty's.
  constexpr std::uint64_t kRmType = std::uint64_t{'F'} << 8, kTypeBits = 0xff00;
  ctx.allow("ioctl", {SCMP_A1(SCMP_CMP_MASKED_EQ, kTypeBits, kRmType)});
  ctx.allow("ioctl", {SCMP_A1(SCMP_CMP_MASKED_EQ, ~std::uint64_t{0xfff}, 0)});
  ctx.allow_if_in("ioctl", 1, {0x30000001, 0x30000002});
  for (std::uint64_t request : {std::uint64_t{TCGETS}, std::uint64_t{TIOCGWINSZ}})
    ctx.rule(SCMP_ACT_ERRNO(ENOTTY), "ioctl", {SCMP_A1(SCMP_CMP_EQ, request)});

  // Queries about this process, and leaving.
  for (const char *name : {"getrandom", "sysinfo", "uname", "getrlimit", "getrusage", "getuid", "geteuid", "getgid",
                           "getegid", "exit_group"})
    ctx.allow(name);
  ctx.allow("prlimit64", {SCMP_A0(SCMP_CMP_EQ, 0), SCMP_A2(SCMP_CMP_EQ, 0)});
  ctx.allow_if_in("prctl", 0, {PR_SET_NAME, PR_GET_NAME});

  for (const char *name : {"ioctl", "futex", "poll", "sched_yield", "clock_gettime"}) ctx.hot(name);
  return ctx;
}

}  // namespace

void install_gpu_candidate_filter(const CandidateFilter &filter) { build(filter).load(); }

std::string gpu_candidate_filter_text(const CandidateFilter &filter) { return pseudo_filter_code(build(filter).get()); }

}  // namespace hpcreward
