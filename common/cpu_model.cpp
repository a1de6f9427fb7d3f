#include "common/cpu_model.hpp"

#include <fstream>
#include <sstream>

namespace hpcreward {

std::string cpu_model_from_cpuinfo(std::string_view cpuinfo) {
  std::istringstream lines{std::string(cpuinfo)};
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.starts_with("model name")) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::size_t start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? std::string() : line.substr(start);
  }
  return "";
}

std::string cpu_model() {
  std::ifstream file("/proc/cpuinfo");
  std::ostringstream text;
  text << file.rdbuf();
  return cpu_model_from_cpuinfo(text.str());
}

}  // namespace hpcreward
