#pragma once
// Schema v2 (issue 4) records beside /rewards: stage events and archive changes. The
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

}  // namespace hpcreward
