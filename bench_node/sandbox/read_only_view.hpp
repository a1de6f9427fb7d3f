#pragma once
// An executor's own view of the file system, every mount of it read-only, and (under root) an
// identity that owns nothing. A seccomp filter can miss a call (the GPU's, a deny-list
// once, did: fchmodat2, setxattr, utimensat), and Landlock does not cover metadata; an executor keeps the
// rank's uid, so it owns the job's files (under root, every root-owned file). Here the kernel
// refuses the change itself: chmod, chown, setxattr (ACLs too), utimensat and truncate take a
// write on the mount first and fail with EROFS whatever the caller's uid or capabilities;
// opening a device file read-write needs no write on its mount, so the GPU's /dev/nvidia*
// stay usable and cannot be changed.
//
// How: a user and mount namespace of the process's own (no privilege needed), its ids mapped
// to themselves, then every mount of the private namespace made read-only; a candidate without
// capabilities cannot make one writable again, nor in a namespace it makes itself (the kernel
// locks the flag). unshare(CLONE_NEWUSER) refuses a process with threads, so this comes first,
// before the CUDA driver, OpenMP or anything that starts one. The new namespace gives every
// capability inside it: the caller drops them after (capabilities.hpp).
//
// Not covered (the namespace does not move them): descriptors open before it (their mounts are
// the original ones; executors keep only pipes, memfds and sockets) and /proc/self/exe (chmod of
// the executor's own binary, when its uid owns it). Other processes' /proc/<pid>/{root,cwd,fd}
// do not open from inside (no CAP_SYS_PTRACE over processes outside the user namespace). Under
// root the CPU executor's switch to an id that owns nothing closes the rest; the GPU executor
// keeps root's id (it loads from root's private directory by name, after the set-up).
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace hpcreward {

struct ReadOnlyView {
  // Under euid 0, the uid and gid to become first (all groups dropped); unset keeps root's,
  // as for an executor that must still open files only root may read.
  std::optional<uid_t> root_becomes;
  // Per-mount remounts instead of mount_setattr (Linux 5.12+): the fallback, for tests.
  bool remount_each = false;
  // Mount points left writable, with the mounts beneath them: the GPU executor's /proc (the
  // CUDA driver fails to start with a read-only /proc on the H200 machine, under gVisor; proc
  // refuses mode changes of its process entries and has no xattrs).
  std::vector<std::string> left_writable;
};

// The id an executor under root becomes: HPCREWARD_EXECUTOR_ID when set (a number), else
// 65534 (nobody), which should own no file of the node.
uid_t executor_id_under_root();

// Enters the view; "" when done, else what failed and what to fix (the caller fails closed:
// refuses every candidate with that reason). The process's dumpable state is kept.
std::string enter_read_only_view(const ReadOnlyView &view = {});

}  // namespace hpcreward
