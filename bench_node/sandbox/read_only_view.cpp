#include "bench_node/sandbox/read_only_view.hpp"

#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

// Linux 5.12's mount_setattr; Debian 12's headers have the call number but not the struct.
#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif

namespace hpcreward {

namespace {

struct MountAttributes {
  std::uint64_t attr_set, attr_clr, propagation, userns_fd;
};

std::string failed(const std::string &what) { return "read-only view: " + what + ": " + std::strerror(errno); }

bool write_file(const char *path, const std::string &text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return written;
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape(const std::string &field) {
  std::string out;
  for (std::size_t i = 0; i < field.size(); ++i)
    if (field[i] == '\\' && i + 3 < field.size()) {
      out += static_cast<char>(std::strtol(field.substr(i + 1, 3).c_str(), nullptr, 8));
      i += 3;
    } else {
      out += field[i];
    }
  return out;
}

struct Mount {
  std::string id, parent, point, options;  // options: the mount's own (not the superblock's)
};

std::vector<Mount> mounts() {
  std::vector<Mount> found;
  std::ifstream info("/proc/self/mountinfo");
  for (std::string line; std::getline(info, line);) {
    std::istringstream fields(line);
    std::string id, parent, device, root, point, options;
    if (fields >> id >> parent >> device >> root >> point >> options)
      found.push_back({id, parent, unescape(point), options});
  }
  return found;
}

bool beneath(const std::string &point, const std::vector<std::string> &points) {
  for (const std::string &top : points)
    if (point == top || point.rfind(top + "/", 0) == 0) return true;
  return false;
}

bool has_option(const std::string &options, const std::string &option) {
  return ("," + options + ",").find("," + option + ",") != std::string::npos;
}

// A bind remount changes only this mount's flags, and must restate the ones the kernel locked
// when the namespace was made (nosuid, nodev, noexec, the atime rule), or it is refused.
std::string remount_each_read_only(const std::vector<std::string> &left_writable) {
  for (const Mount &mount : mounts()) {
    if (beneath(mount.point, left_writable)) continue;
    unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY;
    if (has_option(mount.options, "nosuid")) flags |= MS_NOSUID;
    if (has_option(mount.options, "nodev")) flags |= MS_NODEV;
    if (has_option(mount.options, "noexec")) flags |= MS_NOEXEC;
    if (has_option(mount.options, "nodiratime")) flags |= MS_NODIRATIME;
    if (has_option(mount.options, "noatime"))
      flags |= MS_NOATIME;
    else if (has_option(mount.options, "relatime"))
      flags |= MS_RELATIME;
    else
      flags |= MS_STRICTATIME;
    if (::mount(nullptr, mount.point.c_str(), nullptr, flags, nullptr) != 0)
      return failed("remounting " + mount.point + " read-only");
  }
  return "";
}

std::string enter(const ReadOnlyView &view) {
  if (::geteuid() == 0 && view.root_becomes) {
    const uid_t id = *view.root_becomes;
    if (::setgroups(0, nullptr) != 0 || ::setresgid(id, id, id) != 0 || ::setresuid(id, id, id) != 0)
      return failed("becoming id " + std::to_string(id));
  }
  // Writing our own id maps needs /proc/self to be ours: a non-dumpable process's is root's.
  // Nothing is loaded yet, so being dumpable for these few calls exposes nothing.
  ::prctl(PR_SET_DUMPABLE, 1);
  const std::string uid = std::to_string(::geteuid()), gid = std::to_string(::getegid());
  if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
    return failed(errno == EINVAL ? "unshare(CLONE_NEWUSER | CLONE_NEWNS) in a process with threads"
                                  : "the kernel refuses a user namespace (user.max_user_namespaces, "
                                    "kernel.unprivileged_userns_clone, AppArmor's restrict_unprivileged_userns)");
  if (!write_file("/proc/self/uid_map", uid + " " + uid + " 1")) return failed("writing uid_map");
  if (!write_file("/proc/self/setgroups", "deny")) return failed("writing setgroups");
  if (!write_file("/proc/self/gid_map", gid + " " + gid + " 1")) return failed("writing gid_map");
  MountAttributes read_only{MOUNT_ATTR_RDONLY, 0, 0, 0};
  if (view.remount_each ||
      ::syscall(SYS_mount_setattr, -1, "/", AT_RECURSIVE, &read_only, sizeof read_only) != 0) {
    if (!view.remount_each && errno != ENOSYS && errno != EINVAL) return failed("mount_setattr read-only");
    if (std::string why = remount_each_read_only(view.left_writable); !why.empty()) return why;
  } else {
    MountAttributes writable{0, MOUNT_ATTR_RDONLY, 0, 0};  // what this call made read-only, undone
    for (const std::string &point : view.left_writable)
      if (::syscall(SYS_mount_setattr, -1, point.c_str(), AT_RECURSIVE, &writable, sizeof writable) != 0)
        return failed("leaving " + point + " writable");
  }
  // Whichever way it was done. A mount covered by another on its own root (/dev/shm mounted
  // twice) is out of reach of every path, and out of reach of a remount by path too.
  const std::vector<Mount> now = mounts();
  for (const Mount &mount : now) {
    bool covered = false;
    for (const Mount &other : now) covered |= other.parent == mount.id && other.point == mount.point;
    if (!covered && !beneath(mount.point, view.left_writable) && !has_option(mount.options, "ro")) return "read-only view: " + mount.point + " is still writable";
  }
  return "";
}

}  // namespace

uid_t executor_id_under_root() {
  const char *given = std::getenv("HPCREWARD_EXECUTOR_ID");
  if (given == nullptr || *given == '\0') return 65534;
  char *end = nullptr;
  const unsigned long id = std::strtoul(given, &end, 10);
  return *end == '\0' && id > 0 ? static_cast<uid_t>(id) : 65534;
}

std::string enter_read_only_view(const ReadOnlyView &view) {
  const int dumpable = ::prctl(PR_GET_DUMPABLE);
  std::string why = enter(view);
  ::prctl(PR_SET_DUMPABLE, dumpable);
  return why;
}

}  // namespace hpcreward
