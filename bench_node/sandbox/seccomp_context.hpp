#pragma once
// What the two executors' seccomp filters share (seccomp_filter.cpp's allow-list for C
// candidates, gpu_seccomp_filter.cpp's deny-list for CUDA ones): a libseccomp context that
// kills the whole process on a call from another architecture, sets no_new_privs and applies
// to every thread at once; loading it; its errors as SandboxError.
#include <cstdint>
#include <memory>
#include <string>

namespace hpcreward {

class SeccompContext {
 public:
  // A context whose unmatched calls get `default_action`; `filter` prefixes its errors
  // ("seccomp", "seccomp (GPU)"). Throws SandboxError on any architecture but x86_64 and on a
  // kernel without SECCOMP_RET_KILL_PROCESS.
  SeccompContext(std::uint32_t default_action, std::string filter);

  void *get() const { return context_.get(); }  // the scmp_filter_ctx
  [[noreturn]] void fail(const std::string &what, int rc) const;
  // PR_SET_NO_NEW_PRIVS, then the filter on every thread of the process, for good.
  void load() const;

 private:
  struct Release {
    void operator()(void *context) const;
  };
  std::unique_ptr<void, Release> context_;
  std::string filter_;
};

}  // namespace hpcreward
