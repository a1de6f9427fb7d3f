#include "bench_node/sandbox/gpu_seccomp_filter.hpp"

#include "bench_node/sandbox/seccomp_context.hpp"

#include <fcntl.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

namespace hpcreward {

namespace {

[[noreturn]] void fail(const std::string &what, int rc) {
  throw SandboxError("seccomp (GPU): " + what + ": " + ::strerror(rc < 0 ? -rc : rc));
}

void add(scmp_filter_ctx ctx, std::uint32_t action, const char *name,
         std::initializer_list<scmp_arg_cmp> args = {}) {
  const int number = seccomp_syscall_resolve_name(name);
  if (number == __NR_SCMP_ERROR) return;  // not on this kernel's table: nothing to deny
  const std::vector<scmp_arg_cmp> conditions(args);
  const int rc = seccomp_rule_add_exact_array(ctx, action, number, static_cast<unsigned>(conditions.size()),
                                              conditions.empty() ? nullptr : conditions.data());
  if (rc != 0) fail(std::string("adding the rule for ") + name, rc);
}

SeccompContext build(const CandidateFilter &filter) {
#if !defined(__x86_64__) || defined(__ILP32__)
  (void)filter;
  throw SandboxError("seccomp (GPU): the filter is written for x86_64 only");
#else
  SeccompContext ctx(SCMP_ACT_ALLOW, "seccomp (GPU)");
  const auto raw = static_cast<scmp_filter_ctx>(ctx.get());
  const std::uint32_t kill = SCMP_ACT_KILL_PROCESS;
  const pid_t self = filter.self != 0 ? filter.self : ::getpid();

  for (const char *name :
       {"fork", "vfork", "execve", "execveat", "socket", "socketpair", "connect", "bind", "listen", "accept",
        "accept4", "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_open", "pidfd_getfd",
        "pidfd_send_signal", "setsid", "setpgid", "setrlimit", "unlink", "unlinkat", "rename", "renameat",
        "renameat2", "mkdir", "mkdirat", "rmdir", "link", "linkat", "symlink", "symlinkat", "chmod", "fchmod",
        "fchmodat", "chown", "fchown", "lchown", "fchownat", "truncate", "mknod", "mknodat", "creat",
        "name_to_handle_at", "open_by_handle_at", "openat2", "mount", "umount2", "unshare", "setns", "chroot",
        "pivot_root", "reboot", "kexec_load", "kexec_file_load", "init_module", "finit_module",
        "delete_module", "bpf", "perf_event_open", "keyctl", "add_key", "request_key", "personality",
        "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register", "seccomp", "swapon",
        "swapoff", "acct", "settimeofday", "clock_settime", "adjtimex", "sethostname", "setdomainname",
        "iopl", "ioperm", "fanotify_init", "move_mount", "fsopen", "fsmount", "open_tree"})
    add(raw, kill, name);

  // No new thread: the driver's were started with the context, before the filter. A thread
  // of the candidate's could rewrite what the executor reports after it wrote it.
  add(raw, kill, "clone");
  add(raw, kill, "clone3");

  // No code made after the load (file-backed or anonymous): what runs on the host is what the
  // load mapped.
  add(raw, kill, "mmap", {SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC)});
  add(raw, kill, "mprotect", {SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC)});
  add(raw, kill, "pkey_mprotect", {SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC)});

  // Placement is the rank's; other processes' scheduling is none of the candidate's business.
  // seccomp can't tell this process's thread ids from another's, so these go for every id.
  add(raw, SCMP_ACT_ERRNO(0), "sched_setaffinity");
  for (const char *name : {"setpriority", "sched_setscheduler", "sched_setparam", "sched_setattr", "ioprio_set",
                           "migrate_pages", "move_pages", "process_madvise", "process_mrelease", "kcmp"})
    add(raw, kill, name);

  // Nothing that outlives the process: SysV IPC and POSIX message queues live in the kernel
  // until removed (POSIX shared memory is a file, refused by file_writes.hpp).
  for (const char *name : {"shmget", "shmat", "shmctl", "shmdt", "semget", "semop", "semtimedop", "semctl",
                           "msgget", "msgsnd", "msgrcv", "msgctl", "mq_open", "mq_unlink", "mq_timedsend",
                           "mq_timedreceive", "mq_notify", "mq_getsetattr"})
    add(raw, kill, name);

  // Signals to this process only.
  add(raw, kill, "kill", {SCMP_A0(SCMP_CMP_NE, static_cast<std::uint64_t>(self))});
  add(raw, kill, "tgkill", {SCMP_A0(SCMP_CMP_NE, static_cast<std::uint64_t>(self))});
  add(raw, kill, "tkill");
  add(raw, kill, "rt_sigqueueinfo", {SCMP_A0(SCMP_CMP_NE, static_cast<std::uint64_t>(self))});
  add(raw, kill, "rt_tgsigqueueinfo", {SCMP_A0(SCMP_CMP_NE, static_cast<std::uint64_t>(self))});

  // Limits: reading is fine, setting is not.
  add(raw, kill, "prlimit64", {SCMP_A2(SCMP_CMP_NE, 0)});

  // Opens that create, truncate or append.
  constexpr std::uint64_t kTmpfileBit = O_TMPFILE & ~O_DIRECTORY;
  for (std::uint64_t flag : {std::uint64_t{O_CREAT}, std::uint64_t{O_TRUNC}, std::uint64_t{O_APPEND}, kTmpfileBit}) {
    add(raw, kill, "open", {SCMP_A1(SCMP_CMP_MASKED_EQ, flag, flag)});
    add(raw, kill, "openat", {SCMP_A2(SCMP_CMP_MASKED_EQ, flag, flag)});
  }
  // Process-level prctl changes that loosen the sandbox.
  for (std::uint64_t option : {std::uint64_t{PR_SET_DUMPABLE}, std::uint64_t{PR_SET_PTRACER},
                               std::uint64_t{PR_SET_SECCOMP}, std::uint64_t{PR_SET_CHILD_SUBREAPER}})
    add(raw, kill, "prctl", {SCMP_A0(SCMP_CMP_EQ, option)});
  (void)filter.result_fd;
  return ctx;
#endif
}

}  // namespace

void install_gpu_candidate_filter(const CandidateFilter &filter) { build(filter).load(); }

std::string gpu_candidate_filter_text(const CandidateFilter &filter) { return pseudo_filter_code(build(filter).get()); }

}  // namespace hpcreward
