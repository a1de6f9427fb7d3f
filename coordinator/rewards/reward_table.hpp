#pragma once
// Status -> reward (docs/design.md "Statuses and default rewards"). `ok` earns what the run's
// reward mode says (the measured GFLOPS by default: reward_mode.hpp); every failure earns its
// configured penalty. The table is configuration.
#include <map>
#include <string>

#include "common/messages.hpp"
#include "coordinator/rewards/reward_mode.hpp"

namespace hpcreward {

class RewardTable {
 public:
  RewardTable();  // the defaults of docs/design.md
  // Sets the penalty of a failure status; `ok` is not configurable (its reward is the mode's).
  void set_penalty(Status status, double reward);
  double penalty(Status status) const;
  void set_mode(RewardMode mode) { mode_ = std::move(mode); }
  const RewardMode &mode() const { return mode_; }
  // `ok`: the mode's reward, 0 where the yardstick it needs was not measured (the row's
  // reason says so: missing_yardstick_note); a failure: its penalty.
  double reward_for(const Measurement &measurement) const;
  // For an `ok` row whose mode found no yardstick: what its reason says; empty otherwise.
  std::string missing_yardstick_note(const Measurement &measurement) const;

  // The default penalties in a mode whose rewards are ratios (fraction, speedup): the
  // GFLOPS defaults over 100, so that they keep their order and weigh against rewards near 1
  // as the defaults weigh against GFLOPS.
  static constexpr double kRatioPenaltyScale = 0.01;
  // What the archive's shaping bonuses (ladder file, written against GFLOPS rewards) are
  // multiplied by: kRatioPenaltyScale in the ratio modes, 1 in gflops. A bonus must weigh
  // against the mode's rewards as the penalties do, or +5 swamps rewards near 1.
  double shaping_scale() const { return mode_.kind() == RewardMode::Kind::gflops ? 1.0 : kRatioPenaltyScale; }

 private:
  std::map<Status, double> penalties_;
  RewardMode mode_;
};

}  // namespace hpcreward
