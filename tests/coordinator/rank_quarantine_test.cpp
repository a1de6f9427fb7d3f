// Quarantine of ranks that stop answering (rank_quarantine.hpp), on a clock the test sets by
// hand: where the held tasks go, what the record says, when the run has no rank left.
#include "coordinator/ranks/rank_quarantine.hpp"

#include <gtest/gtest.h>

#include "coordinator/input/candidate_input.hpp"

namespace hpcreward {
namespace {

using Clock = RankQuarantine::Clock;

Clock::time_point at(double seconds) {
  return Clock::time_point{} + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

RankInfo rank(int number, std::string kind = "cpu", int slots = 1) {
  RankInfo info;
  info.rank = number;
  info.host = "node" + std::to_string(number);
  info.kind = std::move(kind);
  info.slots = slots;
  info.task_limit_s = 10;
  return info;
}

std::vector<PreparedCandidate> candidates(int count) {
  std::vector<PreparedCandidate> list(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) list[static_cast<std::size_t>(i)].id = "c" + std::to_string(i);
  return list;
}

// Task `sequence` is candidate `sequence` of `list`.
RankQuarantine::CandidateIdOf ids_of(std::vector<PreparedCandidate> list) {
  return [list = std::move(list)](std::int64_t sequence) { return list[static_cast<std::size_t>(sequence)].id; };
}

// Ranks `infos` with a margin of 5 s (a rank holding a task must answer within 15 s).
RankQuarantine quarantine_of(const std::vector<RankInfo> &infos) {
  std::vector<int> ranks;
  std::map<int, RankInfo> by_rank;
  for (const RankInfo &info : infos) {
    ranks.push_back(info.rank);
    by_rank[info.rank] = info;
  }
  return RankQuarantine(ranks, by_rank, RankWatch::Seconds(5));
}

// Queues tasks 0..count-1 for CPU ranks and hands them out at time 0.
void send_all(Scheduler &scheduler, RankQuarantine &quarantine, int count) {
  for (int sequence = 0; sequence < count; ++sequence) scheduler.enqueue(sequence, "cpu");
  while (auto assignment = scheduler.next_assignment()) quarantine.sent(assignment->rank, assignment->sequence, at(0));
}

std::vector<int> ranks_of(const std::vector<RankCapacity> &capacities) {
  std::vector<int> ranks;
  for (const RankCapacity &capacity : capacities) ranks.push_back(capacity.rank);
  return ranks;
}

TEST(RankQuarantine, AnOverdueRankGivesItsTaskToAnotherRankOfItsKind) {
  RankQuarantine quarantine = quarantine_of({rank(1), rank(2), rank(3, "gpu", 4)});
  Scheduler scheduler(quarantine.ranks_in_service());
  const auto list = candidates(3);
  send_all(scheduler, quarantine, 3);  // c0 on rank 1, c1 on rank 2, c2 queued
  quarantine.answered(2, 1, at(1));
  EXPECT_TRUE(quarantine.quarantine_overdue(scheduler, ids_of(list), at(14.9), false).empty()) << "not yet";

  const std::vector<RankEventRecord> records = quarantine.quarantine_overdue(scheduler, ids_of(list), at(16), false);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].rank, 1);
  EXPECT_EQ(records[0].host, "node1");
  EXPECT_EQ(records[0].event, "quarantined");
  EXPECT_EQ(records[0].reason,
            "no answer for 16 s; deadline 15 s (task limit 10 s + margin 5 s); held candidate c0 sent to other ranks");
  EXPECT_EQ(quarantine.lost(), records);
  EXPECT_TRUE(quarantine.quarantined(1));
  EXPECT_EQ(scheduler.queued_of("cpu"), (std::vector<std::int64_t>{0, 2})) << "its task goes first";
  EXPECT_EQ(ranks_of(quarantine.ranks_in_service()), (std::vector<int>{2, 3}));
  EXPECT_TRUE(quarantine.had_kind("cpu"));
  EXPECT_NO_THROW(quarantine.check_stranded(scheduler, ids_of(list)));
  EXPECT_TRUE(quarantine.quarantine_overdue(scheduler, ids_of(list), at(100), false).empty()) << "quarantined once";
}

TEST(RankQuarantine, WithNoRankLeftForAKindTheRunEndsNamingTheLostRanks) {
  RankQuarantine quarantine = quarantine_of({rank(1), rank(2, "gpu", 4)});
  Scheduler scheduler(quarantine.ranks_in_service());
  const auto list = candidates(3);
  send_all(scheduler, quarantine, 3);
  const std::vector<RankEventRecord> records = quarantine.quarantine_overdue(scheduler, ids_of(list), at(20), false);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_NE(records[0].reason.find("held candidate c0 have no cpu rank left to go to"), std::string::npos)
      << records[0].reason;
  EXPECT_TRUE(quarantine.had_kind("cpu")) << "quarantined ranks count";
  EXPECT_FALSE(quarantine.had_kind("tpu"));
  try {
    quarantine.check_stranded(scheduler, ids_of(list));
    FAIL() << "three CPU candidates and no CPU rank";
  } catch (const NoRanksLeft &error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("no cpu benchmark rank is left for the 3 candidates still to score (c0, c1, c2)"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("rank 1 on node1"), std::string::npos) << message;
    EXPECT_NE(message.find("rerun with --resume"), std::string::npos) << message;
  }
}

TEST(RankQuarantine, WhileStoppingTheHeldTasksAreLeftForAResume) {
  RankQuarantine quarantine = quarantine_of({rank(1), rank(2)});
  Scheduler scheduler(quarantine.ranks_in_service());
  send_all(scheduler, quarantine, 2);
  const std::vector<RankEventRecord> records = quarantine.quarantine_overdue(scheduler, ids_of(candidates(2)), at(20), true);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].rank, 1);
  EXPECT_EQ(records[1].rank, 2);
  EXPECT_NE(records[1].reason.find("held candidate c1 left without a row (the run is stopping; a resume scores them)"),
            std::string::npos)
      << records[1].reason;
}

TEST(RankQuarantine, ALateAnswerIsNamedByTheCandidateItsRankHeld) {
  RankQuarantine quarantine = quarantine_of({rank(1), rank(2)});
  Scheduler scheduler(quarantine.ranks_in_service());
  send_all(scheduler, quarantine, 2);
  quarantine.answered(2, 1, at(1));
  quarantine.quarantine_overdue(scheduler, ids_of(candidates(2)), at(20), false);
  EXPECT_EQ(quarantine.late_answer_note(1, 0),
            "note: rank 1 answered candidate c0 after it was quarantined; the answer is discarded (the candidate "
            "was sent to another rank)");
  EXPECT_NE(quarantine.late_answer_note(1, 7).find("answered task 7 after"), std::string::npos);
}

TEST(RankQuarantine, ARankWithoutItsHelloIsACpuRankWithOneSlotAndNoDeadline) {
  RankQuarantine quarantine({5}, {}, RankWatch::Seconds(1));
  const std::vector<RankCapacity> capacities = quarantine.ranks_in_service();
  ASSERT_EQ(capacities.size(), 1u);
  EXPECT_EQ(capacities[0].kind, "cpu");
  EXPECT_EQ(capacities[0].slots, 1);
  quarantine.sent(5, 0, at(0));
  EXPECT_FALSE(quarantine.next_deadline());
}

}  // namespace
}  // namespace hpcreward
