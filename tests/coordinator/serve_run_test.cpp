// Serve mode's settings from the options (serve_run.hpp): the endpoint's limits, workers and
// refusals, and the coalescing line. Serving itself is tested over HTTP (tests/e2e, tls_serve).
#include "coordinator/run/serve_run.hpp"

#include <gtest/gtest.h>

#include "common/problem_catalog.hpp"

namespace hpcreward {
namespace {

TEST(ServeRun, TheEndpointGetsTheLimitsAFreshTokenAndWorkersForAFullGroup) {
  CoordinatorOptions options;
  options.max_request_bytes = 1000;
  options.max_batch_candidates = 7;
  options.coalesce_max = 256;
  CandidateDefaults defaults;
  defaults.problem = "dgemm-256";
  RunCapabilities cpu_only;
  cpu_only.ranks_by_kind["cpu"] = 2;
  const EndpointConfig config = endpoint_config(options, defaults, cpu_only);
  EXPECT_EQ(config.max_request_bytes, 1000u);
  EXPECT_EQ(config.max_batch_candidates, 7u);
  EXPECT_EQ(config.defaults.problem, "dgemm-256");
  EXPECT_EQ(config.threads, 256 + 16) << "a full coalesced group's callers wait together";
  EXPECT_EQ(config.token.size(), 64u);
  EXPECT_NE(config.token, endpoint_config(options, defaults, cpu_only).token) << "fresh each time";
  ASSERT_TRUE(config.refuse_problem);
  EXPECT_FALSE(config.refuse_problem(*find_problem("dgemm-256")));
  EXPECT_TRUE(config.refuse_problem(*find_problem("cuda-sgemm-4096"))) << "no GPU rank";
  options.coalesce_max = 1;
  EXPECT_EQ(endpoint_config(options, defaults, cpu_only).threads, 64) << "at least 64";
}

TEST(ServeRun, TheCoalescingLineSaysWhetherRequestsAreGathered) {
  CoordinatorOptions options;
  options.coalesce_window_ms = 200;
  options.coalesce_max = 256;
  EXPECT_EQ(coalescing_line(options),
            "coalescing: single-candidate requests within 200 ms of the first (at most 256) are scored as one batch");
  options.coalesce_window_ms = 0;
  EXPECT_EQ(coalescing_line(options), "coalescing: off (each request is its own batch)");
  options.coalesce_window_ms = 200;
  options.coalesce_max = 1;
  EXPECT_EQ(coalescing_line(options), "coalescing: off (each request is its own batch)");
}

}  // namespace
}  // namespace hpcreward
