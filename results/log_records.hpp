#pragma once
// Records beside /rewards: stage events and archive changes (schema v2), rank
// events (schema v4). The
// results library keeps its own plain records so it does not depend on stages/; the
// coordinator converts its StageEvent and archive updates into these.
#include <cstdint>
#include <string>

namespace hpcreward {

// One row of /stage_events: a problem moved from one ladder stage to the next.
struct StageEventRecord {
  std::string problem;        // at most 32 bytes
  std::string from;           // at most 32 bytes
  std::string to;             // at most 32 bytes
  std::string rule;           // at most 32 bytes: a rule type name or "unsupported_stage"
  std::string detail;         // at most 256 bytes: what the rule saw
  double time = 0;            // seconds since the Unix epoch
  std::uint64_t rows_before = 0;  // rows in /rewards when the event was logged (replay order)
  bool operator==(const StageEventRecord &) const = default;
};

// One row of /archive: a verified candidate that filled an empty niche or beat its elite.
// The archive at any moment is, per (problem, stage, niche), the last such row.
struct ArchiveRecord {
  std::string problem;       // at most 32 bytes
  std::string stage;         // at most 32 bytes
  std::string niche;         // at most 64 bytes: descriptor_key(), "openmp|ikj|64x64"
  std::string change;        // "new_niche" or "new_elite"
  std::string candidate_id;  // at most 64 bytes
  std::string batch_id;      // at most 64 bytes
  double gflops = 0;
  std::string source_sha256;  // 64 hex digits
  std::string previous_candidate_id;  // the elite replaced (new_elite); empty otherwise
  double previous_gflops = 0;
  double time = 0;               // seconds since the Unix epoch
  std::uint64_t row_index = 0;   // the /rewards row of the candidate
  bool operator==(const ArchiveRecord &) const = default;
};

// One row of /rank_events (schema v4): something the coordinator did to a benchmark rank.
// Today one event: "quarantined", a rank that held tasks and stopped answering past its
// deadline; it got no more work for the rest of that run and its tasks went to other ranks.
struct RankEventRecord {
  double time = 0;         // seconds since the Unix epoch
  std::int32_t rank = 0;   // the MPI rank
  std::string host;        // at most 64 bytes: the rank's node (SLURMD_NODENAME, else host name)
  std::string event;       // at most 32 bytes: "quarantined"
  std::string reason;      // at most 512 bytes: what was seen and what became of its tasks
  bool operator==(const RankEventRecord &) const = default;
};

}  // namespace hpcreward
