#include "coordinator/rewards/reward_table.hpp"

#include <stdexcept>

namespace hpcreward {

RewardTable::RewardTable()
    : penalties_{{Status::format_error, -100},        {Status::forbidden, -100},
                 {Status::constraint_violation, -100}, {Status::compile_error, -40},
                 {Status::timeout, -30},               {Status::runtime_error, -20},
                 {Status::wrong_answer, -10}} {}

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
