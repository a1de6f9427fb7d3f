#pragma once
// The values of the CUDA problems' inputs, element by element from a secret seed: the one home
// of their distribution, used by the measurer's device fill (gpu/device_kernels.cu) and by the
// tests that simulate products on it (tests/bench_node/simulated_products.hpp).
//
// Every element is u * 2^e with u uniform in [-1, 1) (zero-mean: the normwise checks measure
// precision). For f64 and f16, e = 0. For f32 (CUDA sgemm), e follows a pattern no diagonal
// scaling can bring into fp16's range while keeping what matters (docs/reward-integrity.md,
// "Inputs that fp16 cannot hold"):
//   e(A_ip) = round(E x_i y_p),  e(B_pj) = round(-E y_p z_j),
// with x_i, z_j uniform in [0, 1), y_p uniform in [-1, 1), E = kExponentSpan, all secret.
// The double difference e(i1,p1) - e(i1,p2) - e(i2,p1) + e(i2,p2) = E (x1 - x2)(y1 - y2) is
// unchanged by any scaling of rows, columns and the inner dimension, so rows far apart in x
// cannot both fit in fp16's 30 binades; and where x_i = z_j every product A_ip B_pj is about
// 1, so every element of those rows and columns counts in C_ij. |e| <= E and the products
// stay within 2^+-E: fp32 and TF32 hold every value with room (normal floats reach 2^-126).
#include <cstddef>
#include <cstdint>

#include "bench_node/measure/host_device.hpp"

namespace hpcreward {

inline constexpr int kExponentSpan = 100;  // E

enum class Operand { a, b };

HPCREWARD_HOST_DEVICE inline std::uint64_t input_mix(std::uint64_t x) {  // splitmix64's finalizer
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// [-1, 1) from 53 random bits.
HPCREWARD_HOST_DEVICE inline double input_unit(std::uint64_t bits) {
  return static_cast<double>(bits >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

// The secret factors of the exponent pattern, one stream each.
struct ExponentPattern {
  std::uint64_t seed;
  HPCREWARD_HOST_DEVICE double factor(std::uint64_t stream, int index) const {
    return input_unit(input_mix(input_mix(seed ^ (stream * 0x9e3779b97f4a7c15ULL)) + static_cast<std::uint64_t>(index)));
  }
  HPCREWARD_HOST_DEVICE double row(int i) const { return 0.5 * factor(11, i) + 0.5; }  // x_i
  HPCREWARD_HOST_DEVICE double inner(int p) const { return factor(12, p); }            // y_p
  HPCREWARD_HOST_DEVICE double col(int j) const { return 0.5 * factor(13, j) + 0.5; }  // z_j
  HPCREWARD_HOST_DEVICE static int rounded(double v) { return static_cast<int>(v < 0 ? v - 0.5 : v + 0.5); }
  HPCREWARD_HOST_DEVICE int a_exponent(int i, int p) const { return rounded(kExponentSpan * row(i) * inner(p)); }
  HPCREWARD_HOST_DEVICE int b_exponent(int p, int j) const { return rounded(-kExponentSpan * inner(p) * col(j)); }
};

// Element `index` of a rows x cols row-major operand; `patterned`: the f32 exponent pattern.
// Returns the mantissa u and writes the exponent e: the value is ldexp(u, e).
HPCREWARD_HOST_DEVICE inline double input_mantissa(std::uint64_t seed, Operand which, int cols, std::size_t index,
                                                   bool patterned, int *exponent) {
  const std::uint64_t salt = which == Operand::a ? 0 : 1;
  const std::uint64_t key = input_mix(seed ^ input_mix(salt + 0x9e3779b97f4a7c15ULL));
  *exponent = 0;
  if (patterned) {
    const ExponentPattern pattern{seed};
    const int row = static_cast<int>(index / cols), col = static_cast<int>(index % cols);
    *exponent = which == Operand::a ? pattern.a_exponent(row, col) : pattern.b_exponent(row, col);
  }
  return input_unit(input_mix(key + index));
}

}  // namespace hpcreward
