#include "bench_node/default_checks.hpp"

#include <memory>

#include "bench_node/object_audit/object_audit.hpp"
#include "bench_node/source_checks/source_checks.hpp"
#include "bench_node/technique_check.hpp"

namespace hpcreward {

std::vector<std::filesystem::path> default_check_dirs(const BenchOptions &options) {
  if (options.work_root.empty()) return {};
  return {options.work_root / "audit", options.work_root / "techniques"};
}

void add_default_checks(Scorer &scorer, const BenchOptions &options) {
  // Source first: nothing reaches the compiler that these refuse (device-file includes).
  SourceCheckOptions source;
  source.cc = options.cc;
  source.parse_timeout_s = options.compile_timeout_s;
  source.parse_memory_bytes = options.compile_memory_limit_mb << 20;
  scorer.add_check(std::make_unique<SourceChecks>(source));
  // The audit's baseline builds and the detector's omp.h copy live in the rank's work root
  // when it has one, so a killed rank's leftovers go with it (remove_stale_work_roots).
  const std::vector<std::filesystem::path> dirs = default_check_dirs(options);
  const auto inside_root = [&](std::size_t i) { return dirs.empty() ? std::filesystem::path() : dirs[i]; };
  scorer.add_check(std::make_unique<ObjectAudit>(ObjectAuditOptions{gcc_options(options), inside_root(0)}));
  // Only objects the audit passed are disassembled; the parse gets the source checks' limits.
  TechniqueCheckOptions techniques;
  techniques.cc = options.cc;
  techniques.timeout_s = options.compile_timeout_s;
  techniques.memory_bytes = options.compile_memory_limit_mb << 20;
  techniques.work_root = inside_root(1);
  scorer.set_technique_step(std::make_unique<TechniqueCheck>(techniques));
}

}  // namespace hpcreward
