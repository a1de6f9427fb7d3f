#include "bench_node/process/environment.hpp"

#include <unistd.h>

#include <cstdlib>

extern char **environ;

namespace hpcreward {

namespace {

bool names(const std::string &entry, std::string_view name) {
  return entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 &&
         entry[name.size()] == '=';
}

}  // namespace

Environment inherited_environment() {
  Environment environment;
  for (char **entry = environ; entry != nullptr && *entry != nullptr; ++entry)
    environment.emplace_back(*entry);
  return environment;
}

std::optional<std::string> get_variable(const Environment &environment, std::string_view name) {
  for (const std::string &entry : environment)
    if (names(entry, name)) return entry.substr(name.size() + 1);
  return std::nullopt;
}

void set_variable(Environment &environment, std::string_view name, std::string_view value,
                  bool overwrite) {
  std::string entry = std::string(name) + "=" + std::string(value);
  for (std::string &existing : environment)
    if (names(existing, name)) {
      if (overwrite) existing = std::move(entry);
      return;
    }
  environment.push_back(std::move(entry));
}

std::optional<std::string> find_executable(const std::string &program) {
  if (program.empty()) return std::nullopt;
  if (program.find('/') != std::string::npos)
    return access(program.c_str(), X_OK) == 0 ? std::optional(program) : std::nullopt;
  const char *path = std::getenv("PATH");
  std::string_view directories = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    const std::size_t colon = directories.find(':');
    std::string directory(directories.substr(0, colon));
    if (directory.empty()) directory = ".";
    const std::string candidate = directory + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) break;
    directories.remove_prefix(colon + 1);
  }
  return std::nullopt;
}

}  // namespace hpcreward
