// Micro-benchmark of rank 0's per-candidate work, for tests/perf/scale_sim.py (docs/reports/scale.md).
// It links the product's own code (no product change): the binary encoding of a BenchTask and
// a BenchResult (common/messages_binary, the wire format since docs/reports/dispatch.md's third round), the Scheduler and RankWatch steps the scoring loop
// takes per result (coordinator/scoring/scoring_run.cpp), and RewardLogWriter::append (one HDF5 row,
// under the coordinator's batched flush policy; the per-row flush is measured beside it). Prints one JSON object of seconds per operation. Build: see scale_sim_micro.sh.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/messages_binary.hpp"
#include "common/problem_catalog.hpp"
#include "common/sha256.hpp"
#include "coordinator/ranks/rank_watch.hpp"
#include "coordinator/ranks/scheduler.hpp"
#include "results/reward_log.hpp"

using namespace hpcreward;
using Clock = std::chrono::steady_clock;

static double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

int main(int argc, char **argv) {
  std::string source = "void matmul(int m,int n,int k,const double*A,const double*B,double*C){}";
  if (argc > 1) {
    std::ifstream in(argv[1]);
    std::stringstream ss;
    ss << in.rdbuf();
    source = ss.str();
  }
  const std::string out_dir = argc > 2 ? argv[2] : "/tmp";
  nlohmann::json report;
  report["source_bytes"] = source.size();

  // --- Wire format: encode a task (send side), decode a result (receive side).
  BenchTask task;
  task.sequence = 12345;
  task.candidate_id = "b17-c0042";
  task.problem = *find_problem("dgemm-256");
  task.stage = "o3";
  task.compiler_flags = {"-O3", "-march=native"};
  task.techniques_allowed = {"plain", "unrolling", "blocking"};
  task.techniques_required = {};
  task.source = source;
  task.seed = 0x123456789abcdefULL;
  BenchResult result;
  result.sequence = 12345;
  result.measurement.status = Status::ok;
  result.measurement.reason = "";
  result.measurement.gflops = 3.21;
  result.measurement.median_s = 0.0104;
  result.measurement.compile_s = 0.12;
  result.measurement.verify_s = 0.2;
  result.measurement.time_s = 0.5;
  result.measurement.reps = 30;
  result.host = "node0001";
  result.device = "cpu";
  const std::string task_text = encode_task(task);
  const std::string result_text = encode_result(result);
  report["task_bytes"] = task_text.size();
  report["result_bytes"] = result_text.size();
  const int reps = 20000;
  std::size_t sink = 0;
  auto t0 = Clock::now();
  for (int i = 0; i < reps; ++i) sink += encode_task(task).size();
  report["task_encode_s"] = since(t0) / reps;
  t0 = Clock::now();
  for (int i = 0; i < reps; ++i) sink += decode_result(result_text).host.size();
  report["result_decode_s"] = since(t0) / reps;

  // --- Scheduler + RankWatch per result, steady state: every rank busy, a queue waiting.
  nlohmann::json loop = nlohmann::json::object();
  for (int n : {100, 1000, 10000}) {
    std::vector<RankCapacity> caps;
    RankWatch watch(RankWatch::Seconds(30));
    for (int r = 1; r <= n; ++r) {
      caps.push_back({r, "cpu", 1});
      watch.add_rank(r, RankWatch::Seconds(60));
    }
    Scheduler scheduler(caps);
    const int tasks = n + 4000;
    for (int s = 0; s < tasks; ++s) scheduler.enqueue(s);
    std::vector<std::int64_t> held(n + 1, -1);
    while (auto a = scheduler.next_assignment()) {
      held[a->rank] = a->sequence;
      watch.sent(a->rank, a->sequence, Clock::now());
    }
    const int steps = n >= 10000 ? 300 : 3000;
    t0 = Clock::now();
    for (int i = 0; i < steps; ++i) {
      // What one pass of ScoringRun::score's loop does around one result.
      const int rank = 1 + (i * 7919) % n;
      if (scheduler.finished()) break;
      sink += watch.overdue(Clock::now()).size();        // quarantine_overdue
      sink += scheduler.running();                        // poll_stop(scheduler.running())
      while (auto a = scheduler.next_assignment()) {      // hand out what has room
        held[a->rank] = a->sequence;
        watch.sent(a->rank, a->sequence, Clock::now());
      }
      sink += watch.next_deadline().has_value();          // wait_time()
      scheduler.complete(rank, held[rank]);               // the result arrives
      watch.answered(rank, held[rank], Clock::now());
    }
    loop[std::to_string(n)] = since(t0) / steps;
  }
  report["loop_per_result_s"] = loop;

  // --- Dispatching a batch of 512 to N idle ranks: next_assignment() scans every rank.
  nlohmann::json dispatch = nlohmann::json::object();
  for (int n : {100, 1000, 10000}) {
    std::vector<RankCapacity> caps;
    for (int r = 1; r <= n; ++r) caps.push_back({r, "cpu", 1});
    Scheduler scheduler(caps);
    const int batch = 512;
    for (int s = 0; s < batch; ++s) scheduler.enqueue(s);
    int handed = 0;
    t0 = Clock::now();
    while (auto a = scheduler.next_assignment()) sink += a->rank, ++handed;
    dispatch[std::to_string(n)] = since(t0) / (handed + 1);  // calls, the last one finding none
  }
  report["next_assignment_call_s"] = dispatch;

  // --- RewardLogWriter::append: one row + its source text. The coordinator's policy
  // (LogFlushPolicy::batched(), a flush per 1,000 rows or 100 ms; the final flush is counted),
  // and a flush after every row (what a writer without a policy does: the slow-filesystem case).
  const std::filesystem::path path = std::filesystem::path(out_dir) / "scale_sim_micro.h5";
  for (const bool batched : {true, false}) {
    std::filesystem::remove(path);
    const std::string prefix = batched ? "append" : "append_flushed_each";
    Provenance provenance;
    provenance.created_utc = "2026-01-01T00:00:00Z";
    RewardLogWriter writer(path, provenance);
    if (batched) writer.set_flush_policy(LogFlushPolicy::batched());
    const int rows = 2000;
    std::vector<double> each;
    t0 = Clock::now();
    for (int i = 0; i < rows; ++i) {
      RewardRow row;
      row.candidate_id = "b" + std::to_string(i / 512) + "-c" + std::to_string(i);
      row.batch_id = "b" + std::to_string(i / 512);
      row.problem = "dgemm-256";
      row.stage = "o3";
      row.status = "ok";
      row.reward = 3.2;
      row.gflops = 3.2;
      row.rank = 1 + i % 100;
      row.host = "node0001";
      row.device = "cpu";
      row.techniques = "plain";
      const std::string text = source + "\n// " + std::to_string(i) + "\n";  // a new source each row
      row.source_sha256 = sha256_hex(text);
      auto t1 = Clock::now();
      writer.append(row, text);
      each.push_back(since(t1));
    }
    writer.flush();
    report[prefix + "_rows"] = rows;
    report[prefix + "_mean_s"] = since(t0) / rows;
    std::sort(each.begin(), each.end());
    report[prefix + "_p50_s"] = each[each.size() / 2];
    report[prefix + "_p99_s"] = each[each.size() * 99 / 100];
    if (!batched) report["log_bytes"] = std::filesystem::file_size(path);
  }
  std::filesystem::remove(path);
  report["sink"] = sink % 2;
  std::cout << report.dump(2) << "\n";
}
