#include "bench_node/cuda/cute_headers.hpp"

#include <fstream>
#include <regex>
#include <sstream>

namespace hpcreward {

std::string default_cute_include() { return HPCREWARD_DEFAULT_CUTE_INCLUDE; }

std::string cute_version(const std::filesystem::path &include_dir) {
  std::error_code error;
  if (include_dir.empty() || !std::filesystem::is_regular_file(include_dir / "cute" / "tensor.hpp", error))
    return "";
  std::ifstream in(include_dir / "cutlass" / "version.h");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string header = text.str();
  std::string version;
  for (const char *part : {"MAJOR", "MINOR", "PATCH"}) {
    std::smatch match;
    if (!std::regex_search(header, match, std::regex(std::string("#define CUTLASS_") + part + R"( +(\d+))")))
      return "";
    version += (version.empty() ? "" : ".") + match[1].str();
  }
  return version;
}

bool has_cutlass_utilities(const std::filesystem::path &include_dir) {
  std::error_code error;
  return !include_dir.empty() &&
         std::filesystem::is_regular_file(include_dir / "cutlass" / "util" / "packed_stride.hpp", error);
}

}  // namespace hpcreward
