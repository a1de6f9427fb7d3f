// The lines a run starts and ends with (run_report.hpp).
#include "coordinator/run/run_report.hpp"

#include <gtest/gtest.h>

#include "stages/builtin_ladder.hpp"

namespace hpcreward {
namespace {

StartedRanks two_cpu_ranks(const CoordinatorOptions &options) {
  StartedRanks started;
  for (int rank = 1; rank <= 2; ++rank) {
    RankInfo info;
    info.rank = rank;
    info.kind = "cpu";
    info.task_limit_s = 100;
    started.ranks.push_back(info);
  }
  started.capabilities = run_capabilities(started.ranks, &options.ladder, options.ladder_source);
  return started;
}

std::vector<std::string> lines_of(const std::string &text) {
  std::vector<std::string> lines;
  std::size_t begin = 0;
  for (std::size_t end; (end = text.find('\n', begin)) != std::string::npos; begin = end + 1)
    lines.push_back(text.substr(begin, end - begin));
  EXPECT_EQ(begin, text.size()) << "every line ends in a newline";
  return lines;
}

TEST(RunReport, AFileRunStartsWithWhatItScoresWhereAndTheDeadlines) {
  CoordinatorOptions options;
  options.ladder = parse_ladder_config(builtin_ladder_json(), kBuiltinLadderName);
  options.ladder_source = "built-in";
  options.rank_deadline_margin_s = 60;
  const SqdState state(options.ladder, true);
  const std::vector<std::string> lines =
      lines_of(format_run_start(options, 3, two_cpu_ranks(options), "out/rewards.h5", LoggedRun{}, state));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "hpcreward: scoring 3 candidates on 2 benchmark ranks (2 CPU), ladder built-in -> out/rewards.h5");
  EXPECT_EQ(lines[1].rfind("deadline: cpu ranks 1,2 must answer within 160 s", 0), 0u) << lines[1];
}

TEST(RunReport, AResumedServeRunSaysWhatTheLogHoldsAndTheNullRanks) {
  CoordinatorOptions options;
  options.ladder = parse_ladder_config(builtin_ladder_json(), kBuiltinLadderName);
  options.ladder_source = "built-in";
  options.serve = true;
  options.resume = true;
  StartedRanks ranks = two_cpu_ranks(options);
  ranks.null_ranks = 1;
  LoggedRun logged;
  logged.resumed = true;
  logged.rows.resize(4);
  SqdState state(options.ladder, true);
  state.current_stage("dgemm-256");
  const std::string text = format_run_start(options, 0, ranks, "out/rewards.h5", logged, state);
  EXPECT_EQ(text.rfind("hpcreward: serving (resumed) on 2 benchmark ranks (2 CPU)", 0), 0u) << text;
  EXPECT_NE(text.find("\nNULL MEASUREMENT: 1 of 2 benchmark ranks"), std::string::npos) << text;
  EXPECT_NE(text.find("\nresume: the log holds 4 rows, 0 stage events; their candidates are not scored again\n"
                      "stage: dgemm-256 is at "),
            std::string::npos)
      << text;
}

TEST(RunReport, ARunEndsWithTheSummaryTheLostRanksAndTheLog) {
  const LadderConfig ladder = parse_ladder_config(builtin_ladder_json(), kBuiltinLadderName);
  const SqdState state(ladder, true);
  RunSummary summary;
  const std::string quiet = format_run_end(summary, state, {}, "out/rewards.h5", 12, 5);
  EXPECT_EQ(quiet.rfind('\n' + summary.format(), 0), 0u) << quiet;
  EXPECT_TRUE(quiet.ends_with("\nreward log: out/rewards.h5 (12 rows, 5 written now)\n")) << quiet;
  const std::string lost =
      format_run_end(summary, state, {{1700000000, 2, "node2", "quarantined", "silent"}}, "out/rewards.h5", 12, 5);
  EXPECT_NE(lost.find("node2"), std::string::npos) << lost;
}

}  // namespace
}  // namespace hpcreward
