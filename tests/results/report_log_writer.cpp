// Writes a reward log with the real writer for the tests of hpcreward_report (tests/results/report).
//   results_report_log_writer LOG ROWS DELAY_MS [--die] [--pause-after N]
// ROWS rows over two problems (dgemm-256, sgemm-512), each moving from o0 to o3 a third of the
// way in (a stage event), with every status, archive records, sources and one rank event;
// DELAY_MS between appends so a reader can follow it live. Prints "first row" once the first row
// is flushed. With --pause-after N it prints "paused" once N rows are flushed and waits for a
// line on stdin before it goes on, so a test can look at a live log at a known point. With --die
// it ends with _exit after the last append, never closing the log, as a killed run does (its
// superblock keeps the "open for writing" mark).
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "common/sha256.hpp"
#include "results/reward_log.hpp"
#include "test_support.hpp"

using namespace hpcreward;

namespace {

constexpr double kStart = 1732240000.0;  // fixed times: the pictures do not depend on the clock
const char *kStatuses[] = {"ok", "ok", "ok", "wrong_answer", "ok", "compile_error", "ok", "forbidden", "ok", "timeout"};

std::string kernel(int n) {
  // Hostile text in every source: the report must show it, never run it.
  return "// candidate " + std::to_string(n) + " </pre><script>alert('x')</script>" +
         "\nvoid matmul(int m, int n, int k, const double *A, const double *B, double *C) {\n"
         "  for (int i = 0; i < m; ++i)\n    for (int j = 0; j < n; ++j) {\n      double sum = 0;\n"
         "      for (int p = 0; p < k; ++p) sum += A[i * k + p] * B[p * n + j];\n      C[i * n + j] = sum;\n    }\n}\n";
}

}  // namespace

int main(int argc, char **argv) {
  constexpr const char *kUsage = "usage: results_report_log_writer LOG ROWS DELAY_MS [--die] [--pause-after N]\n";
  if (argc < 4) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string path = argv[1];
  const int rows = std::atoi(argv[2]);
  const auto delay = std::chrono::milliseconds(std::atoi(argv[3]));
  bool die = false;
  int pause_after = -1;
  for (int i = 4; i < argc; ++i) {
    const std::string option = argv[i];
    if (option == "--die") {
      die = true;
    } else if (option == "--pause-after" && i + 1 < argc) {
      pause_after = std::atoi(argv[++i]);
    } else {
      std::cerr << kUsage;
      return 2;
    }
  }

  Provenance provenance = test_support::sample_provenance();
  provenance.hosts_json =
      R"([{"rank":1,"host":"node01","kind":"cpu","peak_gflops_f64":55.0,"peak_gflops_f32":80.0},)"
      R"({"rank":2,"host":"node02","kind":"cpu","peak_gflops_f64":40.0,"peak_gflops_f32":0.0}])";
  RewardLogWriter log(path, provenance);
  const char *problems[] = {"dgemm-256", "sgemm-512"};
  const char *loops[] = {"ijk", "ikj", "kij"};
  for (int n = 0; n < rows; ++n) {
    const std::string problem = problems[n % 2];
    const bool advanced = n >= rows / 3;
    if (n == rows / 3 || n == rows / 3 + 1) {  // each problem moves up once
      StageEventRecord event;
      event.problem = problem;
      event.from = "o0";
      event.to = "o3";
      event.rule = "best_gflops";
      event.detail = "best 2.5 GFLOPS >= 2";
      event.time = kStart + 3.0 * n - 1.0;
      event.rows_before = static_cast<unsigned>(n);
      log.append_event(event);
    }
    RewardRow row = test_support::sample_row(n);
    const std::string source = kernel(n);
    row.candidate_id = "c" + std::to_string(n) + (n == rows - 2 ? "\x1b[2J<b>" : "");  // trainers choose ids
    row.batch_id = "batch-" + std::to_string(n / 4);
    row.problem = problem;
    row.stage = advanced ? "o3" : "o0";
    row.status = kStatuses[n % 10];
    row.reason = row.status == "ok" ? "" : "test: " + row.status;
    row.gflops = row.status == "ok" ? (advanced ? 5.0 : 1.0) + 0.1 * n : 0.0;
    row.reward = row.status == "ok" ? row.gflops : -10.0 * (1 + n % 4);
    row.openblas_gflops = 8.0 + (n % 2);  // the rank's yardstick for the problem, on every row
    row.cv = 0.01 + 0.002 * (n % 7);
    row.time = kStart + 3.0 * n;
    row.source_sha256 = sha256_hex(source);
    row.techniques = "plain";
    row.loop_order = loops[n % 3];
    row.tile_sizes = n % 4 == 0 ? "32x32" : "";
    row.archive = "";
    log.append(row, source);
    if (row.status == "ok" && (advanced || n < 6)) {  // a few o0 niches, every o3 ok row
      ArchiveRecord record;
      record.problem = problem;
      record.stage = row.stage;
      record.niche = "plain|" + row.loop_order + "|" + (row.tile_sizes.empty() ? "-" : row.tile_sizes);
      record.change = "new_niche";
      record.candidate_id = row.candidate_id;
      record.batch_id = row.batch_id;
      record.gflops = row.gflops;
      record.source_sha256 = row.source_sha256;
      record.time = row.time;
      record.row_index = static_cast<unsigned>(n);
      log.append_archive(record);
    }
    if (n == 0) std::cout << "first row" << std::endl;
    if (n == rows / 2) {
      RankEventRecord lost;
      lost.time = row.time;
      lost.rank = 2;
      lost.host = "node02";
      lost.event = "quarantined";
      lost.reason = "test: no answer for 75 s";
      log.append_rank_event(lost);
    }
    if (n + 1 == pause_after) {
      std::cout << "paused" << std::endl;
      std::string go_on;
      std::getline(std::cin, go_on);
    }
    std::this_thread::sleep_for(delay);
  }
  if (die) _exit(9);  // no destructor: the log keeps its "open for writing" mark
  return 0;
}
