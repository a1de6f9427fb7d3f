#pragma once
// What an `ok` row earns (docs/problems.md, reward modes), chosen per run:
//   gflops           the measured GFLOPS (the default; every run before reward modes)
//   fraction         GFLOPS / the best of the scoring rank's yardsticks for the problem
//   speedup:NAME     GFLOPS / the named yardstick (openblas, cublas, cublaslt)
// The yardsticks are measured once per rank and problem at the problem's own shape
// (common/yardsticks.hpp); every row keeps them beside its GFLOPS, so a log can be scored
// again in another mode (hpcreward_report.rescore).
#include <optional>
#include <string>
#include <string_view>

#include "common/messages.hpp"

namespace hpcreward {

class RewardMode {
 public:
  enum class Kind { gflops, fraction, speedup };

  RewardMode() = default;
  // Throws std::invalid_argument saying what the modes are.
  static RewardMode parse(std::string_view text);

  Kind kind() const { return kind_; }
  const std::string &yardstick() const { return yardstick_; }  // speedup: its name
  std::string text() const;   // as parse() reads it: "gflops", "fraction", "speedup:cublas"
  std::string unit() const;   // what the reward of `ok` is, in words, for /v1/stages and the log

  // The reward of an `ok` measurement; nullopt where the yardstick it needs is 0 (not measured
  // on the rank that scored it).
  std::optional<double> reward_of(const Measurement &measurement) const;

  bool operator==(const RewardMode &) const = default;

 private:
  Kind kind_ = Kind::gflops;
  std::string yardstick_;
};

}  // namespace hpcreward
