#include "coordinator/rewards/reward_table.hpp"

#include <gtest/gtest.h>

namespace hpcreward {
namespace {

TEST(RewardTable, DefaultsFollowTheDesign) {
  RewardTable table;
  // An honest failure of any kind, then the stage's rules, then the harness's.
  for (Status honest : {Status::format_error, Status::compile_error, Status::timeout, Status::runtime_error,
                        Status::wrong_answer})
    EXPECT_EQ(table.penalty(honest), -10) << to_string(honest);
  EXPECT_EQ(table.penalty(Status::constraint_violation), -50);
  EXPECT_EQ(table.penalty(Status::forbidden), -100);
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

Measurement ok_with(double gflops, Yardsticks yardsticks) {
  Measurement m;
  m.status = Status::ok;
  m.gflops = gflops;
  m.yardsticks = yardsticks;
  return m;
}

TEST(RewardMode, ParsesTheThreeModesAndRefusesOthersSayingWhatTheyAre) {
  EXPECT_EQ(RewardMode::parse("gflops").kind(), RewardMode::Kind::gflops);
  EXPECT_EQ(RewardMode::parse("fraction").kind(), RewardMode::Kind::fraction);
  const RewardMode speedup = RewardMode::parse("speedup:cublaslt");
  EXPECT_EQ(speedup.kind(), RewardMode::Kind::speedup);
  EXPECT_EQ(speedup.yardstick(), "cublaslt");
  for (const char *text : {"gflops", "fraction", "speedup:openblas", "speedup:cublas", "speedup:cublaslt"})
    EXPECT_EQ(RewardMode::parse(text).text(), text);
  for (const char *bad : {"", "GFLOPS", "speedup", "speedup:", "speedup:mkl", "fraction:cublas"}) {
    try {
      RewardMode::parse(bad);
      ADD_FAILURE() << bad << " accepted";
    } catch (const std::invalid_argument &error) {
      EXPECT_NE(std::string(error.what()).find("openblas, cublas, cublaslt"), std::string::npos) << error.what();
    }
  }
}

TEST(RewardMode, OkEarnsTheRatioToItsYardstick) {
  const Yardsticks gpu{.openblas = 0, .cublas = 800, .cublaslt = 1000};
  EXPECT_EQ(RewardMode::parse("fraction").reward_of(ok_with(250, gpu)), 0.25) << "over the best of them";
  EXPECT_EQ(RewardMode::parse("speedup:cublas").reward_of(ok_with(1000, gpu)), 1.25);
  EXPECT_EQ(RewardMode::parse("gflops").reward_of(ok_with(250, gpu)), 250);
  EXPECT_FALSE(RewardMode::parse("speedup:openblas").reward_of(ok_with(250, gpu))) << "not measured on a GPU rank";
  EXPECT_FALSE(RewardMode::parse("fraction").reward_of(ok_with(250, {}))) << "none measured";
}

TEST(RewardTable, InARatioModeOkWithoutItsYardstickEarnsZeroAndSaysWhy) {
  RewardTable table;
  table.set_mode(RewardMode::parse("speedup:openblas"));
  const Measurement measured = ok_with(30, {.openblas = 40});
  EXPECT_EQ(table.reward_for(measured), 0.75);
  EXPECT_EQ(table.missing_yardstick_note(measured), "");
  const Measurement unmeasured = ok_with(30, {.cublas = 40});
  EXPECT_EQ(table.reward_for(unmeasured), 0);
  EXPECT_NE(table.missing_yardstick_note(unmeasured).find("no openblas yardstick"), std::string::npos)
      << table.missing_yardstick_note(unmeasured);
  Measurement wrong = ok_with(30, {.openblas = 40});
  wrong.status = Status::wrong_answer;
  EXPECT_EQ(table.reward_for(wrong), -10) << "penalties are the table's, whatever the mode";
  EXPECT_EQ(table.missing_yardstick_note(wrong), "");
}

}  // namespace
}  // namespace hpcreward
