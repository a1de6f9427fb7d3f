#pragma once
// One set of GEMM operands for a candidate call: A, B and C in guarded buffers (in memory the
// candidate can reach), laid out as the problem's Layout says, with pristine copies of the
// inputs in the harness's own memory: a call that modifies them is caught, and every check
// reads the copies, row-major whatever the layout (a transposed operand's copy is transposed
// back), product by product.
#include <cstdint>
#include <span>
#include <vector>

#include "bench_node/cpu/guarded_buffer.hpp"
#include "bench_node/measure/random_fill.hpp"
#include "common/problem.hpp"
#include "common/status.hpp"

namespace hpcreward {

template <typename T>
class Operands {
 public:
  // Allocates fresh buffers from `memory` (throws std::bad_alloc); call refill() before use.
  Operands(const Shape &shape, const Layout &layout, OperandMemory &memory);
  // The bytes `memory` must hold for one set of this shape.
  static std::size_t memory_bytes(const Shape &shape);

  // Fresh input values in [-1, 1] from `rng`; C poisoned with NaN.
  void refill(Rng &rng);
  // Poisons C with NaN again (inputs unchanged).
  void poison_output();

  // After a call: guard zones intact (else runtime_error) and inputs unchanged (else
  // wrong_answer). `where` names the call in the reason.
  Verdict check_memory(const std::string &where) const;

  const Shape &shape() const { return shape_; }
  // Product `batch`'s operands as the call was given them, row-major: A m x k, B k x n, C m x n.
  std::span<const T> a(int batch) const;
  std::span<const T> b(int batch) const;
  std::span<const T> c(int batch);
  // Where the candidate finds them.
  const T *a_given() { return a_.as<const T>().data(); }
  const T *b_given() { return b_.as<const T>().data(); }
  T *c_given() { return c_.as<T>().data(); }
  double norm_a(int batch) const { return norm_a_[batch]; }  // Frobenius norms, product by product
  double norm_b(int batch) const { return norm_b_[batch]; }
  GuardedBuffer &c_buffer() { return c_; }  // for tests

 private:
  Shape shape_;
  Layout layout_;
  GuardedBuffer a_, b_, c_;
  std::vector<T> a_copy_, b_copy_;        // as given
  std::vector<T> a_row_major_, b_row_major_;  // transposed back where the layout transposes
  std::vector<double> norm_a_, norm_b_;
};

extern template class Operands<double>;
extern template class Operands<float>;

}  // namespace hpcreward
