#pragma once
// The headers a C candidate may include (the rule: include_rules.hpp): any header of the
// compiler's, by name (<stdio.h>, <sys/time.h>; no quoted, computed or absolute include, no
// . or .. part), so nothing but the system's own headers is ever read. A header does nothing
// by itself: what the candidate calls is judged by call_policy.hpp (in code matmul can reach)
// and the object audit, and the seccomp filter is the guarantee. An unused <stdio.h>, an
// assert or a self-test main beside matmul is therefore no reason to refuse an answer.
#include "bench_node/source_checks/include_rules.hpp"

namespace hpcreward::source_checks {

const IncludeTable &c_include_table();

}  // namespace hpcreward::source_checks
