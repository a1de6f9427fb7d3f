// Candidates given again to a resumed run and the rows its log holds for them (logged_rows.hpp).
#include "coordinator/scoring/logged_rows.hpp"

#include <gtest/gtest.h>

namespace hpcreward {
namespace {

PreparedCandidate candidate(std::string id, std::string stage = "") {
  PreparedCandidate c;
  c.id = std::move(id);
  c.problem = "dgemm-256";
  c.stage = stage;
  c.stage_named = !stage.empty();
  return c;
}

RewardRow row(std::string id, std::string stage = "o3") {
  RewardRow r;
  r.candidate_id = std::move(id);
  r.problem = "dgemm-256";
  r.stage = std::move(stage);
  return r;
}

TEST(LoggedRows, EachLoggedRowAccountsForOneCandidateWithItsIdInOrder) {
  const std::vector<RewardRow> logged = {row("a"), row("b"), row("a")};
  const std::vector<PreparedCandidate> candidates = {candidate("a"), candidate("c"), candidate("a"), candidate("a")};
  const std::vector<const RewardRow *> matched = match_logged(candidates, logged);
  ASSERT_EQ(matched.size(), 4u);
  EXPECT_EQ(matched[0], &logged[0]);
  EXPECT_EQ(matched[1], nullptr);
  EXPECT_EQ(matched[2], &logged[2]);
  EXPECT_EQ(matched[3], nullptr) << "a third \"a\" has no row left: it is scored";
}

TEST(LoggedRows, ABatchCutShortKeepsTheStageItsLoggedRowsHad) {
  const std::vector<RewardRow> logged = {row("a", "o3"), row("b", "blocking")};
  const std::vector<PreparedCandidate> candidates = {candidate("a"), candidate("b", "blocking"), candidate("c")};
  const std::vector<const RewardRow *> matched = match_logged(candidates, logged);
  const LoggedPart part = logged_part(candidates, 0, 3, matched);
  EXPECT_TRUE(part.any);
  EXPECT_FALSE(part.all);
  EXPECT_EQ(part.stages, (std::map<std::string, std::string>{{"dgemm-256", "o3"}}))
      << "a candidate that named its stage says nothing of the ladder's";
  EXPECT_TRUE(logged_part(candidates, 0, 2, matched).all);
  const LoggedPart rest = logged_part(candidates, 2, 3, matched);
  EXPECT_FALSE(rest.any);
  EXPECT_TRUE(rest.stages.empty());
}

}  // namespace
}  // namespace hpcreward
