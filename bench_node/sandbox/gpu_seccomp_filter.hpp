#pragma once
// The GPU executor's seccomp filter: an allow-list, like the CPU executor's (seccomp_filter.hpp),
// of what the CUDA driver and runtime were measured to call once a candidate is loaded (the
// policy, call by call, and how it was measured: gpu_seccomp_filter.cpp). Every other call kills
// the whole process with SIGSYS, which the rank reports as `forbidden`.
//
// When: after the CUDA context, the operand pool and the candidate's object are loaded, and
// after Landlock's file rule (file_writes.hpp), before the first call into candidate code.
// x86_64 only (SandboxError elsewhere), TSYNC on every thread, for good.
#include <string>

#include "bench_node/sandbox/seccomp_filter.hpp"

namespace hpcreward {

void install_gpu_candidate_filter(const CandidateFilter &filter);

// The filter as libseccomp's pseudo filter code (for reading and for tests); loads nothing.
std::string gpu_candidate_filter_text(const CandidateFilter &filter);

}  // namespace hpcreward
