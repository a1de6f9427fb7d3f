#pragma once
// Where scored rows go: the HDF5 reward log in production, a vector in tests.
#include <string_view>

#include "results/reward_row.hpp"

namespace hpcreward {

class RowSink {
 public:
  virtual ~RowSink() = default;
  // `source` is the candidate's code (empty when none was extracted).
  virtual void append(const RewardRow &row, std::string_view source) = 0;
};

}  // namespace hpcreward
