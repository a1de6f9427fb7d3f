#pragma once
// Verifies and times one candidate (the runner calls it with the candidate in another process,
// executor_process.hpp): full checks against OpenBLAS at the nominal and check shapes (every
// product of a batch), then
// warm-up and timed calls at the nominal shape, every output checked with the row-wise
// residual test (residual_bound.hpp). Input values, check vectors and canaries are drawn from
// the kernel's random source for each use, in the harness's own memory.
#include <cstdint>
#include <vector>

#include "bench_node/cpu/candidate_calls.hpp"
#include "bench_node/cpu/operands.hpp"
#include "bench_node/process/progress_marks.hpp"
#include "bench_node/measure/timing_options.hpp"
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
  Layout layout;
  Shape nominal;
  std::vector<Shape> check_shapes;
  double tolerance = 0;
  TimingOptions timing;
  ProgressMarks *progress = nullptr;  // marked before calls into the candidate; null: none
};

// The bytes of operand memory run_harness takes from `calls.memory()` for `config`: the full
// checks' from `checks.memory()`, the timing ring's from `timed.memory()`, both with one object.
template <typename T>
std::size_t harness_operand_bytes(const HarnessConfig &config);
template <typename T>
std::size_t harness_check_bytes(const HarnessConfig &config);
template <typename T>
std::size_t harness_timed_bytes(const HarnessConfig &config);

// The Measurement: ok with timings, or the first failure (wrong_answer, runtime_error, or the
// verdict of a call the candidate did not come back from). verify_s and time_s are filled;
// compile_s is not (the caller compiled). Throws std::bad_alloc when the harness's own
// buffers cannot be allocated.
template <typename T>
Measurement run_harness(CandidateCalls &calls, const HarnessConfig &config);
// The full checks through `checks` (an executor whose OpenMP team is larger than the rank's
// share: runner_args.hpp's check_threads), the warm-up and timed calls through `timed`.
template <typename T>
Measurement run_harness(CandidateCalls &checks, CandidateCalls &timed, const HarnessConfig &config);

// The same on a function of this process (tests).
template <typename T>
Measurement run_harness(MatmulFn<T> matmul, const HarnessConfig &config) {
  InProcessCalls<T> calls(matmul);
  return run_harness<T>(calls, config);
}
template <typename T>
Measurement run_harness(BatchedMatmulFn<T> matmul, const HarnessConfig &config) {
  InProcessCalls<T> calls(matmul);
  return run_harness<T>(calls, config);
}

extern template Measurement run_harness<double>(CandidateCalls &, const HarnessConfig &);
extern template Measurement run_harness<float>(CandidateCalls &, const HarnessConfig &);
extern template Measurement run_harness<double>(CandidateCalls &, CandidateCalls &, const HarnessConfig &);
extern template Measurement run_harness<float>(CandidateCalls &, CandidateCalls &, const HarnessConfig &);
extern template std::size_t harness_operand_bytes<double>(const HarnessConfig &);
extern template std::size_t harness_operand_bytes<float>(const HarnessConfig &);
extern template std::size_t harness_check_bytes<double>(const HarnessConfig &);
extern template std::size_t harness_check_bytes<float>(const HarnessConfig &);
extern template std::size_t harness_timed_bytes<double>(const HarnessConfig &);
extern template std::size_t harness_timed_bytes<float>(const HarnessConfig &);

}  // namespace hpcreward
