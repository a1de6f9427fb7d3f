#include "bench_node/sandbox/seccomp_context.hpp"

#include <seccomp.h>
#include <sys/prctl.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "bench_node/sandbox/seccomp_filter.hpp"  // SandboxError

namespace hpcreward {

void SeccompContext::Release::operator()(void *context) const {
  seccomp_release(static_cast<scmp_filter_ctx>(context));
}

SeccompContext::SeccompContext(std::uint32_t default_action, std::string filter) : filter_(std::move(filter)) {
#if !defined(__x86_64__) || defined(__ILP32__)
  (void)default_action;
  throw SandboxError(filter_ + ": the filters are written for x86_64 only; refusing to run candidates on this "
                               "architecture");
#else
  if (seccomp_arch_native() != SCMP_ARCH_X86_64) throw SandboxError(filter_ + ": the filters are written for x86_64 only");
  // API level 3: SECCOMP_RET_KILL_PROCESS (kernel 4.14); level 2, included, is TSYNC.
  if (seccomp_api_get() < 3) throw SandboxError(filter_ + ": the kernel or libseccomp lacks SECCOMP_RET_KILL_PROCESS");
  context_.reset(seccomp_init(default_action));
  if (!context_) throw SandboxError(filter_ + ": seccomp_init failed");
  const auto raw = static_cast<scmp_filter_ctx>(context_.get());
  int rc;
  if ((rc = seccomp_attr_set(raw, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS)) != 0)
    fail("setting the bad-architecture action", rc);
  if ((rc = seccomp_attr_set(raw, SCMP_FLTATR_CTL_NNP, 1)) != 0) fail("setting no_new_privs", rc);
  if ((rc = seccomp_attr_set(raw, SCMP_FLTATR_CTL_TSYNC, 1)) != 0) fail("setting TSYNC", rc);
#endif
}

void SeccompContext::fail(const std::string &what, int rc) const {
  throw SandboxError(filter_ + ": " + what + ": " + ::strerror(rc < 0 ? -rc : rc));
}

void SeccompContext::rule(std::uint32_t action, const char *name, std::initializer_list<scmp_arg_cmp> args) const {
  const int number = seccomp_syscall_resolve_name(name);
  if (number == __NR_SCMP_ERROR) throw SandboxError(filter_ + ": unknown system call " + name);
  const std::vector<scmp_arg_cmp> conditions(args);
  const int rc = seccomp_rule_add_exact_array(static_cast<scmp_filter_ctx>(context_.get()), action, number,
                                              static_cast<unsigned>(conditions.size()),
                                              conditions.empty() ? nullptr : conditions.data());
  if (rc != 0) fail(std::string("adding the rule for ") + name, rc);
}

void SeccompContext::allow(const char *name, std::initializer_list<scmp_arg_cmp> args) const {
  rule(SCMP_ACT_ALLOW, name, args);
}

void SeccompContext::allow_if_in(const char *name, unsigned arg, const std::vector<std::uint64_t> &values) const {
  for (std::uint64_t value : values) allow(name, {SCMP_CMP64(arg, SCMP_CMP_EQ, value)});
}

void SeccompContext::hot(const char *name) const {
  seccomp_syscall_priority(static_cast<scmp_filter_ctx>(context_.get()), seccomp_syscall_resolve_name(name), 255);
}

void SeccompContext::load() const {
  // libseccomp sets it too (SCMP_FLTATR_CTL_NNP); done here first so a failure is reported as
  // what it is. Without it an unprivileged process could not load a filter, and execve of a
  // setuid program could gain privileges (execve is refused anyway).
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("prctl(PR_SET_NO_NEW_PRIVS)", errno);
  const int rc = seccomp_load(static_cast<scmp_filter_ctx>(context_.get()));
  if (rc != 0) fail("loading the filter", rc);
}

}  // namespace hpcreward
