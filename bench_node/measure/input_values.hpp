#pragma once
// The values of the CUDA problems' inputs, element by element from a secret seed: the one home
// of their distribution, used by the measurer's device fill (gpu/device_kernels.cu) and by the
// tests that simulate products on it (tests/bench_node/simulated_products.hpp).
//
// Every element is u * 2^e with u uniform in [-1, 1) (zero-mean: the normwise checks measure
// precision). For f64 and f16, e = 0. For f32 (CUDA sgemm), e follows a pattern that neither a
// diagonal scaling nor a few classes of rows, each scaled on its own, bring into fp16's range
// while keeping what matters (docs/reward-integrity.md, "Inputs that fp16 cannot hold"):
//   e(A_ip) = round(E <x_i, y_p>),  e(B_pj) = round(-E <y_p, z_j>),
// x_i uniform in the ball of radius 1/2 of R^D, y_p uniform on the unit sphere, E =
// kExponentSpan, D = kPatternDimensions, all secret; the columns' points are the rows':
// z_j = x_(j + s mod n) for a secret shift s, so row i's paired column has every product
// A_ip B_pj about 1 and every element of the row counts in that C_ij. The double difference
// e(i1,p1) - e(i1,p2) - e(i2,p1) + e(i2,p2) = E <x1 - x2, y1 - y2> is unchanged by any
// scaling of rows, columns and the inner dimension, so rows whose points lie d apart span
// 2 E d binades relative to each other: a class of rows sharing one inner scaling (and one
// fp16 copy of B) holds rows within about 0.35 of each other, and the ball needs on the order
// of (1 / 0.35)^D such classes. |e| <= E / 2 and every product lies within 2^+-E: fp32 and
// TF32 hold every value and product with room (normal floats reach 2^-126).
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "bench_node/measure/host_device.hpp"

namespace hpcreward {

inline constexpr int kExponentSpan = 100;     // E: product exponents within +-E
inline constexpr int kPatternDimensions = 6;  // D (even: normal deviates come in pairs)

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
  HPCREWARD_HOST_DEVICE double factor(std::uint64_t stream, std::uint64_t index) const {
    return input_unit(input_mix(input_mix(seed ^ (stream * 0x9e3779b97f4a7c15ULL)) + index));
  }
  // D standard normal deviates of item `index` (Box-Muller, one pair of uniforms per pair).
  HPCREWARD_HOST_DEVICE void normals(std::uint64_t stream, std::uint64_t index, double *v) const {
    for (int d = 0; d < kPatternDimensions; d += 2) {
      const std::uint64_t at = index * kPatternDimensions + d;
      const double radius = sqrt(-2 * log(0.5 - 0.5 * factor(stream, at)));  // log of (0, 1]
      const double angle = 3.14159265358979323846 * factor(stream, at + 1);
      v[d] = radius * cos(angle);
      v[d + 1] = radius * sin(angle);
    }
  }
  // Point `index` of the rows' and columns' set: uniform in the ball of radius 1/2.
  HPCREWARD_HOST_DEVICE void point(std::uint64_t index, double *v) const {
    normals(11, index, v);
    double norm_sq = 0;
    for (int d = 0; d < kPatternDimensions; ++d) norm_sq += v[d] * v[d];
    const double radius = 0.5 * pow(0.5 + 0.5 * factor(13, index), 1.0 / kPatternDimensions);
    const double scale = norm_sq > 0 ? radius / sqrt(norm_sq) : 0;
    for (int d = 0; d < kPatternDimensions; ++d) v[d] *= scale;
  }
  HPCREWARD_HOST_DEVICE void row(int i, double *x) const { point(static_cast<std::uint64_t>(i), x); }  // x_i
  HPCREWARD_HOST_DEVICE void inner(int p, double *y) const {  // y_p, on the unit sphere
    normals(12, static_cast<std::uint64_t>(p), y);
    double norm_sq = 0;
    for (int d = 0; d < kPatternDimensions; ++d) norm_sq += y[d] * y[d];
    const double scale = norm_sq > 0 ? 1 / sqrt(norm_sq) : 0;
    for (int d = 0; d < kPatternDimensions; ++d) y[d] *= scale;
  }
  // The row whose point column j of `cols` shares: j + s mod cols.
  HPCREWARD_HOST_DEVICE int paired_row(int j, int cols) const {
    return static_cast<int>((static_cast<std::uint64_t>(j) + input_mix(seed ^ 0x243f6a8885a308d3ULL) % cols) % cols);
  }
  HPCREWARD_HOST_DEVICE void col(int j, int cols, double *z) const {  // z_j
    point(static_cast<std::uint64_t>(paired_row(j, cols)), z);
  }
  HPCREWARD_HOST_DEVICE static int rounded(double v) { return static_cast<int>(v < 0 ? v - 0.5 : v + 0.5); }
  HPCREWARD_HOST_DEVICE static double dot(const double *u, const double *v) {
    double sum = 0;
    for (int d = 0; d < kPatternDimensions; ++d) sum += u[d] * v[d];
    return sum;
  }
  HPCREWARD_HOST_DEVICE int a_exponent(int i, int p) const {
    double x[kPatternDimensions], y[kPatternDimensions];
    row(i, x);
    inner(p, y);
    return rounded(kExponentSpan * dot(x, y));
  }
  HPCREWARD_HOST_DEVICE int b_exponent(int p, int j, int cols) const {
    double y[kPatternDimensions], z[kPatternDimensions];
    inner(p, y);
    col(j, cols, z);
    return rounded(-kExponentSpan * dot(y, z));
  }
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
    *exponent = which == Operand::a ? pattern.a_exponent(row, col) : pattern.b_exponent(row, col, cols);
  }
  return input_unit(input_mix(key + index));
}

}  // namespace hpcreward
