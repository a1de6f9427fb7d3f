#pragma once
// The GPU runner's seccomp filter. Unlike the CPU runner's allow-list (seccomp_filter.hpp),
// this is a deny-list: the CUDA driver's system calls (ioctls and mmaps of /dev/nvidia*,
// helper threads, eventfds, polls) are undocumented and change with the driver, so an
// allow-list would kill honest candidates after a driver update. What it denies is what a
// candidate must never do:
//   KILLED (SIGSYS, `forbidden`): new processes and threads (fork, vfork, execve, execveat,
//   clone, clone3: the driver's threads start with the context, before the filter), code made
//   after the load (mmap, mprotect, pkey_mprotect with PROT_EXEC), other processes' scheduling
//   (setpriority, sched_setscheduler/param/attr, ioprio_set, migrate_pages, move_pages,
//   process_madvise, process_mrelease, kcmp), objects that outlive the process (SysV shm,
//   semaphores and message queues, POSIX message queues), the network (socket, socketpair,
//   connect, bind, listen, accept), other processes (ptrace, process_vm_*, kill, tkill and
//   tgkill of another process, pidfd_*), leaving the process group (setsid, setpgid),
//   changing limits (setrlimit,
//   prlimit64 with a new limit), file system changes (unlink, rename, mkdir, rmdir, link,
//   symlink, chmod, chown, truncate, mknod, creat, opens that create, truncate or append,
//   name_to_handle_at), and the system (mount, unshare, setns, chroot, pivot_root, reboot,
//   kexec, modules, bpf, perf_event_open, keyctl, personality, userfaultfd, io_uring,
//   seccomp).
//   sched_setaffinity succeeds without effect: placement is the rank's, and seccomp can't tell
//   this process's thread ids from another process's.
// Writes to files the runner opens are stopped by RLIMIT_FSIZE = 0 (SIGXFSZ), not here: the
// driver opens its device files read-write.
//
// When: after the CUDA context, cuBLAS and the candidate's object are loaded, before the
// first call into candidate code. x86_64 only (SandboxError elsewhere), TSYNC on every thread.
#include <string>

#include "bench_node/sandbox/seccomp_filter.hpp"

namespace hpcreward {

void install_gpu_candidate_filter(const CandidateFilter &filter);

// The filter as libseccomp's pseudo filter code (for reading and for tests); loads nothing.
std::string gpu_candidate_filter_text(const CandidateFilter &filter);

}  // namespace hpcreward
