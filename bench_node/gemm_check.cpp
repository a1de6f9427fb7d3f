#include "bench_node/gemm_check.hpp"

#include <cmath>
#include <cstddef>
#include <limits>
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
  double sum = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const double difference = static_cast<double>(c[i]) - static_cast<double>(c_ref[i]);
    sum += difference * difference;
  }
  return safe_ratio(std::sqrt(sum), norm_a * norm_b);
}

template <typename T>
double freivalds_residual(const Shape &shape, const T *a, const T *b, const T *c,
                          std::span<const double> x, double norm_a, double norm_b) {
  const std::size_t m = shape.m, n = shape.n, k = shape.k;
  if (x.size() != n) return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> bx(k, 0.0);  // B x
  for (std::size_t p = 0; p < k; ++p) {
    double sum = 0;
    for (std::size_t j = 0; j < n; ++j) sum += static_cast<double>(b[p * n + j]) * x[j];
    bx[p] = sum;
  }
  double residual = 0;
  for (std::size_t i = 0; i < m; ++i) {
    double abx = 0, cx = 0;
    for (std::size_t p = 0; p < k; ++p) abx += static_cast<double>(a[i * k + p]) * bx[p];
    for (std::size_t j = 0; j < n; ++j) cx += static_cast<double>(c[i * n + j]) * x[j];
    const double difference = cx - abx;
    residual += difference * difference;
  }
  double norm_x = 0;
  for (double value : x) norm_x += value * value;
  return safe_ratio(std::sqrt(residual), norm_a * norm_b * std::sqrt(norm_x));
}

template double frobenius_norm<double>(std::span<const double>);
template double frobenius_norm<float>(std::span<const float>);
template bool all_finite<double>(std::span<const double>);
template bool all_finite<float>(std::span<const float>);
template double normwise_error<double>(std::span<const double>, std::span<const double>, double,
                                       double);
template double normwise_error<float>(std::span<const float>, std::span<const float>, double,
                                      double);
template double freivalds_residual<double>(const Shape &, const double *, const double *,
                                           const double *, std::span<const double>, double, double);
template double freivalds_residual<float>(const Shape &, const float *, const float *,
                                          const float *, std::span<const double>, double, double);

}  // namespace hpcreward
