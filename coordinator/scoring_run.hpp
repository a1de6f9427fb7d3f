#pragma once
// Scores a list of candidates on the benchmark ranks: decided candidates (format errors)
// are logged at once, the rest are scheduled one per free rank; every candidate ends as
// exactly one row in the sink.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "coordinator/candidate_input.hpp"
#include "coordinator/reward_table.hpp"
#include "coordinator/row_sink.hpp"
#include "coordinator/transport.hpp"

namespace hpcreward {

struct ScoringContext {
  std::vector<int> ranks;   // benchmark ranks to use
  std::string host;         // the coordinator's host, for rows it decides alone
  std::uint64_t seed = 0;   // run seed; each candidate's input seed derives from it
};

// Called after each row is written, with how many rows are done out of how many.
using ProgressCallback = std::function<void(const RewardRow &, std::size_t done, std::size_t total)>;

class ScoringRun {
 public:
  ScoringRun(BenchTransport &transport, RowSink &sink, const RewardTable &rewards,
             ScoringContext context, ProgressCallback progress = {});

  // Returns the rows in the order they were written.
  std::vector<RewardRow> score(std::vector<PreparedCandidate> candidates);

 private:
  RewardRow make_row(const PreparedCandidate &candidate, const Measurement &measurement,
                     std::uint64_t seed, int rank, const std::string &host) const;
  void write(const RewardRow &row, const std::string &source);

  BenchTransport &transport_;
  RowSink &sink_;
  const RewardTable &rewards_;
  ScoringContext context_;
  ProgressCallback progress_;
  std::vector<RewardRow> rows_;
  std::size_t total_ = 0;
};

// A well-mixed per-candidate seed (splitmix64 of the run seed and the sequence number).
std::uint64_t candidate_seed(std::uint64_t run_seed, std::int64_t sequence);

}  // namespace hpcreward
