#include "bench_node/process/work_dir.hpp"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string_view>
#include <system_error>
#include <vector>

namespace hpcreward {

namespace fs = std::filesystem;

fs::path default_work_root(int rank) {
  const char *tmpdir = std::getenv("TMPDIR");
  const fs::path base = tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
  return base / ("hpcreward-bench-" + std::to_string(rank) + "-" + std::to_string(::getpid()));
}

int remove_stale_work_roots() {
  const fs::path base = default_work_root(0).parent_path();
  constexpr std::string_view prefix = "hpcreward-bench-";
  int removed = 0;
  std::error_code error;
  for (const auto &entry : fs::directory_iterator(base, error)) {
    const std::string name = entry.path().filename().string();
    const std::size_t dash = name.rfind('-');
    if (name.rfind(prefix, 0) != 0 || dash == std::string::npos || dash < prefix.size()) continue;
    const long pid = std::strtol(name.c_str() + dash + 1, nullptr, 10);
    struct stat info {};
    if (pid <= 0 || ::lstat(entry.path().c_str(), &info) != 0 || info.st_uid != ::geteuid() ||
        !S_ISDIR(info.st_mode))
      continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH && remove_tree(entry.path())) ++removed;
  }
  return removed;
}

void ensure_private_directory(const fs::path &directory) {
  fs::create_directories(directory);
  fs::permissions(directory, fs::perms::owner_all, fs::perm_options::replace);
}

WorkDir::WorkDir(const fs::path &root, const std::string &prefix) {
  ensure_private_directory(root);
  std::string name = (root / (prefix + "-XXXXXX")).string();
  std::vector<char> buffer(name.begin(), name.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data()) == nullptr)  // mode 0700
    throw fs::filesystem_error("cannot create a work directory", fs::path(name),
                               std::error_code(errno, std::generic_category()));
  path_ = buffer.data();
}

WorkDir::~WorkDir() {
  if (!keep_) remove_tree(path_);
}

bool remove_tree(const fs::path &directory) {
  std::error_code error;
  fs::remove_all(directory, error);  // does not follow symbolic links a candidate left

  return !error;
}

}  // namespace hpcreward
