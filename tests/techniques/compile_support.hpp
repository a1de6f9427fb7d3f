#pragma once
// Compiles a test candidate with gcc into a temporary directory (never loaded or run).
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace hpcreward::techniques::testing {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "techXXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path &path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The object, or nothing when gcc refuses (e.g. intrinsics without the target flags).
inline std::optional<std::filesystem::path> compile(const TempDir &dir, const std::string &name,
                                                    const std::string &source,
                                                    const std::vector<std::string> &flags) {
  const std::filesystem::path c = dir.path() / (name + ".c");
  const std::filesystem::path so = dir.path() / (name + ".so");
  std::ofstream(c) << source;
  std::string command = "gcc -std=gnu11 -shared -fPIC";
  for (const std::string &flag : flags) command += " " + flag;
  command += " -o " + so.string() + " " + c.string() + " -lm >/dev/null 2>&1";
  if (std::system(command.c_str()) != 0) return std::nullopt;
  return so;
}

}  // namespace hpcreward::techniques::testing
