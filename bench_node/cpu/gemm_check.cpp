#include "bench_node/cpu/gemm_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace hpcreward {

template <typename T>
double frobenius_norm(std::span<const T> values) {
  double sum = 0;
  for (T value : values) sum += static_cast<double>(value) * static_cast<double>(value);
  return std::sqrt(sum);
}

template <typename T>
bool all_finite(std::span<const T> values) {
  for (T value : values)
    if (!std::isfinite(value)) return false;
  return true;
}

namespace {

double safe_ratio(double numerator, double denominator) {
  if (std::isnan(numerator)) return numerator;
  if (denominator > 0) return numerator / denominator;
  return numerator == 0 ? 0 : std::numeric_limits<double>::infinity();
}

}  // namespace

template <typename T>
double normwise_error(std::span<const T> c, std::span<const T> c_ref, double norm_a, double norm_b) {
  if (c.size() != c_ref.size()) return std::numeric_limits<double>::quiet_NaN();
  if (!all_finite(c)) return std::numeric_limits<double>::quiet_NaN();
  // Scaled by the largest difference, so that huge but finite values (a read past A) give a
  // huge error, not one whose squares overflowed to infinity.
  double largest = 0;
  for (std::size_t i = 0; i < c.size(); ++i)
    largest = std::max(largest, std::fabs(static_cast<double>(c[i]) - static_cast<double>(c_ref[i])));
  if (largest == 0 || !std::isfinite(largest)) return safe_ratio(largest, norm_a * norm_b);
  double sum = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const double difference = (static_cast<double>(c[i]) - static_cast<double>(c_ref[i])) / largest;
    sum += difference * difference;
  }
  return safe_ratio(largest * std::sqrt(sum), norm_a * norm_b);
}

template <typename T>
std::size_t most_wrong_element(std::span<const T> c, std::span<const T> c_ref) {
  std::size_t worst = 0;
  double worst_difference = -1;
  for (std::size_t i = 0; i < c.size() && i < c_ref.size(); ++i) {
    const double difference = std::fabs(static_cast<double>(c[i]) - static_cast<double>(c_ref[i]));
    if (std::isnan(difference)) return i;  // NaN, or inf - inf: first, whatever comes after
    if (difference > worst_difference) {
      worst = i;
      worst_difference = difference;
    }
  }
  return worst;
}

namespace {

template <typename T>
using Accumulator = std::conditional_t<std::is_same_v<T, double>, long double, double>;

}  // namespace

void RowResidual::add(const RowResidual &next, std::size_t row_offset) {
  finite = finite && next.finite;
  if (next.failing_rows > 0 && failing_rows == 0) first_failing_row = next.first_failing_row + row_offset;
  failing_rows += next.failing_rows;
  worst_ratio = std::max(worst_ratio, next.worst_ratio);
  ratio_sq += next.ratio_sq;
  pairs += next.pairs;
  normwise = pairs > 0 ? std::sqrt(ratio_sq / pairs) : 0;
}

template <typename T>
double row_residual_roundoff() {
  return std::numeric_limits<Accumulator<T>>::epsilon() / 2;
}

template <typename T>
RowResidual row_residual(const Shape &shape, const T *a, const T *b, const T *c,
                         std::span<const double> weights, const ResidualBound &bound, int single_columns,
                         std::uint64_t secret) {
  using Acc = Accumulator<T>;
  const std::size_t m = shape.m, n = shape.n, k = shape.k;
  RowResidual result;
  if (weights.size() != n) {
    result.finite = false;
    return result;
  }
  std::vector<Acc> x(n, 0), x_sq(n, 0);
  for (std::size_t p = 0; p < k; ++p)
    for (std::size_t j = 0; j < n; ++j) x_sq[j] += static_cast<Acc>(b[p * n + j]) * static_cast<Acc>(b[p * n + j]);
  std::vector<double> norm(n);
  for (std::size_t j = 0; j < n; ++j) {
    norm[j] = static_cast<double>(std::sqrt(x_sq[j]));
    x[j] = norm[j] > 0 ? static_cast<Acc>(weights[j]) / static_cast<Acc>(norm[j]) : static_cast<Acc>(weights[j]);
    x_sq[j] = x[j] * x[j];
  }
  int classes = 0;
  const std::vector<int> column_class = residual_column_classes(norm, classes, single_columns, secret);
  const std::size_t g = static_cast<std::size_t>(classes);
  std::vector<Acc> bx(k * g, 0), bx_sq(k * g, 0);  // B x and B^2 x^2, per class
  for (std::size_t p = 0; p < k; ++p)
    for (std::size_t j = 0; j < n; ++j) {
      const Acc value = static_cast<Acc>(b[p * n + j]);
      bx[p * g + column_class[j]] += value * x[j];
      bx_sq[p * g + column_class[j]] += value * value * x_sq[j];
    }
  Acc ratio_sq = 0;
  std::size_t scaled_pairs = 0;
  std::vector<Acc> abx(g), s_sq(g), cx(g);
  for (std::size_t i = 0; i < m; ++i) {
    std::fill(abx.begin(), abx.end(), 0);
    std::fill(s_sq.begin(), s_sq.end(), 0);
    std::fill(cx.begin(), cx.end(), 0);
    for (std::size_t p = 0; p < k; ++p) {
      const Acc value = static_cast<Acc>(a[i * k + p]);
      for (std::size_t c = 0; c < g; ++c) {
        abx[c] += value * bx[p * g + c];
        s_sq[c] += value * value * bx_sq[p * g + c];
      }
    }
    for (std::size_t j = 0; j < n; ++j) cx[column_class[j]] += static_cast<Acc>(c[i * n + j]) * x[j];
    bool row_fails = false;
    for (std::size_t cls = 0; cls < g; ++cls) {
      if (!std::isfinite(static_cast<double>(cx[cls]))) {
        result.finite = false;
        return result;
      }
      const Acc r = std::fabs(cx[cls] - abx[cls]), s = std::sqrt(s_sq[cls]);
      // A zero row of A makes s zero: then only an exact zero passes.
      row_fails = row_fails || r > static_cast<Acc>(bound.row) * s;
      if (s > 0) {
        result.worst_ratio = std::max(result.worst_ratio, static_cast<double>(r / s));
        ratio_sq += (r / s) * (r / s);
        ++scaled_pairs;
      }
    }
    if (row_fails && result.failing_rows++ == 0) result.first_failing_row = i;
  }
  result.ratio_sq = static_cast<double>(ratio_sq);
  result.pairs = static_cast<double>(scaled_pairs);
  result.normwise = scaled_pairs > 0 ? static_cast<double>(std::sqrt(ratio_sq / static_cast<Acc>(scaled_pairs))) : 0;
  return result;
}

template double frobenius_norm<double>(std::span<const double>);
template double frobenius_norm<float>(std::span<const float>);
template bool all_finite<double>(std::span<const double>);
template bool all_finite<float>(std::span<const float>);
template double normwise_error<double>(std::span<const double>, std::span<const double>, double,
                                       double);
template double normwise_error<float>(std::span<const float>, std::span<const float>, double,
                                      double);
template std::size_t most_wrong_element<double>(std::span<const double>, std::span<const double>);
template std::size_t most_wrong_element<float>(std::span<const float>, std::span<const float>);
template RowResidual row_residual<double>(const Shape &, const double *, const double *, const double *,
                                         std::span<const double>, const ResidualBound &, int, std::uint64_t);
template RowResidual row_residual<float>(const Shape &, const float *, const float *, const float *,
                                        std::span<const double>, const ResidualBound &, int, std::uint64_t);
template double row_residual_roundoff<double>();
template double row_residual_roundoff<float>();

}  // namespace hpcreward
