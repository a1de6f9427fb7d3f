#include "results/summary.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace hpcreward {
namespace {

RewardRow row(std::string problem, std::string stage, std::string status, double gflops,
              std::string candidate) {
  RewardRow r;
  r.problem = std::move(problem);
  r.stage = std::move(stage);
  r.status = std::move(status);
  r.gflops = gflops;
  r.candidate_id = std::move(candidate);
  return r;
}

std::vector<std::string> lines_of(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> words_of(const std::string &line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

const std::vector<RewardRow> kRun = {
    row("dgemm-256", "o0", "ok", 1.0, "a"),
    row("dgemm-256", "o0", "wrong_answer", 0, "b"),
    row("dgemm-256", "o0", "ok", 4.0, "c"),
    row("dgemm-256", "o0", "compile_error", 0, "d"),
    row("dgemm-256", "o0", "ok", 2.0, "e"),
    row("dgemm-256", "o0", "wrong_answer", 0, "f"),
    row("sgemm-1024", "o3", "timeout", 0, "g"),
    row("dgemm-256", "o3", "ok", 10.0, "h"),
    row("dgemm-256", "o3", "ok", 30.0, "i"),
};

TEST(FormatSummary, SaysSoWhenThereAreNoRows) {
  const std::string text = format_summary({});
  EXPECT_EQ(lines_of(text).size(), 1u);
  EXPECT_NE(text.find("no rows"), std::string::npos);
}

TEST(FormatSummary, ShowsTheBestCandidatesDeviceOnlyWhenAGpuTimedSomething) {
  std::vector<RewardRow> rows = kRun;
  for (RewardRow &r : rows) r.device = "cpu";
  EXPECT_EQ(format_summary(rows), format_summary(kRun)) << "CPU-only runs keep the narrower table";
  EXPECT_EQ(lines_of(format_summary(rows))[0].find("device"), std::string::npos);

  rows.push_back(row("cuda-sgemm-4096", "cuda-naive", "ok", 900.0, "g1"));
  rows.back().device = "cuda:0 NVIDIA-H100";
  rows.push_back(row("cuda-sgemm-4096", "cuda-naive", "ok", 1200.0, "g2"));
  rows.back().device = "cuda:1 NVIDIA-H100";
  rows.push_back(row("cuda-sgemm-4096", "cuda-naive", "format_error", 0, "g3"));  // device ""
  const auto lines = lines_of(format_summary(rows));
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_NE(lines[0].find("its device"), std::string::npos) << lines[0];
  // problem stage candidates ok best median best-candidate its-device statuses
  EXPECT_EQ(words_of(lines[4]), (std::vector<std::string>{"cuda-sgemm-4096", "cuda-naive", "3", "2", "1200.00",
                                                          "1050.00", "g2", "cuda:1", "NVIDIA-H100", "format_error=1"}));
  EXPECT_EQ(words_of(lines[2]).at(7), "-") << "no verified candidate, no device: " << lines[2];
  EXPECT_EQ(words_of(lines[1]).at(7), "cpu") << lines[1];
}

TEST(FormatSummary, CountsReusedRowsOnlyWhenSomeRowReusedAMeasurement) {
  std::vector<RewardRow> rows = {row("dgemm-256", "o3", "ok", 2, "a"), row("dgemm-256", "o3", "ok", 2, "a2"),
                                 row("dgemm-256", "o0", "wrong_answer", 0, "w")};
  EXPECT_EQ(lines_of(format_summary(rows))[0].find("reused"), std::string::npos);
  rows[1].measured_as = "a";
  const auto lines = lines_of(format_summary(rows));
  ASSERT_EQ(lines.size(), 4u);  // header, two groups, total
  EXPECT_NE(lines[0].find("reused"), std::string::npos) << lines[0];
  // problem stage candidates ok reused best ...
  EXPECT_EQ(words_of(lines[1]).at(4), "1") << lines[1];
  EXPECT_EQ(words_of(lines[2]).at(4), "0") << lines[2];
  EXPECT_EQ(words_of(lines[3]).at(3), "1") << "the total has no stage: " << lines[3];
  EXPECT_EQ(words_of(lines[3]).at(1), "3") << lines[3];
}

TEST(FormatSummary, OneLinePerProblemAndStageInFirstSeenOrderThenTotal) {
  const auto lines = lines_of(format_summary(kRun));
  ASSERT_EQ(lines.size(), 5u);  // header, three groups, total
  EXPECT_EQ(words_of(lines[1]).at(0), "dgemm-256");
  EXPECT_EQ(words_of(lines[1]).at(1), "o0");
  EXPECT_EQ(words_of(lines[2]).at(0), "sgemm-1024");
  EXPECT_EQ(words_of(lines[3]).at(0), "dgemm-256");
  EXPECT_EQ(words_of(lines[3]).at(1), "o3");
  EXPECT_EQ(words_of(lines[4]).at(0), "total");
}

TEST(FormatSummary, CountsStatusesAndReportsBestAndMedianOfOkRows) {
  const auto lines = lines_of(format_summary(kRun));
  // problem stage candidates ok best median best-candidate statuses...
  const std::vector<std::string> o0 = {
      "dgemm-256", "o0", "6", "3", "4.00", "2.00", "c", "compile_error=1", "wrong_answer=2"};
  EXPECT_EQ(words_of(lines[1]), o0);
  const std::vector<std::string> sgemm = {"sgemm-1024", "o3", "1", "0", "-", "-", "-", "timeout=1"};
  EXPECT_EQ(words_of(lines[2]), sgemm);
  const std::vector<std::string> o3 = {"dgemm-256", "o3", "2", "2", "30.00", "20.00", "i", "-"};
  EXPECT_EQ(words_of(lines[3]), o3);
  // Over the whole run: ok GFLOPS 1 2 4 10 30, median 4.
  const std::vector<std::string> total = {
      "total", "9", "5", "30.00", "4.00", "i", "compile_error=1", "timeout=1", "wrong_answer=2"};
  EXPECT_EQ(words_of(lines[4]), total);
}

TEST(FormatSummary, AlignsColumns) {
  const auto lines = lines_of(format_summary(kRun));
  // Right-aligned counts end where their header ends; left-aligned names start together.
  const std::size_t ok_end = lines[0].find(" ok") + 3;
  const std::size_t candidate_start = lines[0].find("best candidate");
  ASSERT_NE(candidate_start, std::string::npos);
  const std::vector<std::string> best = {"c", "-", "i", "i"};
  for (std::size_t i = 1; i < lines.size(); ++i) {
    SCOPED_TRACE(lines[i]);
    EXPECT_NE(lines[i][ok_end - 1], ' ');
    EXPECT_EQ(lines[i][ok_end], ' ');
    EXPECT_EQ(lines[i].substr(candidate_start, 2), best[i - 1] + " ");
    EXPECT_NE(lines[i].back(), ' ');
  }
}

TEST(FormatSummary, KeepsStatusesItDoesNotKnow) {
  const auto lines = lines_of(
      format_summary({row("p", "s", "brand_new_status", 0, "a"), row("p", "s", "ok", 1, "b")}));
  EXPECT_NE(lines.at(1).find("brand_new_status=1"), std::string::npos) << lines.at(1);
}

RewardRow with_techniques(RewardRow r, std::string techniques, std::string loop_order,
                          std::string tiles, std::string archive) {
  r.techniques = std::move(techniques);
  r.loop_order = std::move(loop_order);
  r.tile_sizes = std::move(tiles);
  r.archive = std::move(archive);
  return r;
}

TEST(FormatSummary, LeavesOutTechniqueColumnsWhenNoRowHasTechniqueData) {
  const std::string text = format_summary(kRun);
  EXPECT_EQ(text.find("techniques"), std::string::npos) << text;
  EXPECT_EQ(text.find("niches"), std::string::npos) << text;
}

TEST(FormatSummary, ShowsTheBestCandidatesTechniquesAndNichesOpened) {
  const std::vector<RewardRow> run = {
      with_techniques(row("dgemm-256", "openmp", "ok", 20.0, "a"), "openmp", "ijk", "",
                      "new_niche"),
      with_techniques(row("dgemm-256", "openmp", "ok", 35.5, "b"), "openmp+blocking", "ikj",
                      "64x64", "new_niche"),
      with_techniques(row("dgemm-256", "openmp", "ok", 25.0, "c"), "openmp", "ijk", "",
                      "new_elite"),
      with_techniques(row("dgemm-256", "openmp", "constraint_violation", 0, "d"), "plain", "ijk",
                      "", ""),
      row("dgemm-256", "o3", "ok", 3.0, "e"),  // detection did not run
  };
  const auto lines = lines_of(format_summary(run));
  ASSERT_EQ(lines.size(), 4u);
  const std::size_t best = lines[0].find("best candidate"), its = lines[0].find("its techniques"),
                    niches = lines[0].find("niches"), other = lines[0].find("other statuses");
  EXPECT_TRUE(best < its && its < niches && niches < other && other != std::string::npos)
      << lines[0];
  const std::vector<std::string> openmp = {"dgemm-256", "openmp",  "4",     "3",
                                           "35.50",     "25.00",   "b",     "openmp+blocking",
                                           "ikj",       "64x64",   "2",     "constraint_violation=1"};
  EXPECT_EQ(words_of(lines[1]), openmp);
  const std::vector<std::string> o3 = {"dgemm-256", "o3", "1", "1", "3.00", "3.00", "e", "-",
                                       "0",         "-"};
  EXPECT_EQ(words_of(lines[2]), o3);
  const std::vector<std::string> total = {"total", "5",     "4",     "35.50",
                                          "22.50", "b",     "openmp+blocking", "ikj",
                                          "64x64", "2",     "constraint_violation=1"};
  EXPECT_EQ(words_of(lines[3]), total);
}

TEST(FormatStageEvents, ListsEveryEventThenEachProblemsCurrentStage) {
  std::vector<StageEventRecord> events = {test_support::sample_event(0),
                                          test_support::sample_event(1),
                                          test_support::sample_event(2)};
  events[0].time = 1732240100.9;  // 2024-11-22 01:48:20 UTC
  const auto lines = lines_of(format_stage_events(events));
  // header, 3 events, blank, header, 2 problems
  ASSERT_EQ(lines.size(), 8u);
  EXPECT_EQ(words_of(lines[0]),
            (std::vector<std::string>{"time", "(UTC)", "problem", "from", "->", "to", "rule",
                                      "detail"}));
  EXPECT_EQ(words_of(lines[1]),
            (std::vector<std::string>{"2024-11-22", "01:48:20", "dgemm-256", "o0", "->", "o1",
                                      "best_gflops", "best", "10.5", "GFLOPS", ">=", "10"}));
  EXPECT_EQ(words_of(lines[2]).at(2), "sgemm-512");
  EXPECT_TRUE(lines[4].empty());
  EXPECT_EQ(words_of(lines[6]),
            (std::vector<std::string>{"dgemm-256", "o3", "2024-11-22", "01:48:22", "2"}));
  EXPECT_EQ(words_of(lines[7]),
            (std::vector<std::string>{"sgemm-512", "o2", "2024-11-22", "01:48:21", "1"}));
}

TEST(FormatStageEvents, SaysSoWhenThereAreNone) {
  EXPECT_EQ(format_stage_events({}), "no stage events in the reward log\n");
}

TEST(FormatArchive, ShowsEachNichesLastEliteFastestFirstWithItsChanges) {
  std::vector<ArchiveRecord> records = {test_support::sample_archive_record(0),
                                        test_support::sample_archive_record(1),
                                        test_support::sample_archive_record(2)};
  records.push_back(test_support::sample_archive_record(0));
  records.back().stage = "blocking";
  records.back().source_sha256 = "";
  const auto lines = lines_of(format_archive(records));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(words_of(lines[0]),
            (std::vector<std::string>{"problem", "stage", "niche", "elite", "GFLOPS", "source",
                                      "changes"}));
  // 0 and 2 share a niche: cand-2 (22.25) replaced cand-0; cand-1 (21.25) holds the other.
  EXPECT_EQ(words_of(lines[1]),
            (std::vector<std::string>{"dgemm-256", "openmp", "openmp+blocking|ijk|32x32",
                                      "cand-2", "22.25", std::string(12, 'c'), "2"}));
  EXPECT_EQ(words_of(lines[2]),
            (std::vector<std::string>{"dgemm-256", "openmp", "openmp|ikj|64x64", "cand-1",
                                      "21.25", std::string(12, 'c'), "1"}));
  EXPECT_EQ(words_of(lines[3]),
            (std::vector<std::string>{"dgemm-256", "blocking", "openmp+blocking|ijk|32x32",
                                      "cand-0", "20.25", "-", "1"}));
}

TEST(FormatArchive, SaysSoWhenItIsEmpty) { EXPECT_EQ(format_archive({}), "the archive is empty\n"); }

TEST(FormatRankEvents, NamesEachLostRankItsHostWhenAndWhy) {
  const std::vector<RankEventRecord> events = {
      {1764288060.0, 2, "cn042", "quarantined",
       "no answer for 75 s; deadline 70 s (task limit 10 s + margin 60 s); held candidate c12 sent to other ranks"},
      {1764288120.0, 5, "cn043", "quarantined", "no answer for 71 s"}};
  const auto lines = lines_of(format_rank_events(events));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_NE(lines[0].find("2 benchmark ranks lost"), std::string::npos) << lines[0];
  EXPECT_EQ(words_of(lines[1]), (std::vector<std::string>{"rank", "host", "time", "(UTC)", "event", "reason"}));
  const auto first = words_of(lines[2]);
  ASSERT_GE(first.size(), 6u);
  EXPECT_EQ(first[0], "2");
  EXPECT_EQ(first[1], "cn042");
  EXPECT_EQ(first[2] + " " + first[3], "2025-11-28 00:01:00");
  EXPECT_EQ(first[4], "quarantined");
  EXPECT_NE(lines[2].find("held candidate c12 sent to other ranks"), std::string::npos) << lines[2];
  EXPECT_NE(lines[3].find("cn043"), std::string::npos);
}

TEST(FormatRankEvents, IsEmptyWhenNoRankWasLost) { EXPECT_EQ(format_rank_events({}), ""); }

}  // namespace
}  // namespace hpcreward
