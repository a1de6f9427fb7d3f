// Checks that h5py reads the reward log, live and finished.
//   results_h5py_live_log PYTHON CHECK_SCRIPT
// Writes a log (rows, stage events, archive records, rank events), runs `PYTHON CHECK_SCRIPT LOG
// EXPECTED.json` while the writer still has the log open (another process reading through
// SWMR, as a user watching a run would), appends more and checks again, closes and checks,
// then resumes the log, appends and checks the live resumed log. EXPECTED.json holds what
// the script must find.
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/sha256.hpp"
#include "results/export.hpp"
#include "results/reward_log.hpp"
#include "test_support.hpp"

using namespace hpcreward;

namespace {

std::string quoted(const std::string &text) {
  std::string result = "'";
  for (char c : text) result += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return result + "'";
}

// The records as JSON objects, through the same export the CLI uses.
template <typename Record>
nlohmann::json as_json(const std::vector<Record> &records) {
  std::ostringstream jsonl;
  write_jsonl(jsonl, records);
  nlohmann::json result = nlohmann::json::array();
  std::istringstream lines(jsonl.str());
  for (std::string line; std::getline(lines, line);) result.push_back(nlohmann::json::parse(line));
  return result;
}

nlohmann::json expected(const std::vector<RewardRow> &rows,
                        const std::vector<std::string> &sources,
                        const std::vector<StageEventRecord> &events,
                        const std::vector<ArchiveRecord> &archive,
                        const std::vector<RankEventRecord> &rank_events) {
  nlohmann::json result;
  result["rows"] = as_json(rows);
  result["stage_events"] = as_json(events);
  result["archive"] = as_json(archive);
  result["rank_events"] = as_json(rank_events);
  for (const std::string &source : sources) result["sources"][sha256_hex(source)] = source;
  const Provenance provenance = test_support::sample_provenance();
  result["provenance"] = {{"schema_version", kRewardLogSchemaVersion},
                          {"git_revision", provenance.git_revision},
                          {"config_json", provenance.config_json},
                          {"seed", provenance.seed}};
  return result;
}

bool check(const std::string &python, const std::string &script, const std::filesystem::path &log,
           const nlohmann::json &expectation, const char *when) {
  const auto expected_path = log.parent_path() / "expected.json";
  std::ofstream(expected_path) << expectation.dump(2);
  const std::string command = quoted(python) + " " + quoted(script) + " " + quoted(log.string()) +
                              " " + quoted(expected_path.string());
  const int status = std::system(command.c_str());
  const bool passed = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  std::cout << (passed ? "passed" : "FAILED") << ": h5py check " << when << '\n';
  return passed;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::cerr << "usage: results_h5py_live_log PYTHON CHECK_SCRIPT\n";
    return 2;
  }
  const std::string python = argv[1], script = argv[2];
  try {
    test_support::TempDir dir;
    const auto log = dir / "log.h5";
    const std::string naive =
        "void matmul(int m, int n, int k, const double *A, const double *B, double *C) {\n"
        "  /* naïve */\n}\n";
    const std::string blocked = "// blocked\n" + naive;

    std::vector<RewardRow> rows = {test_support::sample_row(0, sha256_hex(naive)),
                                   test_support::sample_row(1, sha256_hex(naive))};
    rows[1].status = "wrong_answer";
    rows[1].reason = "mismatch at C[3][7] – expected 12.5";  // non-ASCII dash
    rows[1].reward = -10;

    std::vector<StageEventRecord> events = {test_support::sample_event(0)};
    events[0].detail = "best 12.5 GFLOPS ≥ 10";  // non-ASCII
    std::vector<ArchiveRecord> archive = {
        test_support::sample_archive_record(0, sha256_hex(naive))};

    std::vector<RankEventRecord> rank_events;  // none at first: the dataset is there, empty
    auto writer = std::make_unique<RewardLogWriter>(log, test_support::sample_provenance());
    for (const RewardRow &row : rows) writer->append(row, naive);
    writer->append_event(events[0]);
    writer->append_archive(archive[0]);
    bool passed = check(python, script, log, expected(rows, {naive}, events, archive, rank_events),
                        "while the writer is open");

    rows.push_back(test_support::sample_row(2, sha256_hex(blocked)));
    writer->append(rows.back(), blocked);
    events.push_back(test_support::sample_event(1));
    writer->append_event(events.back());
    archive.push_back(test_support::sample_archive_record(2, sha256_hex(blocked)));
    writer->append_archive(archive.back());
    rank_events.push_back({1764288060.0, 2, "cn042", "quarantined", "no answer for 75 s — held c1 sent elsewhere"});
    writer->append_rank_event(rank_events.back());
    passed &= check(python, script, log, expected(rows, {naive, blocked}, events, archive, rank_events),
                    "after more appends");

    writer.reset();
    passed &= check(python, script, log, expected(rows, {naive, blocked}, events, archive, rank_events),
                    "after the writer closed");

    writer = std::make_unique<RewardLogWriter>(log, RewardLogWriter::Resume{});
    rows.push_back(test_support::sample_row(3, sha256_hex(naive)));
    writer->append(rows.back(), naive);
    events.push_back(test_support::sample_event(2));
    writer->append_event(events.back());
    rank_events.push_back({1764288120.0, 4, "cn043", "quarantined", "no answer for 71 s"});
    writer->append_rank_event(rank_events.back());
    passed &= check(python, script, log, expected(rows, {naive, blocked}, events, archive, rank_events),
                    "while a resumed writer is open");
    return passed ? 0 : 1;
  } catch (const std::exception &error) {
    std::cerr << "results_h5py_live_log: " << error.what() << '\n';
    return 1;
  }
}
