#pragma once
// What serve mode keeps in memory of a logged row after --resume: only what tells
// whether a resubmitted batch is the one the log holds (candidate id, problem, stage, the
// source's SHA-256 as 32 bytes), about a tenth of a RewardRow. The rows themselves stay in
// the log; the main thread reads a batch's rows back (RewardLogWriter::rows_of_batch) when
// it answers or goes on with that batch.
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/input/candidate_input.hpp"
#include "results/reward_row.hpp"

namespace hpcreward {

using Sha256Digest = std::array<unsigned char, 32>;

struct LoggedIdentity {
  std::string candidate_id;
  // Interned in the LoggedIdentities that holds it: a run has a handful of problems and stages.
  const std::string *problem = nullptr;
  const std::string *stage = nullptr;
  // The row's source_sha256: none (no code), a digest, or text that is no digest (it never
  // matches: a conflict is safer than answering other code from the log).
  enum class Source : unsigned char { none, digest, unreadable } source = Source::none;
  Sha256Digest source_sha256{};
};

// Where in /rewards a batch's rows lie: rows [first, end); the whole log by default.
struct LogRowRange {
  std::uint64_t first = 0;
  std::uint64_t end = std::numeric_limits<std::uint64_t>::max();
};

// One logged batch: its rows' identities in log order, and the rows of the log they span
// (so that reading them back need not scan the whole log).
struct LoggedBatch {
  std::vector<LoggedIdentity> rows;
  LogRowRange range{0, 0};
};

// The identities of logged rows, grouped by the batch_id each was logged with, in log order.
class LoggedIdentities {
 public:
  LoggedIdentities() = default;
  // A copy's identities would point into the original's names; a move keeps the set's nodes.
  LoggedIdentities(const LoggedIdentities &) = delete;
  LoggedIdentities &operator=(const LoggedIdentities &) = delete;
  LoggedIdentities(LoggedIdentities &&) = default;
  LoggedIdentities &operator=(LoggedIdentities &&) = default;
  // `log_index`: the row's index in /rewards (rows are added in log order).
  void add(const RewardRow &row, std::uint64_t log_index);
  // The batch, or null when the log holds none of it.
  const LoggedBatch *find(const std::string &batch_id) const;
  void erase(const std::string &batch_id);
  std::size_t batches() const { return batches_.size(); }
  std::size_t rows() const { return rows_; }

 private:
  std::set<std::string> names_;  // node-based: the identities' pointers stay valid
  std::map<std::string, LoggedBatch> batches_;
  std::size_t rows_ = 0;
};

// How a batch's candidates pair with the log's rows of its id: one row per candidate with
// that id, in order. `mismatch` says why they do not belong together (a row of the id for
// another problem, stage or code, or a logged id the request lacks); else `row_of[i]` is the
// index of candidate i's row, or kNoRow when it has none yet.
struct LoggedMatch {
  static constexpr std::size_t kNoRow = static_cast<std::size_t>(-1);
  std::string mismatch;
  std::vector<std::size_t> row_of;
  std::size_t matched = 0;  // candidates with a row
};
LoggedMatch match_logged_identities(const std::vector<PreparedCandidate> &candidates,
                                    const std::vector<LoggedIdentity> &logged);
// The same for rows read back from the log (a batch answered or resumed from it).
LoggedMatch match_logged_rows(const std::vector<PreparedCandidate> &candidates, const std::vector<RewardRow> &rows);

// 64 hex digits (either case) as bytes; false for anything else.
bool parse_sha256_hex(std::string_view hex, Sha256Digest *digest);

}  // namespace hpcreward
