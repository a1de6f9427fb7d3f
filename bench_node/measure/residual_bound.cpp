#include "bench_node/measure/residual_bound.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <utility>

#include "bench_node/measure/random_fill.hpp"
#include "common/problem_catalog.hpp"

namespace hpcreward {

namespace {

constexpr double kFp64 = 0x1p-53, kFp32 = 0x1p-24, kHalf = 0x1p-11, kBfloat16 = 0x1p-8, kTf32 = 0x1p-11;

// The accumulator's drift over k products. fp64 and fp32: a biased (truncating) accumulator's
// worst, k units of its roundoff. f16 with fp32 accumulation: a tensor core's fp32 adds truncate
// once per mma of 4 products or more, each by less than an ulp of a running sum whose size is a
// random walk's (the sum over the k / 4 steps of its size is under k / 8 of C's scale), so k / 4
// units of fp32's roundoff: C's rounding to __half, not this, decides below k of about 32,000,
// and the tighter bound keeps an fp16 accumulator twice outside it from k = 1024 on
// (docs/reward-integrity.md, "Accumulation precision"). f16 with fp16 accumulation: the fp16
// accumulator's own scale (common/problem_catalog.hpp fp16_accumulator_error), C's rounding
// included.
double accumulation_error(Precision precision, Accumulation accumulation, double k) {
  if (precision == Precision::f64) return kFp64 * k;
  if (precision == Precision::f16 && accumulation == Accumulation::f16) return fp16_accumulator_error(k) - kHalf;
  if (precision == Precision::f16) return kFp32 * k / 4;
  return kFp32 * k;
}

double input_roundoff(Precision precision, Language language) {
  // Tensor cores may round fp32 inputs to TF32 (10-bit mantissa): allowed on CUDA sgemm.
  return precision == Precision::f32 && language == Language::cuda ? 2 * kTf32 : 0;
}

double output_roundoff(Precision precision) {
  return precision == Precision::f16 ? kHalf : precision == Precision::bf16 ? kBfloat16 : 0;
}

}  // namespace

ResidualBound residual_bound(Precision precision, Language language, const Shape &shape,
                             double check_unit_roundoff, Accumulation accumulation) {
  const double k = shape.k, n = shape.n;
  ResidualBound bound;
  bound.error_scale = accumulation_error(precision, accumulation, k) + input_roundoff(precision, language) +
                      output_roundoff(precision) + check_unit_roundoff * (n + k);
  bound.row = kResidualRowFactor * bound.error_scale;
  bound.normwise = kResidualNormwiseFactor * bound.error_scale;
  return bound;
}

double normwise_bound(const ResidualBound &bound, double pairs) {
  if (!(pairs > 0)) return bound.normwise;
  const double t = kResidualTailExponent;
  return bound.normwise * std::sqrt(1 + 2 * std::sqrt(t / pairs) + 2 * t / pairs);
}

double ResidualPool::normwise() const { return pairs > 0 ? std::sqrt(ratio_sq / pairs) : 0; }

int ResidualPool::calls_needed() const {
  return pairs > 0 ? static_cast<int>(std::ceil(kResidualPoolPairs * calls / pairs)) : 0;
}

std::vector<int> residual_column_classes(std::span<const double> column_norms, int &count, int single_columns,
                                         std::uint64_t secret) {
  const std::size_t n = column_norms.size();
  const std::size_t singles = std::min(n, static_cast<std::size_t>(std::max(0, single_columns)));
  // The single columns: the first `singles` of a partial Fisher-Yates shuffle.
  std::vector<int> single(n, -1);
  if (singles > 0) {
    std::vector<std::size_t> order(n);
    for (std::size_t j = 0; j < n; ++j) order[j] = j;
    Rng rng(secret);
    for (std::size_t t = 0; t < singles; ++t) {
      std::swap(order[t], order[t + rng.next() % (n - t)]);
      single[order[t]] = static_cast<int>(t);
    }
  }
  std::vector<int> band(n);
  for (std::size_t j = 0; j < n; ++j)
    band[j] = column_norms[j] > 0 ? static_cast<int>(std::floor(std::log2(column_norms[j]) / kResidualClassBinades))
                                  : INT_MIN;
  std::vector<int> bands;
  for (std::size_t j = 0; j < n; ++j)
    if (single[j] < 0) bands.push_back(band[j]);
  std::sort(bands.begin(), bands.end());
  bands.erase(std::unique(bands.begin(), bands.end()), bands.end());
  const int banded = static_cast<int>(bands.size());
  for (std::size_t j = 0; j < n; ++j)
    band[j] = single[j] >= 0 ? banded + single[j]
                             : static_cast<int>(std::lower_bound(bands.begin(), bands.end(), band[j]) - bands.begin());
  count = banded + static_cast<int>(singles);
  return band;
}

}  // namespace hpcreward
