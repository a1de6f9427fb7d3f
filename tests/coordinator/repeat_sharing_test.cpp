// Which identical candidate is measured and which shares whose measurement
// (repeat_sharing.hpp): in one batch through waiting, across batches through the cache.
#include "coordinator/scoring/repeat_sharing.hpp"

#include <gtest/gtest.h>

namespace hpcreward {
namespace {

using Route = RepeatSharing::Route;

CachedMeasurement measured(Status status, std::string id) {
  CachedMeasurement entry;
  entry.measurement.status = status;
  entry.candidate_id = std::move(id);
  entry.batch_id = "b1";
  return entry;
}

TEST(RepeatSharing, InABatchTheFirstOfAKeyIsMeasuredAndTheOthersWaitForIt) {
  RepeatSharing repeats(16);
  EXPECT_EQ(repeats.route(0, "k1").kind, Route::measure);
  EXPECT_EQ(repeats.route(1, "k2").kind, Route::measure);
  EXPECT_EQ(repeats.route(2, "k1").kind, Route::wait);
  EXPECT_EQ(repeats.route(3, "k1").kind, Route::wait);
  EXPECT_EQ(repeats.waiting(), 2u);

  const RepeatSharing::Answered first = repeats.answered(0);
  EXPECT_EQ(first.key, "k1");
  EXPECT_EQ(first.waiting, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(repeats.waiting(), 0u);
  const RepeatSharing::Answered second = repeats.answered(1);
  EXPECT_EQ(second.key, "k2");
  EXPECT_TRUE(second.waiting.empty());
}

TEST(RepeatSharing, AKeptMeasurementAnswersALaterBatchAtOnce) {
  RepeatSharing repeats(16);
  repeats.route(0, "k1");
  repeats.remember(repeats.answered(0).key, measured(Status::ok, "c0"));
  repeats.end_batch();
  const Route route = repeats.route(0, "k1");
  ASSERT_EQ(route.kind, Route::reuse);
  EXPECT_EQ(route.earlier->candidate_id, "c0");
  EXPECT_EQ(repeats.route(1, "k1").kind, Route::reuse) << "each repeat is answered from the cache";
}

TEST(RepeatSharing, WhatTheNodeMayHaveCausedIsSharedInItsBatchButMeasuredAgainLater) {
  RepeatSharing repeats(16);
  repeats.route(0, "k1");
  EXPECT_EQ(repeats.route(1, "k1").kind, Route::wait);
  const RepeatSharing::Answered answer = repeats.answered(0);
  EXPECT_EQ(answer.waiting, std::vector<std::int64_t>{1}) << "a timeout is shared in its batch";
  repeats.remember(answer.key, measured(Status::timeout, "c0"));
  repeats.end_batch();
  EXPECT_EQ(repeats.route(0, "k1").kind, Route::measure) << "and not kept";
}

TEST(RepeatSharing, ANewBatchForgetsTheCandidatesThatWaited) {
  RepeatSharing repeats(16);
  repeats.route(0, "k1");
  repeats.route(1, "k1");
  EXPECT_EQ(repeats.waiting(), 1u);
  repeats.end_batch();  // the batch was cut short: candidate 0 never answered
  EXPECT_EQ(repeats.waiting(), 0u);
  EXPECT_EQ(repeats.route(5, "k1").kind, Route::measure);
}

TEST(RepeatSharing, WithoutACacheEveryCandidateIsMeasured) {
  RepeatSharing repeats(0);
  EXPECT_EQ(repeats.route(0, "k1").kind, Route::measure);
  EXPECT_EQ(repeats.route(1, "k1").kind, Route::measure);
  EXPECT_EQ(repeats.answered(1).key, "k1");
  repeats.remember("k1", measured(Status::ok, "c0"));
  repeats.end_batch();
  EXPECT_EQ(repeats.route(0, "k1").kind, Route::measure);
}

TEST(RepeatSharing, AResumedRunReusesTheLogsMeasurements) {
  RewardRow row;
  row.candidate_id = "c0";
  row.batch_id = "b0";
  row.status = "wrong_answer";
  row.measurement_key = "k1";
  RepeatSharing repeats(16);
  repeats.recall({row});
  const Route route = repeats.route(0, "k1");
  ASSERT_EQ(route.kind, Route::reuse);
  EXPECT_EQ(route.earlier->batch_id, "b0");
  EXPECT_EQ(route.earlier->measurement.status, Status::wrong_answer);
}

}  // namespace
}  // namespace hpcreward
