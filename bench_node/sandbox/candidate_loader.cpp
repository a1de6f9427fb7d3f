#include "bench_node/sandbox/candidate_loader.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <string>

#include "bench_node/sandbox/code_pages.hpp"
#include "bench_node/sandbox/openmp_team.hpp"
#include "bench_node/sandbox/seccomp_filter.hpp"

namespace hpcreward {

namespace {
void set_message(char *message, std::size_t bytes, const char *text) {
  std::snprintf(message, bytes, "%s", text ? text : "unknown");
}
}  // namespace

void *load_candidate(const char *object, InstallFilter install_filter, LoadStatus &status, char *message,
                     std::size_t message_bytes) {
  void *handle = ::dlopen(object, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    set_message(message, message_bytes, ::dlerror());
    status = LoadStatus::load_failed;
    return nullptr;
  }
  ::dlerror();
  void *symbol = ::dlsym(handle, "matmul");
  if (symbol == nullptr) {
    status = LoadStatus::no_entry_point;
    return nullptr;
  }
  try {
    const std::string writable_code = writable_code_mapping_of_this_process();
    if (!writable_code.empty()) {
      set_message(message, message_bytes,
                  ("the object leaves memory writable and executable (an executable stack: GNU nested "
                   "functions?), which the sandbox refuses: " + writable_code).c_str());
      status = LoadStatus::load_failed;
      return nullptr;
    }
    start_openmp_team();
    install_filter();
  } catch (const SandboxError &error) {
    set_message(message, message_bytes, error.what());
    status = LoadStatus::no_sandbox;
    return nullptr;
  }
  status = LoadStatus::loaded;
  return symbol;
}

}  // namespace hpcreward
