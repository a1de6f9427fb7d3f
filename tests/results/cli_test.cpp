// hpcreward-results, run as a user would run it.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "child_that_dies.hpp"
#include "common/sha256.hpp"
#include "results/log_file_state.hpp"
#include "results/reward_log.hpp"
#include "test_support.hpp"
#include "old_schema_fixture.hpp"

namespace hpcreward {
namespace {

using test_support::sample_archive_record;
using test_support::sample_event;
using test_support::sample_provenance;
using test_support::sample_row;
using test_support::TempDir;

struct ToolRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string quoted(const std::string &text) {
  std::string result = "'";
  for (char c : text) result += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return result + "'";
}

class ResultsTool : public ::testing::Test {
 protected:
  static constexpr const char *kSource =
      "void matmul(int m, int n, int k, const double *A,\n"
      "            const double *B, double *C) {}\n";

  void SetUp() override {
    RewardLogWriter writer(log_, sample_provenance());
    RewardRow fast = sample_row(0, sha256_hex(kSource));
    fast.gflops = 12.5;
    fast.techniques = "openmp+blocking";
    fast.tile_sizes = "64x64";
    fast.archive = "new_niche";
    writer.append(fast, kSource);
    writer.append_archive(sample_archive_record(0, sha256_hex(kSource)));
    RewardRow broken = sample_row(2);
    broken.status = "compile_error";
    broken.reason = "error: expected ';', got \"}\"";
    broken.techniques = broken.loop_order = broken.tile_sizes = broken.archive = "";
    writer.append(broken, "");
    writer.append_event(sample_event(0));
    writer.append_rank_event({1764288060.0, 3, "cn007", "quarantined",
                              "no answer for 75 s; deadline 70 s (task limit 10 s + margin 60 s); held candidate "
                              "cand-9 sent to other ranks"});
  }

  // A schema 1 log beside the fixture's current one.
  std::filesystem::path v1_log() const {
    const auto path = dir_ / "v1.h5";
    if (!std::filesystem::exists(path))
      test_support::write_v1_log(path, {sample_row(0)}, {}, sample_provenance());
    return path;
  }

  ToolRun run(const std::vector<std::string> &args) const {
    std::string command = quoted(HPCREWARD_RESULTS_TOOL);
    for (const std::string &arg : args) command += " " + quoted(arg);
    const auto err_path = dir_ / "stderr.txt";
    command += " 2>" + quoted(err_path.string());

    ToolRun result;
    FILE *pipe = popen(command.c_str(), "r");
    if (!pipe) return result;
    char buffer[4096];
    for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;)
      result.out.append(buffer, n);
    const int status = pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream err(err_path);
    result.err.assign(std::istreambuf_iterator<char>(err), {});
    return result;
  }

  TempDir dir_;
  std::filesystem::path log_ = dir_ / "log.h5";
};

TEST_F(ResultsTool, SummaryPrintsTheTable) {
  const ToolRun r = run({"summary", log_.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("dgemm-256"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("12.50"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("compile_error=1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("openmp+blocking ikj 64x64"), std::string::npos) << r.out;
}

TEST_F(ResultsTool, SummaryOfASchema1LogHasNoTechniqueColumns) {
  const ToolRun r = run({"summary", v1_log().string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("dgemm-256"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("techniques"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("lost"), std::string::npos) << "no rank events before schema 4: " << r.out;
}

TEST_F(ResultsTool, SummaryNamesTheLostRanks) {
  const ToolRun r = run({"summary", log_.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 benchmark rank lost"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cn007"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2025-11-28 00:01:00"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no answer for 75 s"), std::string::npos) << r.out;
}

// The words of a line, so a table line compares with its cells whatever the padding.
std::vector<std::string> words_of(const std::string &text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

TEST_F(ResultsTool, SummaryJsonIsTheTableWithEachStagesBestRowAndTheWriterState) {
  const ToolRun r = run({"summary", "--json", log_.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = nlohmann::ordered_json::parse(r.out);  // ordered: statuses come in status order
  EXPECT_EQ(summary["format"], 1);
  EXPECT_EQ(summary["writer"], "closed");
  EXPECT_EQ(summary["rows"], 2);
  ASSERT_EQ(summary["stages"].size(), 1u);
  const auto &stage = summary["stages"][0];
  EXPECT_EQ(stage["problem"], "dgemm-256");
  EXPECT_EQ(stage["stage"], "o0");
  EXPECT_EQ(stage["candidates"], 2);
  EXPECT_EQ(stage["ok"], 1);
  EXPECT_EQ(stage["statuses"].dump(), R"({"ok":1,"compile_error":1})");
  EXPECT_EQ(stage["best_gflops"], 12.5);
  EXPECT_EQ(stage["best"]["candidate_id"], "cand-0");
  EXPECT_EQ(stage["best"]["source_sha256"], sha256_hex(kSource));
  EXPECT_EQ(stage["best"]["reps"], 30);
  EXPECT_EQ(stage["best_techniques"], "openmp+blocking ikj 64x64");
  EXPECT_EQ(summary["total"]["problem"], "total");
  EXPECT_EQ(summary["total"]["candidates"], 2);

  // The table is the one `summary` prints, cell by cell.
  const ToolRun text = run({"summary", log_.string()});
  std::vector<std::string> lines;
  std::istringstream in(text.out);
  for (std::string line; std::getline(in, line) && !line.empty();) lines.push_back(line);
  const auto &table = summary["table"];
  ASSERT_EQ(lines.size(), 1 + table["rows"].size()) << text.out;
  std::string header;
  for (const auto &column : table["columns"]) header += column["header"].get<std::string>() + " ";
  EXPECT_EQ(words_of(lines[0]), words_of(header));
  for (std::size_t i = 0; i < table["rows"].size(); ++i) {
    std::string cells;
    for (const auto &cell : table["rows"][i]) cells += cell.get<std::string>() + " ";
    EXPECT_EQ(words_of(lines[i + 1]), words_of(cells)) << lines[i + 1];
  }
  EXPECT_EQ(table["columns"][2]["align"], "right");
}

TEST_F(ResultsTool, SummaryJsonOfAnEmptyOrOldLogHasNoBestRow) {
  const auto empty = dir_ / "empty.h5";
  { RewardLogWriter writer(empty, sample_provenance()); }
  ToolRun r = run({"summary", "--json", empty.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto summary = nlohmann::json::parse(r.out);
  EXPECT_EQ(summary["rows"], 0);
  EXPECT_TRUE(summary["stages"].empty());
  EXPECT_TRUE(summary["total"]["best"].is_null());
  EXPECT_TRUE(summary["total"]["first_time"].is_null());

  r = run({"summary", "--json", v1_log().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  summary = nlohmann::json::parse(r.out);
  EXPECT_EQ(summary["stages"][0]["best"]["techniques"], "") << "a column schema 1 lacks reads empty";
  EXPECT_EQ(summary["stages"][0]["best_techniques"], "");
}

TEST_F(ResultsTool, SummaryJsonSaysWhetherTheWriterRunsOrDied) {
  const auto live = dir_ / "live.h5";
  {
    RewardLogWriter writer(live, sample_provenance());
    writer.append(sample_row(0), "");
    const ToolRun r = run({"summary", "--json", live.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["writer"], "running");
    writer.append(sample_row(1), "");  // the tool got in the writer's way in no way
  }
  const auto dead = dir_ / "dead.h5";
  test_support::in_child_that_dies([&] {
    auto *writer = new RewardLogWriter(dead, sample_provenance());  // never closed
    writer->append(sample_row(0), "");
  });
  const ToolRun r = run({"summary", "--json", dead.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["writer"], "died");
}

TEST_F(ResultsTool, SummaryOfALogItsLiveWriterHasNotMadeReadableSaysTryAgain) {
  const auto creating = dir_ / "creating.h5";
  std::ofstream(creating).flush();  // a writer holds the file before HDF5 has written it
  std::optional<h5::WriterLock> lock = h5::WriterLock::try_acquire(creating);
  ASSERT_TRUE(lock);
  for (const std::vector<std::string> &args :
       {std::vector<std::string>{"summary", "--json", creating.string()}, {"summary", creating.string()}}) {
    const ToolRun r = run(args);
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("a live writer holds the log and has not made it readable yet: try again"),
              std::string::npos)
        << r.err;
  }
  lock.reset();
  const ToolRun r = run({"summary", "--json", creating.string()});
  EXPECT_EQ(r.exit_code, 1) << "without a writer it is just not a log: " << r.err;
}

TEST_F(ResultsTool, ExportsRankEventsAndSaysASchema3LogHasNone) {
  ToolRun r = run({"export", log_.string(), "--table", "rank_events", "--format", "jsonl"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto event = nlohmann::json::parse(r.out);
  EXPECT_EQ(event["rank"], 3);
  EXPECT_EQ(event["host"], "cn007");
  EXPECT_EQ(event["event"], "quarantined");
  EXPECT_EQ(event["time"], 1764288060.0);
  r = run({"export", log_.string(), "--table", "rank_events"});
  EXPECT_EQ(r.out.rfind("time,rank,host,event,reason\n", 0), 0u) << r.out;

  const auto v3 = dir_ / "v3.h5";
  test_support::write_old_log(3, v3, {sample_row(0)}, {}, sample_provenance());
  r = run({"export", v3.string(), "--table", "rank_events"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("this log has no rank events (schema 3)"), std::string::npos) << r.err;
  r = run({"summary", v3.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(ResultsTool, StagesListsEventsAndTheCurrentStage) {
  const ToolRun r = run({"stages", log_.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("o0 -> o1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("best_gflops"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("current stage"), std::string::npos) << r.out;
}

TEST_F(ResultsTool, ArchiveListsNichesAndElites) {
  const ToolRun r = run({"archive", log_.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("openmp+blocking|ijk|32x32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("20.25"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(sha256_hex(kSource).substr(0, 12)), std::string::npos) << r.out;
}

TEST_F(ResultsTool, SaysASchema1LogHasNoStageEventsOrArchive) {
  const auto v1 = v1_log().string();
  for (const auto &args : std::vector<std::vector<std::string>>{
           {"stages", v1}, {"export", v1, "--table", "stage_events"}}) {
    const ToolRun r = run(args);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("this log has no stage events (schema 1)"), std::string::npos) << r.err;
  }
  for (const auto &args : std::vector<std::vector<std::string>>{
           {"archive", v1}, {"export", v1, "--table=archive", "--format=jsonl"}}) {
    const ToolRun r = run(args);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("this log has no archive (schema 1)"), std::string::npos) << r.err;
  }
}

TEST_F(ResultsTool, ExportsStageEventsAndArchive) {
  ToolRun r = run({"export", log_.string(), "--table", "stage_events", "--format", "jsonl"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto event = nlohmann::json::parse(r.out);
  EXPECT_EQ(event["to"], "o1");
  EXPECT_EQ(event["rows_before"], 40);

  r = run({"export", log_.string(), "--table", "archive"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("problem,stage,niche,change,candidate_id,", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("new_niche,cand-0,batch-0,20.25,"), std::string::npos) << r.out;
}

TEST_F(ResultsTool, RejectsAnUnknownExportTable) {
  const ToolRun r = run({"export", log_.string(), "--table", "sources"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--table must be rewards, stage_events, archive or rank_events"), std::string::npos)
      << r.err;
}

TEST_F(ResultsTool, ExportsCsvByDefault) {
  const ToolRun r = run({"export", log_.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("candidate_id,batch_id,", 0), 0u) << r.out;
  EXPECT_NE(r.out.find(",techniques,loop_order,tile_sizes,archive,device,measurement_key,measured_as,measured_batch,"
                       "openblas_gflops,cublas_gflops,cublaslt_gflops,feedback,episode,turn\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(R"("error: expected ';', got ""}""")"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(",openmp+blocking,ikj,64x64,new_niche,cpu,,,,0,0,0,,,0\n"), std::string::npos) << r.out;
}

TEST_F(ResultsTool, ExportsJsonLines) {
  const ToolRun r = run({"export", log_.string(), "--format", "jsonl"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::vector<nlohmann::json> rows;
  for (std::string line; std::getline(lines, line);) rows.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["gflops"], 12.5);
  EXPECT_EQ(rows[1]["status"], "compile_error");
  EXPECT_EQ(rows[0]["techniques"], "openmp+blocking");
  EXPECT_EQ(rows[1]["techniques"], "");
}

TEST_F(ResultsTool, RejectsAnUnknownExportFormat) {
  const ToolRun r = run({"export", log_.string(), "--format=xml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("xml"), std::string::npos) << r.err;
}

TEST_F(ResultsTool, PrintsAStoredSourceExactly) {
  const ToolRun r = run({"source", log_.string(), sha256_hex(kSource)});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, kSource);
}

TEST_F(ResultsTool, FailsOnAnUnknownHash) {
  const ToolRun r = run({"source", log_.string(), sha256_hex("not stored")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(sha256_hex("not stored")), std::string::npos) << r.err;
}

TEST_F(ResultsTool, PrintsProvenanceAsJson) {
  const ToolRun r = run({"provenance", log_.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto provenance = nlohmann::json::parse(r.out);
  EXPECT_EQ(provenance["schema_version"], kRewardLogSchemaVersion);
  EXPECT_EQ(provenance["config"]["stages"][1], "o3");  // nested, not a quoted string
}

TEST_F(ResultsTool, NamesAMissingFile) {
  const auto missing = (dir_ / "missing.h5").string();
  const ToolRun r = run({"summary", missing});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
}

TEST_F(ResultsTool, RejectsAnUnknownCommand) {
  const ToolRun r = run({"draw", log_.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown command 'draw'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("usage:"), std::string::npos) << r.err;
}

TEST_F(ResultsTool, RejectsMissingArguments) {
  EXPECT_EQ(run({}).exit_code, 2);
  EXPECT_EQ(run({"summary"}).exit_code, 2);
  EXPECT_EQ(run({"source", log_.string()}).exit_code, 2);
  EXPECT_EQ(run({"stages"}).exit_code, 2);
  EXPECT_EQ(run({"archive"}).exit_code, 2);
}

TEST_F(ResultsTool, UsageNamesEveryCommand) {
  const ToolRun r = run({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char *command : {"summary", "stages", "archive", "export", "source", "provenance"})
    EXPECT_NE(r.out.find(std::string("  ") + command + " FILE.h5"), std::string::npos) << command;
  EXPECT_NE(r.out.find("--table rewards|stage_events|archive"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace hpcreward
