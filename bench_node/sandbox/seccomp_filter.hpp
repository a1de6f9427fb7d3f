#pragma once
// The runner's seccomp filter (docs/design.md "Running untrusted code": no network, no new
// processes, no file writes). An allow-list: every system call not named in
// seccomp_filter.cpp kills the whole process with SIGSYS (SECCOMP_RET_KILL_PROCESS), which
// the rank reports as `forbidden` (classify.cpp).
//
// When: hpcreward-executor (the process the candidate runs in, started by hpcreward-runner)
// installs it after dlopen()/dlsym() of the candidate (loading needs open, read, mmap of files)
// and before the first call into candidate code.
// Constructors of the candidate run at dlopen, before the filter: a static check rejects
// them (bench_node/source_checks, bench_node/object_audit), and what escapes that still
// runs inside the child's process group, rlimits and deadline (child_process.hpp).
//
// No switch turns the filter off: to see which call killed a candidate, run the runner
// under `strace -f`, which shows the last system call before "killed by SIGSYS".
//
// Once installed the filter can't be removed; it covers every thread of the process
// (SECCOMP_FILTER_FLAG_TSYNC) and every thread created later. x86_64 only: elsewhere
// install_candidate_filter refuses with SandboxError, and so must the caller's run.
#include <stdexcept>
#include <string>
#include <sys/types.h>

namespace hpcreward {

class SandboxError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CandidateFilter {
  int result_fd = 3;  // writable besides stdout (1) and stderr (2); -1: none (the executor)
  int progress_fd = -1;  // writable too when >= 0 (the rank's watchdog: progress_marks.hpp)
  pid_t self = 0;     // the process allowed to signal itself (abort, raise); 0: getpid()
  // New threads (clone of a thread of this process): only in stages compiled for OpenMP. The
  // team libgomp starts before the filter (openmp_team.hpp) needs none; a candidate whose
  // prompt says it runs single-threaded gets no second CPU.
  bool threads = true;
};

// Sets no_new_privs and loads the filter on every thread of the calling process, for good.
// Throws SandboxError (and loads nothing) when the filter can't be built or loaded.
void install_candidate_filter(const CandidateFilter &filter);

// The filter as libseccomp's pseudo filter code (for reading and for tests); loads nothing.
std::string candidate_filter_text(const CandidateFilter &filter);

// Any built libseccomp filter (a scmp_filter_ctx) as pseudo filter code; throws SandboxError.
std::string pseudo_filter_code(void *libseccomp_context);

}  // namespace hpcreward
