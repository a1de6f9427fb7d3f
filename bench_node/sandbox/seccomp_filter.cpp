#include "bench_node/sandbox/seccomp_filter.hpp"

#include "bench_node/sandbox/seccomp_context.hpp"

#include <errno.h>
#include <fcntl.h>
#include <linux/mempolicy.h>
#include <seccomp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <vector>

// The policy, in one place. The runner may run as root (it does in CI and on nodes where
// the ranks are root), so "allowed" must mean "harmless to anything outside this process"
// even with every capability; a capability check is never what stops a call here.
//
// ALLOWED (with the condition, if any, on the arguments):
//   memory      brk, munmap, mremap                        malloc, free, realloc, thread stacks
//               mprotect     never PROT_EXEC               no code is made after the load: the
//               mmap         only MAP_ANONYMOUS, never     pages that can run are the ones the
//                            PROT_EXEC                     load mapped (the executor refuses a
//                                                          load that left one writable too), so
//                                                          a candidate that took over its own
//                                                          process can run no instruction the
//                                                          object audit did not see
//               madvise      only NORMAL, RANDOM, SEQUENTIAL, WILLNEED, DONTNEED, FREE,
//                            HUGEPAGE, NOHUGEPAGE, DONTDUMP, DODUMP, GUARD_INSTALL/REMOVE
//                            (glibc frees thread stacks and trims with DONTNEED, and from
//                            2.41 on a 6.13+ kernel guards thread stacks with GUARD_*; never
//                            HWPOISON/SOFT_OFFLINE, which a root process could use to take
//                            physical pages offline, nor MERGEABLE, a cross-process side channel)
//               mbind        not MPOL_MF_MOVE_ALL          OpenBLAS binds its buffers; MOVE_ALL
//                                                          would move pages other processes share
//   threads     clone        only with CLONE_THREAD|CLONE_VM|CLONE_SIGHAND set and none of
//                            CLONE_VFORK, CLONE_PARENT, CLONE_PTRACE, CLONE_NEW* (a thread of
//                            this process, never a new process or namespace), and only when
//                            CandidateFilter::threads (a stage compiled for OpenMP): elsewhere
//                            every clone kills
//               futex, set_robust_list, rseq, exit, gettid, getpid
//               sched_yield, sched_getaffinity, getcpu
//   signals     rt_sigprocmask, rt_sigreturn, restart_syscall
//               rt_sigaction only for signals 32 and 33: glibc's SIGCANCEL and SIGSETXID,
//                            installed by the first pthread_create (libgomp's first parallel
//                            region). A candidate can't catch SIGSEGV, SIGXCPU, SIGALRM ...
//               tgkill       only to this process (abort() and raise() send SIGABRT etc. to
//                            the calling thread this way, so abort() ends as a plain SIGABRT)
//   time        clock_gettime, clock_getres, gettimeofday, time (normally the vDSO, but a
//               clock source without one falls back to the system call), nanosleep,
//               clock_nanosleep
//   output      write, writev  only to fd 1, 2 and the result fd (if any)
//               fstat, newfstatat  only on fd 1, 2 and the result fd (stdio sizes its
//                            buffer with fstat, which glibc 2.33+ implements as
//                            newfstatat(fd, "", AT_EMPTY_PATH))
//               close
//   queries     getrandom, sysinfo (qsort and sysconf(_SC_PHYS_PAGES)), getrlimit,
//               prlimit64 only as getrlimit of this process (pid 0, no new limit: a root
//               process could otherwise raise its own RLIMIT_AS/CPU), getrusage,
//               prctl only PR_SET_NAME / PR_GET_NAME (pthread_setname_np on itself)
//               exit_group
//
// DENIED WITH AN ERRNO (the call fails, the process goes on; glibc has a fallback or a
// caller that copes):
//   clone3       ENOSYS  its flags are in memory seccomp can't read; glibc (2.34+) then
//                        falls back to clone, whose flags are checked above
//   open, openat EACCES  for a read-only open (O_RDONLY and none of O_CREAT, O_TRUNC,
//                        O_APPEND, O_TMPFILE): glibc opens files behind the caller's back
//                        and copes with failure (sysconf(_SC_NPROCESSORS_*) reads /sys and
//                        falls back to sched_getaffinity; setlocale, iconv, dlopen of a
//                        library not yet loaded fail cleanly). Reading is denied all the
//                        same: nothing is opened.
//   ioctl        ENOTTY  for TCGETS and TIOCGWINSZ only (isatty, terminal size)
//
// SUCCEEDS WITHOUT EFFECT (errno 0, nothing done):
//   sched_setaffinity    placement is the rank's: the executor's mask is its share of the
//                        node, and libgomp's team is started and pinned (OMP_PROC_BIND)
//                        before the filter (candidate_loader.cpp). A thread created later
//                        keeps its creator's mask. Seccomp can't read the mask nor tell this
//                        process's threads from another's, so the call can neither widen a
//                        thread's CPUs nor move another process's threads
//
// KILLED (SIGSYS, status `forbidden`): everything else, in particular fork, vfork, clone
// without CLONE_THREAD, execve, execveat; open/openat that could write or create (any of
// O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND, O_TMPFILE), openat2, creat, mkdir, unlink,
// rename, link, symlink, chmod, chown, truncate, mknod, ...; stat, access, readlink of a
// path (newfstatat is only let through on fds 1, 2 and the result fd); read (nothing is
// left to read after the load); dup, fcntl, pipe, memfd_create, io_uring_*; socket,
// socketpair, connect, bind, ... (no network); kill (any), tkill, tgkill to another
// process; ptrace, process_vm_readv/writev, pidfd_*; setsid, setpgid (leaving the process
// group the rank kills); setrlimit,
// setpriority, sched_setscheduler, sched_setattr, ioprio_set; pkey_mprotect, pkey_alloc;
// shmget, semget, msgget, mq_open (no object outlives the process); prctl other than the names; personality, mount,
// unshare, setns, chroot, reboot, bpf, perf_event_open, keyctl, seccomp, ...; every call
// of another ABI (i386 `int 0x80`, x32): SCMP_FLTATR_ACT_BADARCH is KILL_PROCESS too.
//
// LIMITS (what this filter does not do):
//   - sched_getaffinity, getcpu and sysinfo answer about any process or the node: what they
//     tell is public (/proc shows it to every user), and nothing is changed.
//   - newfstatat(1, "/absolute/path", ...) ignores the fd: a candidate can learn whether a
//     path exists and its metadata, not its contents.
//   - Speculative store bypass mitigation is not forced on (SCMP_FLTATR_CTL_SSB): the
//     candidate is already native code in a process of its own with nothing to protect
//     from itself, and forcing it would slow the timed code down against the OpenBLAS
//     peak the rank measures without it (docs/design.md "Measuring honestly").

namespace hpcreward {

namespace {

[[noreturn]] void fail(const std::string &what, int rc) {
  throw SandboxError("seccomp: " + what + ": " + ::strerror(rc < 0 ? -rc : rc));
}

SeccompContext build_filter(const CandidateFilter &filter) {
#if !defined(__x86_64__) || defined(__ILP32__)
  (void)filter;
  throw SandboxError("seccomp: the candidate filter is written for x86_64 only; refusing to run "
                     "candidates on this architecture");
#else
  SeccompContext ctx(SCMP_ACT_KILL_PROCESS, "seccomp");
  const auto raw = static_cast<scmp_filter_ctx>(ctx.get());
  int rc;
  if (seccomp_api_get() >= 4 && (rc = seccomp_attr_set(raw, SCMP_FLTATR_CTL_SSB, 1)) != 0)
    fail("leaving speculative store bypass alone", rc);

  const pid_t self = filter.self != 0 ? filter.self : ::getpid();
  std::vector<std::uint64_t> output_fds{1, 2};
  if (filter.result_fd >= 0 &&
      std::find(output_fds.begin(), output_fds.end(), static_cast<std::uint64_t>(filter.result_fd)) == output_fds.end())
    output_fds.push_back(static_cast<std::uint64_t>(filter.result_fd));
  if (filter.progress_fd >= 0 &&
      std::find(output_fds.begin(), output_fds.end(), static_cast<std::uint64_t>(filter.progress_fd)) == output_fds.end())
    output_fds.push_back(static_cast<std::uint64_t>(filter.progress_fd));


  // Memory.
  for (const char *name : {"brk", "munmap", "mremap"}) ctx.allow(name);
  ctx.allow("mprotect", {SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)});
  ctx.allow("mmap", {SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0),
                   SCMP_A3(SCMP_CMP_MASKED_EQ, MAP_ANONYMOUS, MAP_ANONYMOUS)});
  constexpr std::uint64_t kGuardInstall = 102, kGuardRemove = 103;  // Linux 6.13, not in glibc 2.36
  ctx.allow_if_in("madvise", 2,
                {MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_WILLNEED, MADV_DONTNEED, MADV_FREE,
                 MADV_HUGEPAGE, MADV_NOHUGEPAGE, MADV_DONTDUMP, MADV_DODUMP, kGuardInstall,
                 kGuardRemove});
  ctx.allow("mbind", {SCMP_A5(SCMP_CMP_MASKED_EQ, MPOL_MF_MOVE_ALL, 0)});

  // Threads: clone only for a thread of this process.
  constexpr std::uint64_t kThread = CLONE_THREAD | CLONE_VM | CLONE_SIGHAND;
  constexpr std::uint64_t kNever = CLONE_VFORK | CLONE_PARENT | CLONE_PTRACE | CLONE_UNTRACED |
                                   CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC |
                                   CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET;
  if (filter.threads) ctx.allow("clone", {SCMP_A0(SCMP_CMP_MASKED_EQ, kThread | kNever, kThread)});
  ctx.rule(SCMP_ACT_ERRNO(ENOSYS), "clone3");
  for (const char *name : {"futex", "set_robust_list", "rseq", "exit", "gettid", "getpid",
                           "sched_yield", "sched_getaffinity", "getcpu"})
    ctx.allow(name);
  ctx.rule(SCMP_ACT_ERRNO(0), "sched_setaffinity");

  // Signals.
  for (const char *name : {"rt_sigprocmask", "rt_sigreturn", "restart_syscall"}) ctx.allow(name);
  ctx.allow_if_in("rt_sigaction", 0, {32, 33});  // SIGCANCEL, SIGSETXID (glibc-internal)
  ctx.allow("tgkill", {SCMP_A0(SCMP_CMP_EQ, static_cast<std::uint64_t>(self))});

  // Time.
  for (const char *name : {"clock_gettime", "clock_getres", "gettimeofday", "time", "nanosleep",
                           "clock_nanosleep"})
    ctx.allow(name);

  // Output.
  for (const char *name : {"write", "writev", "fstat", "newfstatat"})
    ctx.allow_if_in(name, 0, output_fds);
  ctx.allow("close");

  // Opens: read-only ones fail with EACCES; the others are not on the list and kill.
  // O_TMPFILE is its own bit plus O_DIRECTORY; only its own bit means "create" (opendir
  // sets O_DIRECTORY alone).
  constexpr std::uint64_t kTmpfileBit = O_TMPFILE & ~O_DIRECTORY;
  constexpr std::uint64_t kWriteIntent =
      O_ACCMODE /* O_WRONLY, O_RDWR */ | O_CREAT | O_TRUNC | O_APPEND | kTmpfileBit;
  ctx.rule(SCMP_ACT_ERRNO(EACCES), "open", {SCMP_A1(SCMP_CMP_MASKED_EQ, kWriteIntent, 0)});
  ctx.rule(SCMP_ACT_ERRNO(EACCES), "openat", {SCMP_A2(SCMP_CMP_MASKED_EQ, kWriteIntent, 0)});
  for (std::uint64_t request : {std::uint64_t{TCGETS}, std::uint64_t{TIOCGWINSZ}})
    ctx.rule(SCMP_ACT_ERRNO(ENOTTY), "ioctl", {SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, request)});

  // Queries about this process, and leaving.
  for (const char *name : {"getrandom", "sysinfo", "getrlimit", "getrusage", "exit_group"})
    ctx.allow(name);
  ctx.allow("prlimit64", {SCMP_A0(SCMP_CMP_EQ, 0), SCMP_A2(SCMP_CMP_EQ, 0)});
  ctx.allow_if_in("prctl", 0, {PR_SET_NAME, PR_GET_NAME});

  for (const char *name : {"futex", "sched_yield", "clock_gettime", "rt_sigprocmask"}) ctx.hot(name);
  return ctx;
#endif
}

}  // namespace

void install_candidate_filter(const CandidateFilter &filter) { build_filter(filter).load(); }

std::string candidate_filter_text(const CandidateFilter &filter) {
  return pseudo_filter_code(build_filter(filter).get());
}

std::string pseudo_filter_code(void *libseccomp_context) {
  const int fd = ::memfd_create("hpcreward-seccomp-pfc", MFD_CLOEXEC);
  if (fd < 0) fail("memfd_create", errno);
  std::string text;
  const int rc = seccomp_export_pfc(static_cast<scmp_filter_ctx>(libseccomp_context), fd);
  if (rc == 0 && ::lseek(fd, 0, SEEK_SET) == 0) {
    char buffer[4096];
    ssize_t got;
    while ((got = ::read(fd, buffer, sizeof buffer)) > 0)
      text.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(fd);
  if (rc != 0) fail("exporting the filter", rc);
  return text;
}

}  // namespace hpcreward
