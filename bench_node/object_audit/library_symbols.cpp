#include "bench_node/object_audit/library_symbols.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <stdexcept>
#include <string_view>

namespace hpcreward {

std::vector<std::string> LibrarySymbols::default_libraries() {
  return {"libc.so.6", "libm.so.6", "libgomp.so.1"};
}

LibrarySymbols::LibrarySymbols(const std::vector<std::string> &sonames) {
  for (const std::string &soname : sonames) {
    void *handle = ::dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char *error = ::dlerror();
      for (void *opened : handles_) ::dlclose(opened);
      throw std::runtime_error("object audit: cannot load " + soname + ": " +
                               (error != nullptr ? error : "unknown error"));
    }
    handles_.push_back(handle);
    sonames_.push_back(soname);
  }
}

LibrarySymbols::~LibrarySymbols() {
  for (void *handle : handles_) ::dlclose(handle);
}

std::optional<std::string> LibrarySymbols::library_defining(const std::string &name) const {
  for (std::size_t i = 0; i < handles_.size(); ++i) {
    ::dlerror();  // a symbol may legitimately be null: only dlerror says "not found"
    void *address = ::dlsym(handles_[i], name.c_str());
    if (::dlerror() != nullptr) continue;
    // The file that holds the definition, which may be a dependency of the library opened.
    // An ifunc (gettimeofday) may resolve into the vDSO, which is no file: name the library.
    Dl_info info{};
    if (address != nullptr && ::dladdr(address, &info) != 0 && info.dli_fname != nullptr &&
        std::string_view(info.dli_fname).find('/') != std::string_view::npos)
      return std::filesystem::path(info.dli_fname).filename().string();
    return sonames_[i];
  }
  return std::nullopt;
}

}  // namespace hpcreward
