#pragma once
// Status -> reward (docs/design.md "Statuses and default rewards"). `ok` earns the measured
// GFLOPS; every failure earns its configured penalty. The table is configuration.
#include <map>
#include <string>

#include "common/messages.hpp"

namespace hpcreward {

class RewardTable {
 public:
  RewardTable();  // the defaults of docs/design.md
  // Sets the penalty of a failure status; `ok` is not configurable (it is the GFLOPS).
  void set_penalty(Status status, double reward);
  double penalty(Status status) const;
  double reward_for(const Measurement &measurement) const;

 private:
  std::map<Status, double> penalties_;
};

}  // namespace hpcreward
