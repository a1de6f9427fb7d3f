#pragma once
// Private working directories: one root per rank, one fresh directory per candidate in it,
// removed when the candidate is done (unless kept for debugging).
#include <filesystem>
#include <string>

namespace hpcreward {

// $TMPDIR/hpcreward-bench-<rank>-<pid> (TMPDIR defaulting to /tmp).
std::filesystem::path default_work_root(int rank);

// Removes the default work roots of ranks that are gone (killed before they could clean
// up: a scancel, a node failure), this user's only. Returns how many it removed.
int remove_stale_work_roots();

// Creates `directory` (and its parents) if missing and makes it mode 0700. Throws
// std::filesystem::filesystem_error when it can't.
void ensure_private_directory(const std::filesystem::path &directory);

class WorkDir {
 public:
  // A new, empty, mode-0700 directory root/<prefix>-XXXXXX. Throws on failure.
  WorkDir(const std::filesystem::path &root, const std::string &prefix);
  ~WorkDir();
  WorkDir(const WorkDir &) = delete;
  WorkDir &operator=(const WorkDir &) = delete;

  const std::filesystem::path &path() const { return path_; }
  void keep() { keep_ = true; }

 private:
  std::filesystem::path path_;
  bool keep_ = false;
};

// Removes `directory` and everything in it; quietly (false) on failure.
bool remove_tree(const std::filesystem::path &directory);

}  // namespace hpcreward
