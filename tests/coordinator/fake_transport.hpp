#pragma once
// In-process stand-ins for the benchmark ranks and the log, for ScoringRun tests: no MPI,
// no HDF5, no real waiting. The fake transport keeps a virtual clock: a rank answers a task
// `answer_after_s` (virtual) seconds after it was sent, or never (silent); a wait for a result
// moves the clock to the first answer due within the wait, or to the end of the wait. Hand
// the clock to ScoringContext::now and deadlines of seconds pass in microseconds.
#include <gtest/gtest.h>

#include <chrono>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "coordinator/scoring/row_sink.hpp"
#include "coordinator/ranks/transport.hpp"

namespace hpcreward::test_support {

using Clock = std::chrono::steady_clock;

inline Clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// Answers with a measurement chosen by the candidate id ("bad..." is a wrong answer,
// "...omp..." detected as OpenMP, GFLOPS from `gflops` or 3.5) and checks that no rank gets
// a second task while it holds one (CPU ranks: one slot).
class FakeTransport : public BenchTransport {
 public:
  static constexpr double kNever = std::numeric_limits<double>::infinity();
  static constexpr double kGiveUpAfterS = 1e5;

  void send_task(int rank, const BenchTask &task) override {
    EXPECT_EQ(busy_.count(rank), 0u) << "rank " << rank << " got a second task";
    busy_[rank] = task.sequence;
    sent.push_back(task);
    sent_to.push_back(rank);
    double after = answer_after_s.count(rank) ? answer_after_s[rank] : 0.001;
    if (answer_after_id.count(task.candidate_id)) after = answer_after_id[task.candidate_id];
    if (silent_after.count(rank) && sends_[rank] >= silent_after[rank]) after = kNever;
    ++sends_[rank];
    const Clock::time_point ready = after == kNever ? Clock::time_point::max() : now + seconds(after);
    pending_.push_back({rank, task, ready});
  }

  std::optional<BenchResult> receive_result(std::chrono::milliseconds timeout) override {
    ++waits;
    // A run that would wait forever fails its test instead of hanging it.
    if (now - Clock::time_point{} > seconds(kGiveUpAfterS))
      throw std::runtime_error("fake transport: still waiting after " + std::to_string(kGiveUpAfterS) +
                               " virtual seconds; the run would wait forever");
    auto first = pending_.end();
    for (auto it = pending_.begin(); it != pending_.end(); ++it)
      if (first == pending_.end() || it->ready < first->ready) first = it;
    const Clock::time_point until = now + timeout;
    if (first == pending_.end() || first->ready > until) {
      now = until;
      return std::nullopt;
    }
    now = std::max(now, first->ready);
    Pending answer = *first;
    pending_.erase(first);
    busy_.erase(answer.rank);
    return result_for(answer.rank, answer.task);
  }

  BenchResult result_for(int rank, const BenchTask &task) {
    BenchResult result;
    result.sequence = task.sequence;
    result.rank = rank;
    result.host = "node" + std::to_string(rank);
    Measurement &m = result.measurement;
    m.techniques.detected = true;
    m.techniques.loop_order = "ikj";
    if (task.candidate_id.find("omp") != std::string::npos) m.techniques.techniques = {"openmp"};
    if (task.candidate_id.starts_with("bad")) {
      m.status = Status::wrong_answer;
      m.reason = "mismatch";
    } else {
      m.status = Status::ok;
      m.gflops = gflops.count(task.candidate_id) ? gflops[task.candidate_id] : 3.5;
    }
    return result;
  }

  // The clock ScoringContext::now reads.
  std::function<Clock::time_point()> clock() {
    return [this] { return now; };
  }
  // Ids of the tasks sent to `rank`, in order.
  std::vector<std::string> sent_ids(int rank) const {
    std::vector<std::string> ids;
    for (std::size_t i = 0; i < sent.size(); ++i)
      if (sent_to[i] == rank) ids.push_back(sent[i].candidate_id);
    return ids;
  }
  std::size_t unanswered() const { return pending_.size(); }

  Clock::time_point now{};               // virtual time, from 0
  std::map<int, double> answer_after_s;  // per rank; kNever: silent; default 1 ms
  std::map<std::string, double> answer_after_id;  // per candidate id (a straggler), before the rank's
  std::map<int, int> silent_after;       // per rank: answers this many tasks, then no more
  std::vector<BenchTask> sent;
  std::vector<int> sent_to;
  std::map<std::string, double> gflops;  // by candidate id; 3.5 otherwise
  int waits = 0;

 private:
  struct Pending {
    int rank;
    BenchTask task;
    Clock::time_point ready;
  };
  std::map<int, std::int64_t> busy_;
  std::map<int, int> sends_;
  std::deque<Pending> pending_;
};

class VectorSink : public RowSink {
 public:
  void append(const RewardRow &row, std::string_view source) override {
    rows.push_back(row);
    sources.emplace_back(source);
  }
  void append_event(const StageEventRecord &event) override { events.push_back(event); }
  void append_archive(const ArchiveRecord &record) override { archive.push_back(record); }
  void append_rank_event(const RankEventRecord &event) override { rank_events.push_back(event); }
  std::vector<RewardRow> rows;
  std::vector<std::string> sources;
  std::vector<StageEventRecord> events;
  std::vector<ArchiveRecord> archive;
  std::vector<RankEventRecord> rank_events;
};

// The rows `score` (a call of ScoringRun::score, which keeps none) wrote to the sink, in order.
template <typename Score>
std::vector<RewardRow> rows_written_by(const VectorSink &sink, Score &&score) {
  const std::size_t before = sink.rows.size();
  score();
  return {sink.rows.begin() + static_cast<std::ptrdiff_t>(before), sink.rows.end()};
}

}  // namespace hpcreward::test_support
