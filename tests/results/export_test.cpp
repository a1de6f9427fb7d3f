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
    "reps,max_error,compile_s,verify_s,time_s,source_sha256,rank,host,time,seed,"
    "techniques,loop_order,tile_sizes,archive,device,measurement_key,measured_as,measured_batch,"
    "openblas_gflops,cublas_gflops,cublaslt_gflops,feedback,episode,turn";
const char *kEventHeader = "problem,from,to,rule,detail,time,rows_before";
const char *kArchiveHeader =
    "problem,stage,niche,change,candidate_id,batch_id,gflops,source_sha256,"
    "previous_candidate_id,previous_gflops,time,row_index";

std::string keys_of(const nlohmann::ordered_json &object) {
  std::string keys;
  for (const auto &[key, value] : object.items()) keys += (keys.empty() ? "" : ",") + key;
  return keys;
}

std::vector<std::string> lines_of(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(WriteCsv, HeaderNamesEveryColumnInLogOrder) {
  std::ostringstream out;
  write_csv(out, std::vector<RewardRow>{});
  EXPECT_EQ(out.str(), std::string(kHeader) + "\n");
}

TEST(WriteCsv, WritesNumbersExactlyAndQuotesWhereNeeded) {
  RewardRow row = sample_row(0);
  row.candidate_id = "plain";
  row.reason = "expected \"12.5\", got 12.25";
  row.reward = 0.1;
  row.seed = 18446744073709551615ull;
  row.techniques = "openmp+blocking";
  row.tile_sizes = "64x64";
  row.archive = "";
  row.device = "cuda:0 NVIDIA H100 80GB HBM3";
  std::ostringstream out;
  write_csv(out, std::vector<RewardRow>{row});
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1].rfind("plain,", 0), 0u) << lines[1];
  EXPECT_NE(lines[1].find(R"(,"expected ""12.5"", got 12.25",0.1,)"), std::string::npos)
      << lines[1];
  EXPECT_NE(lines[1].find(",18446744073709551615,openmp+blocking,ikj,64x64,"), std::string::npos)
      << lines[1];
  row.measured_as = "first, \"the\" one";
  row.measured_batch = "b0";
  std::ostringstream reused;
  write_csv(reused, std::vector<RewardRow>{row});
  EXPECT_NE(lines[1].find(",64x64,,cuda:0 NVIDIA H100 80GB HBM3,"), std::string::npos)
      << "an empty archive column, then the device: " << lines[1];
  EXPECT_EQ(lines[1].substr(lines[1].size() - 22), "80GB HBM3,,,,0,0,0,,,0")
      << "no measurement key, measured for itself, no yardsticks, no feedback, no episode";
  const std::string reused_line = lines_of(reused.str()).at(1);
  EXPECT_TRUE(reused_line.ends_with(R"(,"first, ""the"" one",b0,0,0,0,,,0)")) << reused_line;
}

TEST(WriteJsonl, OneObjectPerRowWithEveryFieldInLogOrder) {
  std::vector<RewardRow> rows = {sample_row(0, std::string(64, 'a')), sample_row(1)};
  rows[1].reason = std::string("bad byte \xff here");
  std::ostringstream out;
  write_jsonl(out, rows);
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 2u);

  const auto first = nlohmann::ordered_json::parse(lines[0]);
  EXPECT_EQ(keys_of(first), kHeader);
  EXPECT_EQ(first["techniques"], rows[0].techniques);
  EXPECT_EQ(first["archive"], rows[0].archive);
  EXPECT_EQ(first["device"], "cpu");
  EXPECT_EQ(first["candidate_id"], rows[0].candidate_id);
  EXPECT_EQ(first["source_sha256"], rows[0].source_sha256);
  EXPECT_EQ(first["median_s"].get<double>(), rows[0].median_s);
  EXPECT_EQ(first["reps"].get<int>(), rows[0].reps);
  EXPECT_EQ(first["seed"].get<std::uint64_t>(), rows[0].seed);

  // Invalid UTF-8 from a compiler message is replaced, not a reason to fail the export.
  const auto second = nlohmann::json::parse(lines[1]);
  EXPECT_EQ(second["reason"], "bad byte \xEF\xBF\xBD here");
}

TEST(WriteCsv, StageEventsAndArchiveHaveTheirOwnColumns) {
  std::ostringstream events;
  StageEventRecord event = test_support::sample_event(0);
  event.detail = "best 12.5 GFLOPS >= 10, after 3 candidates";
  write_csv(events, std::vector<StageEventRecord>{event});
  const auto event_lines = lines_of(events.str());
  ASSERT_EQ(event_lines.size(), 2u);
  EXPECT_EQ(event_lines[0], kEventHeader);
  EXPECT_EQ(event_lines[1],
            "dgemm-256,o0,o1,best_gflops,\"best 12.5 GFLOPS >= 10, after 3 candidates\","
            "1732240100.25,40");

  std::ostringstream archive;
  write_csv(archive, std::vector<ArchiveRecord>{test_support::sample_archive_record(2)});
  const auto archive_lines = lines_of(archive.str());
  ASSERT_EQ(archive_lines.size(), 2u);
  EXPECT_EQ(archive_lines[0], kArchiveHeader);
  EXPECT_EQ(archive_lines[1], "dgemm-256,openmp,openmp+blocking|ijk|32x32,new_elite,cand-2,batch-1,"
                              "22.25," + std::string(64, 'c') + ",cand-0,20.25,1732240202.5,14");
}

TEST(WriteJsonl, StageEventsAndArchiveAsObjects) {
  std::ostringstream events;
  write_jsonl(events, std::vector<StageEventRecord>{test_support::sample_event(1)});
  const auto event = nlohmann::ordered_json::parse(lines_of(events.str()).at(0));
  EXPECT_EQ(keys_of(event), kEventHeader);
  EXPECT_EQ(event["from"], "o1");
  EXPECT_EQ(event["rows_before"].get<std::uint64_t>(), 41u);

  std::ostringstream archive;
  const std::vector<ArchiveRecord> records = {test_support::sample_archive_record(0),
                                              test_support::sample_archive_record(1)};
  write_jsonl(archive, records);
  const auto lines = lines_of(archive.str());
  ASSERT_EQ(lines.size(), 2u);
  const auto first = nlohmann::ordered_json::parse(lines[0]);
  EXPECT_EQ(keys_of(first), kArchiveHeader);
  EXPECT_EQ(first["change"], "new_niche");
  EXPECT_EQ(first["previous_candidate_id"], "");
  EXPECT_EQ(nlohmann::json::parse(lines[1])["gflops"].get<double>(), 21.25);
}

}  // namespace
}  // namespace hpcreward
