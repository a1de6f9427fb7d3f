#pragma once
// Verifies and times one candidate function in this process (the runner child calls it
// after loading the candidate): full checks against OpenBLAS at the nominal and check
// shapes, then warm-up and timed calls at the nominal shape, every output checked.
#include <cstdint>
#include <vector>

#include "bench_node/operands.hpp"
#include "bench_node/progress_marks.hpp"
#include "bench_node/timing_options.hpp"
#include "common/messages.hpp"
#include "common/problem.hpp"

namespace hpcreward {

// Timed calls rotate over this many buffer sets, allocated apart: pointer-keyed caches see
// stale data, and the median over calls does not hang on where one allocation's pages
// happen to land physically (with one set, an i-k-j kernel here ran at 13 or at 7 GFLOPS
// from one scoring to the next: L2 set conflicts of unlucky pages).
inline constexpr int kTimingRingSize = 8;

// Full checks call the candidate this often per shape, on the same buffers, fresh values
// each time.
inline constexpr int kVerifyCallsPerShape = 2;

struct HarnessConfig {
  Shape nominal;
  std::vector<Shape> check_shapes;
  double tolerance = 0;
  std::uint64_t seed = 0;        // input values (reproducible from the task)
  std::uint64_t check_seed = 0;  // Freivalds vectors and canaries (the runner draws it fresh)
  TimingOptions timing;
  ProgressMarks *progress = nullptr;  // marked before calls into the candidate; null: none
};

// The Measurement: ok with timings, or the first failure (wrong_answer, runtime_error).
// verify_s and time_s are filled; compile_s is not (the caller compiled). Throws
// std::bad_alloc when the harness's own buffers cannot be allocated.
template <typename T>
Measurement run_harness(MatmulFn<T> matmul, const HarnessConfig &config);

// One full check: fresh buffers, then kVerifyCallsPerShape calls with fresh inputs and a
// NaN-poisoned output each, every result compared with OpenBLAS.
// Adds the normwise error to `max_error`.
template <typename T>
Verdict verify_shape(MatmulFn<T> matmul, const Shape &shape, const HarnessConfig &config,
                     std::uint64_t stream, double &max_error);

extern template Measurement run_harness<double>(MatmulFn<double>, const HarnessConfig &);
extern template Measurement run_harness<float>(MatmulFn<float>, const HarnessConfig &);

}  // namespace hpcreward
