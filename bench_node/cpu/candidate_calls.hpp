#pragma once
// How the harness reaches the candidate: where the operands live and how one call is made and
// timed. The runner's calls go to another process (executor_process.hpp), so nothing that
// decides a reward shares an address space with candidate code; InProcessCalls calls a
// function of this process, for tests of the harness on functions written here.
#include <atomic>
#include <cstddef>

#include "bench_node/cpu/guarded_buffer.hpp"
#include "bench_node/process/monotonic_clock.hpp"
#include "common/problem.hpp"
#include "common/status.hpp"

namespace hpcreward {

template <typename T>
using MatmulFn = void (*)(int m, int n, int k, const T *a, const T *b, T *c);
template <typename T>
using BatchedMatmulFn = void (*)(int batch, int m, int n, int k, const T *a, const T *b, T *c);

struct CallOutcome {
  Verdict verdict;     // not ok: the candidate did not come back (crash, forbidden call, ...)
  double seconds = 0;  // the call's time by the harness's clock
};

class CandidateCalls {
 public:
  virtual ~CandidateCalls() = default;
  // Memory the candidate is given its operands in.
  virtual OperandMemory &memory() = 0;
  // One call of matmul(shape, a, b, c) on operands in memory().
  virtual CallOutcome call(const Shape &shape, const void *a, const void *b, void *c) = 0;
};

template <typename T>
class InProcessCalls : public CandidateCalls {
 public:
  explicit InProcessCalls(MatmulFn<T> matmul) : matmul_(matmul) {}
  explicit InProcessCalls(BatchedMatmulFn<T> matmul) : batched_(matmul) {}
  OperandMemory &memory() override { return memory_; }
  CallOutcome call(const Shape &shape, const void *a, const void *b, void *c) override {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    const double start = monotonic_seconds();
    if (batched_)
      batched_(shape.batch, shape.m, shape.n, shape.k, static_cast<const T *>(a), static_cast<const T *>(b),
               static_cast<T *>(c));
    else
      matmul_(shape.m, shape.n, shape.k, static_cast<const T *>(a), static_cast<const T *>(b), static_cast<T *>(c));
    const double stop = monotonic_seconds();
    std::atomic_signal_fence(std::memory_order_seq_cst);
    return {{}, stop - start};
  }

 private:
  MatmulFn<T> matmul_ = nullptr;
  BatchedMatmulFn<T> batched_ = nullptr;
  HeapOperandMemory memory_;
};

}  // namespace hpcreward
