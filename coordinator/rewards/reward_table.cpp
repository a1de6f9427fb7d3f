#include "coordinator/rewards/reward_table.hpp"

#include <stdexcept>

namespace hpcreward {

// Three tiers, by how far an answer is from a correct, allowed kernel (docs/design.md,
// "Statuses and default rewards"): an honest failure of any kind costs the same, so form never
// costs more than a wrong value and no failure is a safer bet than another; breaking the
// stage's rules costs more; reaching past the harness's rules costs most.
RewardTable::RewardTable()
    : penalties_{{Status::format_error, -10},        {Status::compile_error, -10},
                 {Status::timeout, -10},             {Status::runtime_error, -10},
                 {Status::wrong_answer, -10},        {Status::constraint_violation, -50},
                 {Status::forbidden, -100}} {}

void RewardTable::set_penalty(Status status, double reward) {
  if (status == Status::ok)
    throw std::invalid_argument("the reward of `ok` is the reward mode's (--reward-mode), not a setting");
  penalties_[status] = reward;
}

double RewardTable::penalty(Status status) const { return penalties_.at(status); }

double RewardTable::reward_for(const Measurement &measurement) const {
  if (measurement.status == Status::ok) return mode_.reward_of(measurement).value_or(0);
  return penalties_.at(measurement.status);
}

std::string RewardTable::missing_yardstick_note(const Measurement &measurement) const {
  if (measurement.status != Status::ok || mode_.reward_of(measurement)) return "";
  return "reward 0: the scoring rank has no " +
         (mode_.kind() == RewardMode::Kind::speedup ? mode_.yardstick() + " yardstick" : std::string("yardstick")) +
         " for this problem (reward mode " + mode_.text() + ")";
}

}  // namespace hpcreward
