// Matrix products computed here the way honest and dishonest GPU kernels compute them, for the
// tests of the checks' error figures (row_residual_test.cpp, scaled_normwise_test.cpp). GPU
// precisions are simulated in float (every fp16 and TF32 value is a float). Inputs and the
// residual's weights come from fixed seeds: deterministic.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "bench_node/cpu/gemm_check.hpp"
#include "bench_node/measure/input_values.hpp"
#include "bench_node/measure/random_fill.hpp"
#include "bench_node/measure/residual_bound.hpp"

namespace hpcreward::test {

// Round a float to `bits` explicit mantissa bits, to nearest (TF32 and fp16: 10, bf16: 7).
inline float round_mantissa(float value, int bits) {
  std::uint32_t word;
  std::memcpy(&word, &value, sizeof word);
  const int drop = 23 - bits;
  const std::uint32_t half = 1u << (drop - 1);
  word += half - 1 + ((word >> drop) & 1);
  word &= ~((1u << drop) - 1);
  std::memcpy(&value, &word, sizeof word);
  return value;
}

// Round to fp16, subnormals (multiples of 2^-24) included, saturating at its largest value
// (an attacker's conversion that never makes an infinity).
inline float to_fp16(double value) {
  const double magnitude = std::fabs(value);
  if (magnitude >= 65504) return static_cast<float>(std::copysign(65504.0, value));
  if (magnitude < 0x1p-14) return static_cast<float>(std::nearbyint(value * 0x1p24) * 0x1p-24);
  return round_mantissa(static_cast<float>(value), 10);
}

// Truncate a double to float's 24-bit significand (a biased accumulator).
inline float chop_to_float(double value) {
  float rounded = static_cast<float>(value);
  if (std::fabs(static_cast<double>(rounded)) > std::fabs(value)) rounded = std::nextafter(rounded, 0.0f);
  return rounded;
}

struct HarnessInputs {};  // the CUDA sgemm distribution (input_values.hpp)

template <typename T>
struct Product {
  Shape shape;
  std::vector<T> a, b;
  std::vector<double> weights;
  std::uint64_t pattern_seed = 0;
  int single_columns = 0;  // the residual's classes of one column (the CUDA sgemm inputs')

  // The measurer's CUDA sgemm inputs from `seed`, as its device fill draws them, and its
  // residual check with columns tested on their own.
  Product(Shape s, HarnessInputs, std::uint64_t seed)
      : shape(s), pattern_seed(seed), single_columns(kResidualSingleColumns) {
    a.resize(static_cast<std::size_t>(s.m) * s.k);
    b.resize(static_cast<std::size_t>(s.k) * s.n);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = harness_value(Operand::a, s.k, i);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = harness_value(Operand::b, s.n, i);
    draw_weights();
  }
  T harness_value(Operand which, int cols, std::size_t index) const {
    int exponent = 0;
    const double mantissa = input_mantissa(pattern_seed, which, cols, index, true, &exponent);
    return static_cast<T>(std::ldexp(mantissa, exponent));
  }

  // Inputs in [-1, 1), each row of A and column of B scaled by 2^e, e in [-range, range].
  Product(Shape s, int range, bool half_inputs, std::uint64_t seed = 20261124) : shape(s) {
    Rng rng(seed);
    a.resize(static_cast<std::size_t>(s.m) * s.k);
    b.resize(static_cast<std::size_t>(s.k) * s.n);
    std::vector<int> row_exp(s.m), col_exp(s.n);
    for (int &e : row_exp) e = range ? static_cast<int>(rng.next() % (2 * range + 1)) - range : 0;
    for (int &e : col_exp) e = range ? static_cast<int>(rng.next() % (2 * range + 1)) - range : 0;
    for (int i = 0; i < s.m; ++i)
      for (int p = 0; p < s.k; ++p) a[i * s.k + p] = input(std::ldexp(rng.uniform(), row_exp[i]), half_inputs);
    for (int p = 0; p < s.k; ++p)
      for (int j = 0; j < s.n; ++j) b[p * s.n + j] = input(std::ldexp(rng.uniform(), col_exp[j]), half_inputs);
    draw_weights();
  }
  void draw_weights() {
    weights.resize(shape.n);
    Rng secret(77);
    for (double &w : weights) {
      const double u = secret.uniform();
      w = u < 0 ? u * 0.75 - 0.25 : u * 0.75 + 0.25;
    }
  }
  static T input(double value, bool half_inputs) {
    return half_inputs ? round_mantissa(static_cast<float>(value), 10) : static_cast<T>(value);
  }

  // C_ij from the row of products a_ip b_pj through `dot` (the kernel's arithmetic).
  std::vector<T> compute(const std::function<T(int i, int j)> &element) const {
    std::vector<T> c(static_cast<std::size_t>(shape.m) * shape.n);
    for (int i = 0; i < shape.m; ++i)
      for (int j = 0; j < shape.n; ++j) c[i * shape.n + j] = element(i, j);
    return c;
  }
  double exact(int i, int j) const {
    long double sum = 0;
    for (int p = 0; p < shape.k; ++p) sum += static_cast<long double>(a[i * shape.k + p]) * b[p * shape.n + j];
    return static_cast<double>(sum);
  }

  RowResidual check(const std::vector<T> &c, const ResidualBound &bound) const {
    return row_residual(shape, a.data(), b.data(), c.data(), std::span<const double>(weights), bound, single_columns,
                        78);
  }
};

}  // namespace hpcreward::test
