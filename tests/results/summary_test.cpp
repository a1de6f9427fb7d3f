#include "results/summary.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

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

}  // namespace
}  // namespace hpcreward
