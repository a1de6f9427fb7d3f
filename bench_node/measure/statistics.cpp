#include "bench_node/measure/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace hpcreward {

double SampleSummary::rse() const {
  if (count < 2 || !(mean > 0)) return std::numeric_limits<double>::infinity();
  return stddev / std::sqrt(static_cast<double>(count)) / mean;
}

namespace {

// Quantile of sorted data (R's type 7).
double sorted_quantile(const std::vector<double> &sorted, double p) {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double position = std::clamp(p, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

}  // namespace

double quantile(std::span<const double> samples, double p) {
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  return sorted_quantile(sorted, p);
}

SampleSummary summarize(std::span<const double> samples) {
  SampleSummary summary;
  summary.count = static_cast<int>(samples.size());
  if (samples.empty()) return summary;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  summary.min = sorted.front();
  summary.max = sorted.back();
  summary.median = sorted_quantile(sorted, 0.5);
  summary.q1 = sorted_quantile(sorted, 0.25);
  summary.q3 = sorted_quantile(sorted, 0.75);
  double sum = 0;
  for (double value : sorted) sum += value;
  summary.mean = sum / static_cast<double>(sorted.size());
  if (sorted.size() > 1) {
    double squares = 0;
    for (double value : sorted) squares += (value - summary.mean) * (value - summary.mean);
    summary.stddev = std::sqrt(squares / static_cast<double>(sorted.size() - 1));
  }
  return summary;
}

double SampleSummary::median_rse() const {
  if (count < 2 || median <= 0) return std::numeric_limits<double>::infinity();
  return 1.2533 * (iqr() / 1.349) / std::sqrt(static_cast<double>(count)) / median;
}

bool StoppingRule::done(std::span<const double> samples, double elapsed_s, int min_reps) const {
  const int reps = static_cast<int>(samples.size());
  if (reps >= options_.max_reps) return true;
  if (reps >= 1 && elapsed_s >= options_.time_cap_s) return true;
  if (reps < std::max({options_.min_reps, min_reps, 2}) || elapsed_s < options_.min_time_s) return false;
  return summarize(samples).median_rse() < options_.target_rse;
}

bool WarmupRule::done(std::span<const double> call_s, double elapsed_s) const {
  const int calls = static_cast<int>(call_s.size());
  if (calls < 1) return false;
  if (elapsed_s >= options_.warmup_s) return true;
  const int window = std::max(options_.warmup_calls, 1);
  if (calls < window || elapsed_s < options_.warmup_min_s || !(options_.warmup_settle > 0)) return false;
  const auto [fastest, slowest] = std::minmax_element(call_s.end() - window, call_s.end());
  return *slowest - *fastest <= options_.warmup_settle * *fastest;
}

}  // namespace hpcreward
