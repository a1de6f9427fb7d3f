#include "bench_node/source_checks/technique_memo.hpp"

#include <utility>

namespace hpcreward::source_checks {

void SourceTechniqueMemo::remember(const BenchTask &task, SourceTechniqueFindings findings) {
  entries_.push_back({task.sequence, task.source, task.compiler_flags, std::move(findings)});
  if (entries_.size() > kCapacity) entries_.pop_front();
}

std::optional<SourceTechniqueFindings> SourceTechniqueMemo::recall(const BenchTask &task) const {
  // Newest first: a task scored twice (a retried batch) takes its latest findings.
  for (auto entry = entries_.rbegin(); entry != entries_.rend(); ++entry)
    if (entry->sequence == task.sequence && entry->compiler_flags == task.compiler_flags &&
        entry->source == task.source)
      return entry->findings;
  return std::nullopt;
}

}  // namespace hpcreward::source_checks
