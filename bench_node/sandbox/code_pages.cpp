#include "bench_node/sandbox/code_pages.hpp"

#include <fstream>
#include <sstream>

#include "bench_node/sandbox/seccomp_filter.hpp"

namespace hpcreward {

std::string first_writable_code_mapping(const std::string &maps) {
  std::istringstream lines(maps);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string range, permissions;
    fields >> range >> permissions;  // "start-end rwxp ..."
    if (permissions.size() >= 3 && permissions[1] == 'w' && permissions[2] == 'x') return line;
  }
  return {};
}

std::string writable_code_mapping_of_this_process() {
  std::ifstream file("/proc/self/maps");
  if (!file) throw SandboxError("cannot read /proc/self/maps to check that no page is writable and executable");
  std::ostringstream text;
  text << file.rdbuf();
  return first_writable_code_mapping(text.str());
}

}  // namespace hpcreward
