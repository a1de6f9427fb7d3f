// Landlock keeps a process from writing any file but the ones it is given
// (sandbox/file_writes.hpp): the GPU executor's way of keeping a candidate away from other
// candidates' objects, the compile cache and the reward log. Each case runs in a forked child,
// since the restriction is for good.
#include "bench_node/sandbox/file_writes.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <functional>

#include <gtest/gtest.h>

namespace hpcreward {
namespace {

namespace fs = std::filesystem;

class FileWritesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (landlock_abi() == 0) GTEST_SKIP() << "this kernel has no Landlock (a GPU executor refuses to run here)";
    root_ = fs::temp_directory_path() / ("hpcreward-file-writes-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(root_ / "writable");
    fs::create_directories(root_ / "other");
    std::ofstream(root_ / "other" / "object.so") << "another candidate's object";
    std::ofstream(root_ / "writable" / "device") << "";
  }
  void TearDown() override {
    if (!root_.empty()) fs::remove_all(root_);
  }

  // Runs `attempt` in a child restricted to root_/writable; its exit code (0 = as expected),
  // 100 when the restriction itself failed.
  int in_restricted_child(const std::function<int()> &attempt) {
    const pid_t child = ::fork();
    if (child == 0) {
      ::alarm(20);
      try {
        restrict_file_writes({(root_ / "writable").string()});
      } catch (...) {
        ::_exit(100);
      }
      ::_exit(attempt());
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 101;
  }

  fs::path root_;
};

TEST_F(FileWritesTest, AnotherFileCannotBeOpenedForWritingNorMappedWritable) {
  const std::string other = (root_ / "other" / "object.so").string();
  EXPECT_EQ(in_restricted_child([&] {
              if (::open(other.c_str(), O_RDWR) >= 0 || errno != EACCES) return 1;
              if (::open(other.c_str(), O_WRONLY) >= 0) return 2;
              const int fd = ::open(other.c_str(), O_RDONLY);  // reading stays allowed
              if (fd < 0) return 3;
              void *mapped = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
              return mapped == MAP_FAILED ? 0 : 4;  // a read-only descriptor maps read-only
            }),
            0);
  std::ifstream in(root_ / "other" / "object.so");
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "another candidate's object");
}

TEST_F(FileWritesTest, NothingCanBeCreatedRemovedOrRenamedOutsideTheWritableFolder) {
  const fs::path other = root_ / "other";
  EXPECT_EQ(in_restricted_child([&] {
              if (::open((other / "new").c_str(), O_WRONLY | O_CREAT, 0600) >= 0) return 1;
              if (::unlink((other / "object.so").c_str()) == 0) return 2;
              if (::rename((other / "object.so").c_str(), (other / "moved").c_str()) == 0) return 3;
              if (::truncate((other / "object.so").c_str(), 0) == 0) return 4;
              if (::mkdir((other / "dir").c_str(), 0700) == 0) return 5;
              return 0;
            }),
            0);
  EXPECT_TRUE(fs::exists(other / "object.so"));
  EXPECT_FALSE(fs::exists(other / "new"));
  EXPECT_EQ(fs::file_size(other / "object.so"), 26u);
}

TEST_F(FileWritesTest, TheWritableFolderStaysWritable) {
  const fs::path writable = root_ / "writable";
  EXPECT_EQ(in_restricted_child([&] {
              const int fd = ::open((writable / "device").c_str(), O_RDWR);
              if (fd < 0) return 1;
              if (::write(fd, "x", 1) != 1) return 2;
              if (::open((writable / "new").c_str(), O_WRONLY | O_CREAT, 0600) < 0) return 3;
              return 0;
            }),
            0);
  EXPECT_TRUE(fs::exists(writable / "new"));
}

TEST(FileWrites, TheNvidiaDeviceFilesAreEveryNvidiaEntryAndNothingElse) {
  const fs::path devices = fs::temp_directory_path() / ("hpcreward-devices-" + std::to_string(::getpid()));
  fs::create_directories(devices / "nvidia-caps");
  for (const char *name : {"nvidia0", "nvidiactl", "nvidia-uvm", "null", "shm", "xnvidia"})
    std::ofstream(devices / name) << "";
  std::vector<std::string> files = nvidia_device_files(devices.string());
  std::sort(files.begin(), files.end());
  const std::vector<std::string> expected = {(devices / "nvidia-caps").string(), (devices / "nvidia-uvm").string(),
                                             (devices / "nvidia0").string(), (devices / "nvidiactl").string()};
  EXPECT_EQ(files, expected);
  fs::remove_all(devices);
}

}  // namespace
}  // namespace hpcreward
