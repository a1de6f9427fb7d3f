#pragma once
// One parse per candidate: the source checks' forked child, having parsed and audited a
// candidate, also reads its techniques from the same translation unit (C detection's source
// half, techniques/source_techniques.hpp) and leaves them here; the technique step of the
// same task (bench_node/rank/technique_check.hpp) takes them instead of parsing again. A task is
// recognised by its sequence, source and flags (compared in full, never by a hash a
// candidate could collide with). One memo per scoring thread, shared by its two checks.
#include <cstddef>
#include <deque>
#include <optional>
#include <string>

#include "common/messages.hpp"
#include "techniques/source_techniques.hpp"

namespace hpcreward::source_checks {

struct SourceTechniqueFindings {
  // Set when detection did not finish ("it ran past its 10 s limit"): the technique step
  // then fails the candidate exactly as if its own detection had.
  std::optional<std::string> failure;
  techniques::SourceTechniques found;
};

class SourceTechniqueMemo {
 public:
  void remember(const BenchTask &task, SourceTechniqueFindings findings);
  // nullopt when this task was not seen (or has been forgotten: only the last few are kept).
  std::optional<SourceTechniqueFindings> recall(const BenchTask &task) const;

 private:
  struct Entry {
    std::int64_t sequence;
    std::string source;
    std::vector<std::string> compiler_flags;
    SourceTechniqueFindings findings;
  };
  static constexpr std::size_t kCapacity = 16;
  std::deque<Entry> entries_;
};

}  // namespace hpcreward::source_checks
