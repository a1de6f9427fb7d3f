#pragma once
// nvcc links with -z defs, so a candidate that calls a library it is not linked with (a
// hand-written cublasDgemm_v2 prototype) fails at link time, before any audit sees an
// object. Such a failure is judged like the import would be: an undefined reference to a
// name the CUDA audit refuses (cuda_symbol_policy.hpp) is `forbidden`, with the audit's
// reason, not a cheaper compile_error. An undefined reference to anything else (a helper
// declared and never defined) stays a compile_error.
#include <optional>
#include <string>
#include <vector>

#include "common/status.hpp"

namespace hpcreward {

// The names the linker's log says are undefined ("undefined reference to `cublasDgemm_v2'",
// a C++ one as "`cublasDgemm_v2(cublasContext*, int)'": the name before the parameters and
// after any namespace), in order, each once.
std::vector<std::string> undefined_references(const std::string &log);

// forbidden naming the first undefined reference the CUDA audit refuses; nullopt when none.
std::optional<Verdict> link_refusal(const std::string &log);

}  // namespace hpcreward
