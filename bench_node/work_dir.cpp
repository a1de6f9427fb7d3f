#include "bench_node/work_dir.hpp"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <system_error>
#include <vector>

namespace hpcreward {

namespace fs = std::filesystem;

fs::path default_work_root(int rank) {
  const char *tmpdir = std::getenv("TMPDIR");
  const fs::path base = tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
  return base / ("hpcreward-bench-" + std::to_string(rank) + "-" + std::to_string(::getpid()));
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
