#include "bench_node/sandbox/file_writes.hpp"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "bench_node/sandbox/seccomp_filter.hpp"

// Landlock ABI 3 (Linux 6.2); Debian 12's kernel headers (6.1) predate it. The kernel's value.
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif

namespace hpcreward {

namespace {

// Every access that changes the file system. Reading and executing are not handled, so they
// stay allowed everywhere.
std::uint64_t write_accesses(long abi) {
  std::uint64_t accesses = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                           LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                           LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                           LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                           LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi >= 2) accesses |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) accesses |= LANDLOCK_ACCESS_FS_TRUNCATE;
  return accesses;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

[[noreturn]] void fail(const std::string &what) {
  throw SandboxError("Landlock: " + what + ": " + std::strerror(errno));
}

}  // namespace

int landlock_abi() {
  const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi > 0 ? static_cast<int>(abi) : 0;
}

void restrict_file_writes(const std::vector<std::string> &writable) {
  const long abi = landlock_abi();
  if (abi < 1)
    fail("not available in this kernel (Linux 5.13 or later with landlock in its lsm= list is needed, so that a "
         "candidate cannot write other files)");
  const std::uint64_t handled = write_accesses(abi);
  landlock_ruleset_attr attributes{};
  attributes.handled_access_fs = handled;
  const Fd ruleset(static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attributes, sizeof attributes, 0)));
  if (ruleset.get() < 0) fail("creating the ruleset");
  for (const std::string &path : writable) {
    const Fd beneath(::open(path.c_str(), O_PATH | O_CLOEXEC));
    if (beneath.get() < 0) fail("opening " + path);
    landlock_path_beneath_attr rule{};
    rule.parent_fd = beneath.get();
    // A file takes only the accesses that apply to files; a folder every one, beneath it.
    rule.allowed_access = std::filesystem::is_directory(path) ? handled
                                                               : handled & (LANDLOCK_ACCESS_FS_WRITE_FILE |
                                                                            (abi >= 3 ? LANDLOCK_ACCESS_FS_TRUNCATE : 0));
    if (::syscall(SYS_landlock_add_rule, ruleset.get(), LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0)
      fail("allowing " + path);
  }
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("PR_SET_NO_NEW_PRIVS");
  if (::syscall(SYS_landlock_restrict_self, ruleset.get(), 0) != 0) fail("restricting this process");
}

std::vector<std::string> nvidia_device_files(const std::string &devices) {
  std::vector<std::string> files;
  std::error_code error;
  for (const auto &entry : std::filesystem::directory_iterator(devices, error))
    if (entry.path().filename().string().rfind("nvidia", 0) == 0) files.push_back(entry.path().string());
  return files;
}

}  // namespace hpcreward
