#include "results/export.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace hpcreward {
namespace {

using test_support::sample_row;

const char *kHeader =
    "candidate_id,batch_id,problem,stage,status,reason,reward,gflops,median_s,min_s,iqr_s,cv,"
    "reps,max_error,compile_s,verify_s,time_s,source_sha256,rank,host,time,seed";

std::vector<std::string> lines_of(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(WriteCsv, HeaderNamesEveryColumnInLogOrder) {
  std::ostringstream out;
  write_csv(out, {});
  EXPECT_EQ(out.str(), std::string(kHeader) + "\n");
}

TEST(WriteCsv, WritesNumbersExactlyAndQuotesWhereNeeded) {
  RewardRow row = sample_row(0);
  row.candidate_id = "plain";
  row.reason = "expected \"12.5\", got 12.25";
  row.reward = 0.1;
  row.seed = 18446744073709551615ull;
  std::ostringstream out;
  write_csv(out, {row});
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1].rfind("plain,", 0), 0u) << lines[1];
  EXPECT_NE(lines[1].find(R"(,"expected ""12.5"", got 12.25",0.1,)"), std::string::npos)
      << lines[1];
  EXPECT_EQ(lines[1].substr(lines[1].rfind(',') + 1), "18446744073709551615");
}

TEST(WriteJsonl, OneObjectPerRowWithEveryFieldInLogOrder) {
  std::vector<RewardRow> rows = {sample_row(0, std::string(64, 'a')), sample_row(1)};
  rows[1].reason = std::string("bad byte \xff here");
  std::ostringstream out;
  write_jsonl(out, rows);
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 2u);

  const auto first = nlohmann::ordered_json::parse(lines[0]);
  std::string keys;
  for (const auto &[key, value] : first.items()) keys += (keys.empty() ? "" : ",") + key;
  EXPECT_EQ(keys, kHeader);
  EXPECT_EQ(first["candidate_id"], rows[0].candidate_id);
  EXPECT_EQ(first["source_sha256"], rows[0].source_sha256);
  EXPECT_EQ(first["median_s"].get<double>(), rows[0].median_s);
  EXPECT_EQ(first["reps"].get<int>(), rows[0].reps);
  EXPECT_EQ(first["seed"].get<std::uint64_t>(), rows[0].seed);

  // Invalid UTF-8 from a compiler message is replaced, not a reason to fail the export.
  const auto second = nlohmann::json::parse(lines[1]);
  EXPECT_EQ(second["reason"], "bad byte \xEF\xBF\xBD here");
}

}  // namespace
}  // namespace hpcreward
