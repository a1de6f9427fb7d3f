// The executors' read-only view (sandbox/read_only_view.hpp): with no seccomp filter at all,
// every call that changes a file's mode, owner, ACL, xattrs, times or size fails by the
// kernel's own checks and changes nothing, for files of the child's uid and of root, while
// reading a file and opening a device file read-write still work. Each case runs in a forked
// child (filtered_child.hpp) whose only set-up is the view; the control case makes the same
// calls without it and sees them change the files, so the calls themselves are sound.
#include "bench_node/sandbox/read_only_view.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "tests/sandbox/filtered_child.hpp"

namespace hpcreward {
namespace {

namespace fs = std::filesystem;
using testing::Ended;
using testing::run_filtered;

constexpr uid_t kUserId = 4711;  // a Slurm job's user, when the test runs as root

// A valid access ACL (user::rw-, group::r--, other::r--), as setfacl writes it.
const unsigned char kAcl[] = {2, 0, 0, 0, 1, 0, 6, 0, 0xff, 0xff, 0xff, 0xff, 4, 0, 4, 0,
                              0xff, 0xff, 0xff, 0xff, 0x20, 0, 4, 0, 0xff, 0xff, 0xff, 0xff};

struct Snapshot {
  struct stat status {};
  std::string xattrs;
  bool operator==(const Snapshot &other) const {
    return status.st_mode == other.status.st_mode && status.st_uid == other.status.st_uid &&
           status.st_gid == other.status.st_gid && status.st_size == other.status.st_size &&
           status.st_mtim.tv_sec == other.status.st_mtim.tv_sec &&
           status.st_mtim.tv_nsec == other.status.st_mtim.tv_nsec &&
           status.st_atim.tv_nsec == other.status.st_atim.tv_nsec && xattrs == other.xattrs;
  }
};

Snapshot snapshot(const std::string &path) {
  Snapshot taken;
  ::lstat(path.c_str(), &taken.status);
  char names[4096];
  const ssize_t got = ::llistxattr(path.c_str(), names, sizeof names);
  if (got > 0) taken.xattrs.assign(names, static_cast<std::size_t>(got));
  return taken;
}

// Every metadata change a candidate made (fchmodat2, setxattr, utimensat) and the rest of its
// kind; the number that succeeded, each named on stdout.
int change_everything(const std::string &path, uid_t owner) {
  int changed = 0;
  auto attempt = [&](const char *name, long result) {
    if (result == 0) {
      std::printf("%s %s succeeded\n", name, path.c_str());
      ++changed;
    } else if (std::getenv("HPCREWARD_TEST_VERBOSE")) {
      std::printf("%s %s: %s\n", name, path.c_str(), std::strerror(errno));
    } else if (errno != EROFS && errno != EPERM && errno != EACCES) {
      std::printf("%s %s: unexpected %s\n", name, path.c_str(), std::strerror(errno));
      ++changed;
    }
  };
  const char *file = path.c_str();
  const timespec epoch[2] = {{0, 0}, {0, 0}};
  attempt("chmod", ::chmod(file, 07777));
  attempt("fchmodat", ::fchmodat(AT_FDCWD, file, 07777, 0));
  attempt("fchmodat2", ::syscall(452, AT_FDCWD, file, 07777, 0));
  attempt("chown", ::chown(file, owner, 0));
  attempt("lchown", ::lchown(file, owner, owner));
  attempt("setxattr", ::setxattr(file, "user.carried", "bytes", 5, 0));
  attempt("lsetxattr", ::lsetxattr(file, "user.carried", "bytes", 5, 0));
  attempt("setxattr acl", ::setxattr(file, "system.posix_acl_access", kAcl, sizeof kAcl, 0));
  attempt("removexattr", ::removexattr(file, "user.kept"));
  attempt("utimensat", ::utimensat(AT_FDCWD, file, epoch, 0));
  attempt("utimensat now", ::utimensat(AT_FDCWD, file, nullptr, 0));
  attempt("truncate", ::truncate(file, 0));
  const int fd = ::open(file, O_RDONLY);
  if (fd >= 0) {
    attempt("fchmod", ::fchmod(fd, 07777));
    attempt("fchown", ::fchown(fd, owner, 0));
    attempt("fsetxattr", ::fsetxattr(fd, "user.carried", "bytes", 5, 0));
    attempt("futimens", ::futimens(fd, epoch));
    ::close(fd);
  }
  return changed;
}

class ReadOnlyViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("hpcreward-read-only-view-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(root_);
    fs::permissions(root_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                               fs::perms::others_read | fs::perms::others_exec);
  }
  void TearDown() override { fs::remove_all(root_); }

  // A file of `owner`, mode 0644, with one user xattr (when the file system keeps them).
  std::string file_of(const std::string &name, uid_t owner) {
    const std::string path = (root_ / name).string();
    std::ofstream(path) << "contents";
    ::chmod(path.c_str(), 0644);
    ::setxattr(path.c_str(), "user.kept", "1", 1, 0);
    if (::geteuid() == 0) ::chown(path.c_str(), owner, owner);
    return path;
  }

  // The child, as `child_uid` (when the test runs as root), enters `view` (none when unset),
  // tries every change on each of `files` (by names relative to root_, its working directory:
  // the temporary directory above may not be searchable by that uid), reads the first and opens
  // /dev/null read-write.
  Ended try_changes(const std::vector<std::string> &files, std::optional<ReadOnlyView> view, uid_t child_uid) {
    return run_filtered(
        [&] {
          std::ifstream in(fs::path(files.front()).filename());  // before a truncate can empty it
          std::string read;
          in >> read;
          int changed = 0;
          for (const std::string &file : files) changed += change_everything(fs::path(file).filename(), child_uid);
          const int device = ::open("/dev/null", O_RDWR);
          const bool usable = device >= 0 && ::write(device, "x", 1) == 1;
          const bool readable = read == "contents";
          if (!usable || !readable) std::printf("reading or /dev/null failed\n");
          return readable && usable && (view ? changed == 0 : changed > 0) ? 0 : 1;
        },
        {.before_install =
             [this, child_uid] {
               if (::chdir(root_.c_str()) != 0) ::_exit(103);  // kept after the ids change
               if (::geteuid() == 0 && child_uid != 0 && (::setresgid(child_uid, child_uid, child_uid) != 0 ||
                                                          ::setresuid(child_uid, child_uid, child_uid) != 0))
                 ::_exit(102);
             },
         .install =
             [view] {
               if (!view) return;
               if (const std::string why = enter_read_only_view(*view); !why.empty()) throw SandboxError(why);
             }});
  }

  void expect_unchanged(const std::vector<std::string> &files, const std::vector<Snapshot> &before) {
    for (std::size_t i = 0; i < files.size(); ++i) EXPECT_TRUE(snapshot(files[i]) == before[i]) << files[i];
  }

  fs::path root_;
};

std::vector<Snapshot> snapshots(const std::vector<std::string> &files) {
  std::vector<Snapshot> taken;
  for (const std::string &file : files) taken.push_back(snapshot(file));
  return taken;
}

// The Slurm case: the job runs as the user, who owns the job's files.
TEST_F(ReadOnlyViewTest, AsTheUserNoChangeToItsOwnOrRootsFiles) {
  const uid_t user = ::geteuid() == 0 ? kUserId : ::geteuid();
  const std::vector<std::string> files = {file_of("users", user), file_of("roots", 0)};
  const auto before = snapshots(files);
  const Ended ended = try_changes(files, ReadOnlyView{}, user);
  if (ended.exited && ended.code == testing::kInstallFailed) GTEST_SKIP() << ended.output;  // no user namespaces
  EXPECT_TRUE(ended.exited && ended.code == 0) << describe(ended);
  expect_unchanged(files, before);
}

// A root rank: the executor becomes an id that owns nothing, and every mount is read-only.
TEST_F(ReadOnlyViewTest, UnderRootNoChangeToRootsFilesNorTheIdsOwn) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root";
  const std::vector<std::string> files = {file_of("roots", 0), file_of("nobodys", 65534)};
  const auto before = snapshots(files);
  const Ended ended = try_changes(files, ReadOnlyView{.root_becomes = 65534, .remount_each = false, .left_writable = {}}, 0);
  EXPECT_TRUE(ended.exited && ended.code == 0) << describe(ended);
  expect_unchanged(files, before);
}

// The GPU executor's view: its uid kept (root's, under a root rank), /proc left writable.
TEST_F(ReadOnlyViewTest, TheGpuExecutorsViewChangesNothingEither) {
  const uid_t self = ::geteuid();
  const std::vector<std::string> files = {file_of("own", self)};
  const auto before = snapshots(files);
  const Ended ended =
      try_changes(files, ReadOnlyView{.root_becomes = std::nullopt, .remount_each = false, .left_writable = {"/proc"}},
                  self);
  if (ended.exited && ended.code == testing::kInstallFailed) GTEST_SKIP() << ended.output;
  EXPECT_TRUE(ended.exited && ended.code == 0) << describe(ended);
  expect_unchanged(files, before);
}

// The fallback for kernels before mount_setattr: each mount remounted read-only.
TEST_F(ReadOnlyViewTest, RemountingEachMountChangesNothingEither) {
  const uid_t user = ::geteuid() == 0 ? kUserId : ::geteuid();
  const std::vector<std::string> files = {file_of("users", user)};
  const auto before = snapshots(files);
  const Ended ended = try_changes(files, ReadOnlyView{.root_becomes = std::nullopt, .remount_each = true, .left_writable = {}}, user);
  if (ended.exited && ended.code == testing::kInstallFailed) GTEST_SKIP() << ended.output;
  EXPECT_TRUE(ended.exited && ended.code == 0) << describe(ended);
  expect_unchanged(files, before);
}

// The control: the same calls without the view change the same files (so the cases above
// would fail if the view did not hold).
TEST_F(ReadOnlyViewTest, WithoutTheViewTheCallsChangeTheFiles) {
  const uid_t user = ::geteuid() == 0 ? kUserId : ::geteuid();
  const std::vector<std::string> files = {file_of("users", user)};
  const auto before = snapshots(files);
  const Ended ended = try_changes(files, std::nullopt, user);
  EXPECT_TRUE(ended.exited && ended.code == 0) << describe(ended);
  EXPECT_FALSE(snapshot(files[0]) == before[0]);
}

// unshare(CLONE_NEWUSER) refuses a process with threads: the view says so, and the executor
// then refuses its candidate.
TEST_F(ReadOnlyViewTest, AProcessWithThreadsIsToldWhy) {
  const Ended ended = run_filtered(
      [] {
        pthread_t thread;
        ::pthread_create(&thread, nullptr, [](void *) -> void * { ::pause(); return nullptr; }, nullptr);
        const std::string why = enter_read_only_view();
        std::printf("%s\n", why.c_str());
        return why.find("threads") != std::string::npos ? 0 : 1;
      },
      {.before_install = {}, .install = [] {}});
  EXPECT_TRUE(ended.exited && ended.code == 0) << describe(ended);
}

}  // namespace
}  // namespace hpcreward
