#pragma once
// The quality-diversity archive: per (problem, stage), niches keyed by the
// candidate's technique descriptor, each keeping its elite, the best verified candidate.
// Pure bookkeeping: the caller supplies the descriptor key and only decides what to log.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace hpcreward {

// Optional reward shaping, off by default so rewards stay the raw measurement. The bonuses
// are in the units of GFLOPS rewards; the coordinator scales them with the reward mode
// (RewardTable::shaping_scale), as it scales the default penalties.
struct ArchiveShaping {
  bool enabled = false;
  double new_niche_bonus = 0;  // added when a candidate fills an empty niche
  double new_elite_bonus = 0;  // added when a candidate beats a niche's elite
};

// A challenger replaces an elite only when faster by more than timing noise: by
// max(kMinEliteMargin, its spread + the elite's spread), spreads relative (the rows' `cv`,
// standard deviation over mean of the timed calls). Re-timing one kernel moves its GFLOPS by
// about its spread; the floor covers what one run's calls do not show (run-to-run, rank-to-rank).
inline constexpr double kMinEliteMargin = 0.01;
double elite_margin(double challenger_spread, double elite_spread);

struct Elite {
  std::string candidate_id;
  double gflops = 0;
  std::string source_sha256;
  double spread = 0;  // relative spread of its timing (the row's cv); 0 when unknown
  bool operator==(const Elite &) const = default;
};

enum class ArchiveChange { new_niche, new_elite, no_change };
std::string_view to_string(ArchiveChange change);

struct ArchiveUpdate {
  ArchiveChange change = ArchiveChange::no_change;
  std::optional<Elite> previous;  // the elite replaced by a new_elite
  // The cell (problem, stage) was offered this source before: it changes the archive as any
  // candidate does, but earns no bonus (re-sending a kernel must not farm re-timings).
  bool repeated_source = false;
  double bonus = 0;  // shaping bonus to add to the reward; 0 when shaping is off or repeated
};

// One verified candidate as the archive sees it, live or replayed from the log.
struct ArchiveEntry {
  std::string problem;
  std::string stage;
  std::string descriptor_key;  // e.g. "openmp+avx512|ikj|64x64"
  Elite candidate;
};

class QdArchive {
 public:
  using Niches = std::map<std::string, Elite>;  // descriptor key -> elite

  explicit QdArchive(ArchiveShaping shaping = {}) : shaping_(shaping) {}

  // Only verified (ok) candidates belong here; the caller filters on status. A candidate
  // beats an elite only with more GFLOPS than the elite's times 1 + elite_margin, so the first
  // to reach a speed keeps it and noise does not take it.
  ArchiveUpdate update(const ArchiveEntry &entry);

  const Elite *elite(const std::string &problem, const std::string &stage,
                     const std::string &descriptor_key) const;
  const Niches &niches(const std::string &problem, const std::string &stage) const;
  const std::map<std::pair<std::string, std::string>, Niches> &all() const { return cells_; }

  // Replays past verified candidates in log order; equal to having updated live.
  static QdArchive rebuild(ArchiveShaping shaping, const std::vector<ArchiveEntry> &history);

  bool operator==(const QdArchive &other) const {
    return cells_ == other.cells_ && sources_ == other.sources_;
  }

 private:
  using Cell = std::pair<std::string, std::string>;  // (problem, stage)
  ArchiveShaping shaping_;
  std::map<Cell, Niches> cells_;
  std::map<Cell, std::set<std::string>> sources_;  // every source hash offered to the cell
};

}  // namespace hpcreward
