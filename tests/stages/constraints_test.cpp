// Each default stage's allow/require decisions on what a candidate really uses.
#include <gtest/gtest.h>

#include "stages/ladder_config.hpp"

namespace hpcreward {
namespace {

using Techniques = std::vector<std::string>;

class Constraints : public ::testing::Test {
 protected:
  LadderConfig config = load_ladder_config(HPCREWARD_DEFAULT_LADDER);
  Verdict check(const char *stage, const Techniques &used) { return check_constraints(*config.find(stage), used); }
  bool ok(const char *stage, const Techniques &used) { return check(stage, used).ok(); }
};

TEST_F(Constraints, PlainStagesAllowNothing) {
  for (const char *stage : {"o0", "o3"}) {
    EXPECT_TRUE(ok(stage, {})) << stage;
    EXPECT_FALSE(ok(stage, {"openmp"})) << stage;
    EXPECT_FALSE(ok(stage, {"avx512"})) << stage;
    EXPECT_FALSE(ok(stage, {"blocking"})) << stage;
  }
  Verdict verdict = check("o3", {"openmp"});
  EXPECT_EQ(verdict.status, Status::constraint_violation);
  EXPECT_EQ(verdict.reason, "stage o3 does not allow openmp");
}

TEST_F(Constraints, OpenmpStageRequiresOpenmp) {
  EXPECT_TRUE(ok("openmp", {"openmp"}));
  Verdict verdict = check("openmp", {});
  EXPECT_EQ(verdict.status, Status::constraint_violation);
  EXPECT_EQ(verdict.reason, "stage openmp requires openmp, which the candidate does not use");
  EXPECT_FALSE(ok("openmp", {"openmp", "avx512"}));
  EXPECT_FALSE(ok("openmp", {"openmp", "blocking"}));
}

TEST_F(Constraints, Avx512StageRequiresAvx512AllowsOpenmp) {
  EXPECT_TRUE(ok("avx512", {"avx512"}));
  EXPECT_TRUE(ok("avx512", {"openmp", "avx512"}));
  EXPECT_FALSE(ok("avx512", {"openmp"}));
  EXPECT_FALSE(ok("avx512", {"avx512", "blocking"}));
  EXPECT_EQ(check("avx512", {"blocking"}).reason,
            "stage avx512 does not allow blocking; stage avx512 requires avx512, which the candidate does not use");
}

TEST_F(Constraints, BlockingStageRequiresBlockingAllowsTheRest) {
  EXPECT_TRUE(ok("blocking", {"blocking"}));
  EXPECT_TRUE(ok("blocking", {"blocking", "openmp"}));
  EXPECT_TRUE(ok("blocking", {"openmp", "avx512", "blocking"}));
  EXPECT_FALSE(ok("blocking", {"openmp", "avx512"}));
}

TEST_F(Constraints, OpenStageAllowsEverythingRequiresNothing) {
  EXPECT_TRUE(ok("open", {}));
  EXPECT_TRUE(ok("open", {"openmp", "avx512", "blocking"}));
}

TEST_F(Constraints, RepeatedTechniqueReportedOnce) {
  EXPECT_EQ(check("o0", {"openmp", "openmp"}).reason, "stage o0 does not allow openmp");
}

}  // namespace
}  // namespace hpcreward
