#include "bench_node/source_checks/c_include_policy.hpp"

namespace hpcreward::source_checks {

const IncludeTable &c_include_table() {
  static const IncludeTable table{
      .headers = {.allowed = {"stddef.h", "stdint.h", "stdlib.h", "string.h", "math.h", "float.h",
                              "limits.h", "stdbool.h", "stdalign.h", "stdatomic.h", "omp.h",
                              "x86intrin.h", "immintrin.h", "mmintrin.h", "xmmintrin.h",
                              "emmintrin.h", "pmmintrin.h", "tmmintrin.h", "smmintrin.h",
                              "nmmintrin.h"}},
      .paths = false};
  return table;
}

}  // namespace hpcreward::source_checks
