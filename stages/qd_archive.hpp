#pragma once
// The quality-diversity archive: per (problem, stage), niches keyed by the
// candidate's technique descriptor, each keeping its elite, the best verified candidate.
// Pure bookkeeping: the caller supplies the descriptor key and only decides what to log.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hpcreward {

// Optional reward shaping, off by default so rewards stay the raw measurement.
struct ArchiveShaping {
  bool enabled = false;
  double new_niche_bonus = 0;  // added when a candidate fills an empty niche
  double new_elite_bonus = 0;  // added when a candidate beats a niche's elite
};

struct Elite {
  std::string candidate_id;
  double gflops = 0;
  std::string source_sha256;
  bool operator==(const Elite &) const = default;
};

enum class ArchiveChange { new_niche, new_elite, no_change };
std::string_view to_string(ArchiveChange change);

struct ArchiveUpdate {
  ArchiveChange change = ArchiveChange::no_change;
  std::optional<Elite> previous;  // the elite replaced by a new_elite
  double bonus = 0;               // shaping bonus to add to the reward; 0 when shaping is off
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
  // beats an elite only with strictly more GFLOPS, so the first to reach a speed keeps it.
  ArchiveUpdate update(const ArchiveEntry &entry);

  const Elite *elite(const std::string &problem, const std::string &stage,
                     const std::string &descriptor_key) const;
  const Niches &niches(const std::string &problem, const std::string &stage) const;
  const std::map<std::pair<std::string, std::string>, Niches> &all() const { return cells_; }

  // Replays past verified candidates in log order; equal to having updated live.
  static QdArchive rebuild(ArchiveShaping shaping, const std::vector<ArchiveEntry> &history);

  bool operator==(const QdArchive &other) const { return cells_ == other.cells_; }

 private:
  ArchiveShaping shaping_;
  std::map<std::pair<std::string, std::string>, Niches> cells_;  // (problem, stage) -> niches
};

}  // namespace hpcreward
