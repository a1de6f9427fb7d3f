#include "coordinator/reward_table.hpp"

#include <gtest/gtest.h>

namespace hpcreward {
namespace {

TEST(RewardTable, DefaultsFollowTheDesign) {
  RewardTable table;
  EXPECT_EQ(table.penalty(Status::format_error), -100);
  EXPECT_EQ(table.penalty(Status::forbidden), -100);
  EXPECT_EQ(table.penalty(Status::constraint_violation), -100);
  EXPECT_EQ(table.penalty(Status::compile_error), -40);
  EXPECT_EQ(table.penalty(Status::timeout), -30);
  EXPECT_EQ(table.penalty(Status::runtime_error), -20);
  EXPECT_EQ(table.penalty(Status::wrong_answer), -10);
}

TEST(RewardTable, OkEarnsMeasuredGflopsAndFailuresTheirPenalty) {
  RewardTable table;
  Measurement ok;
  ok.status = Status::ok;
  ok.gflops = 12.5;
  EXPECT_EQ(table.reward_for(ok), 12.5);
  Measurement wrong;
  wrong.status = Status::wrong_answer;
  wrong.gflops = 99;  // a wrong answer's speed is worth nothing
  EXPECT_EQ(table.reward_for(wrong), -10);
}

TEST(RewardTable, PenaltiesAreConfigurableButOkIsNot) {
  RewardTable table;
  table.set_penalty(Status::timeout, -5);
  Measurement timeout;
  timeout.status = Status::timeout;
  EXPECT_EQ(table.reward_for(timeout), -5);
  EXPECT_THROW(table.set_penalty(Status::ok, 1), std::invalid_argument);
}

}  // namespace
}  // namespace hpcreward
