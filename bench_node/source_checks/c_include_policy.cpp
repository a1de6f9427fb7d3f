#include "bench_node/source_checks/c_include_policy.hpp"

namespace hpcreward::source_checks {

const IncludeTable &c_include_table() {
  static const IncludeTable table{.headers = {.allowed = {"*"}}, .paths = true};
  return table;
}

}  // namespace hpcreward::source_checks
