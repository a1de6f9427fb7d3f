#pragma once
// What the two executors' seccomp allow-lists share (seccomp_filter.cpp for C candidates,
// gpu_seccomp_filter.cpp for CUDA ones): a libseccomp context that kills the whole process on a
// call from another architecture, sets no_new_privs and applies to every thread at once; its
// rules by system call name; loading it; its errors as SandboxError.
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

struct scmp_arg_cmp;

namespace hpcreward {

class SeccompContext {
 public:
  // A context whose unmatched calls get `default_action`; `filter` prefixes its errors
  // ("seccomp", "seccomp (GPU)"). Throws SandboxError on any architecture but x86_64 and on a
  // kernel without SECCOMP_RET_KILL_PROCESS.
  SeccompContext(std::uint32_t default_action, std::string filter);

  void *get() const { return context_.get(); }  // the scmp_filter_ctx
  [[noreturn]] void fail(const std::string &what, int rc) const;

  // `action` for the call `name` when every comparison holds (libseccomp ANDs them and refuses
  // two on one argument). A name this libseccomp does not know throws: an allow-list names
  // only calls it was written for.
  void rule(std::uint32_t action, const char *name, std::initializer_list<scmp_arg_cmp> args = {}) const;
  void allow(const char *name, std::initializer_list<scmp_arg_cmp> args = {}) const;
  // "argument `arg` in a set": a rule for each member.
  void allow_if_in(const char *name, unsigned arg, const std::vector<std::uint64_t> &values) const;
  // Checked first: called in timed code (OpenMP barriers, clocks, the driver's waits).
  void hot(const char *name) const;
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
