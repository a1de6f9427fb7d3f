#include "bench_node/source_checks/c_pragma_policy.hpp"

#include "bench_node/source_checks/pragma_rules.hpp"

namespace hpcreward::source_checks {

namespace {

constexpr std::string_view kAllowed[] = {"omp", "STDC", "once", "pack", "message", "unroll", "ivdep"};

}  // namespace

const NameTable &c_pragma_table() {
  static const NameTable table{.allowed = joined<std::string_view>({kAllowed, gcc_allowed_pragmas()}),
                               .refused = {gcc_refused_pragmas().begin(), gcc_refused_pragmas().end()}};
  return table;
}

}  // namespace hpcreward::source_checks
