#include "coordinator/rewards/reward_mode.hpp"

#include <stdexcept>

namespace hpcreward {

namespace {

constexpr std::string_view kSpeedupPrefix = "speedup:";

}  // namespace

RewardMode RewardMode::parse(std::string_view text) {
  RewardMode mode;
  if (text == "gflops") return mode;
  if (text == "fraction") {
    mode.kind_ = Kind::fraction;
    return mode;
  }
  if (text.substr(0, kSpeedupPrefix.size()) == kSpeedupPrefix) {
    const std::string_view name = text.substr(kSpeedupPrefix.size());
    if (!Yardsticks{}.named(name))
      throw std::invalid_argument("--reward-mode " + std::string(text) + ": no yardstick \"" + std::string(name) +
                                  "\" (one of " + yardstick_names() + ")");
    mode.kind_ = Kind::speedup;
    mode.yardstick_ = std::string(name);
    return mode;
  }
  throw std::invalid_argument("--reward-mode " + std::string(text) +
                              ": not a reward mode (gflops, fraction, or speedup:NAME with NAME one of " +
                              yardstick_names() + ")");
}

std::string RewardMode::text() const {
  switch (kind_) {
    case Kind::gflops: return "gflops";
    case Kind::fraction: return "fraction";
    case Kind::speedup: return std::string(kSpeedupPrefix) + yardstick_;
  }
  return "gflops";
}

std::string RewardMode::unit() const {
  switch (kind_) {
    case Kind::gflops: return "the measured GFLOPS";
    case Kind::fraction: return "the measured GFLOPS over the best yardstick of the scoring rank for the problem";
    case Kind::speedup: return "the measured GFLOPS over the scoring rank's " + yardstick_ + " GFLOPS for the problem";
  }
  return "";
}

std::optional<double> RewardMode::reward_of(const Measurement &measurement) const {
  const double reference = kind_ == Kind::gflops     ? 1.0
                           : kind_ == Kind::fraction ? measurement.yardsticks.best()
                                                     : measurement.yardsticks.named(yardstick_).value_or(0);
  if (!(reference > 0)) return std::nullopt;
  return measurement.gflops / reference;
}

}  // namespace hpcreward
