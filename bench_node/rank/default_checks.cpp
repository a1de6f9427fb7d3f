#include "bench_node/rank/default_checks.hpp"

#include <memory>

#include "bench_node/object_audit/c_object_audit.hpp"
#include "bench_node/source_checks/source_checks.hpp"
#include "bench_node/rank/technique_check.hpp"

namespace hpcreward {

void add_default_checks(Scorer &scorer, const BenchOptions &options) {
  // One parse per candidate: the source checks' child also reads the techniques from its
  // parse and leaves them in this memo for the technique step.
  auto memo = std::make_shared<source_checks::SourceTechniqueMemo>();
  // Source first: nothing reaches the compiler that these refuse (device-file includes).
  SourceCheckOptions source;
  source.cc = options.cc;
  source.parse_timeout_s = options.compile_timeout_s;
  source.parse_memory_bytes = options.compile_memory_limit_mb << 20;
  source.technique_memo = memo;
  source.technique_timeout_s = options.compile_timeout_s;
  scorer.add_check(std::make_unique<SourceChecks>(source));
  // The audit's baseline builds and the detector's omp.h copy get private directories inside
  // the rank's work root, removed with the checks; a killed rank's go with its root
  // (remove_stale_work_roots).
  scorer.add_check(c_object_audit(ObjectAuditOptions{gcc_options(options), options.work_root}));
  // Only objects the audit passed are disassembled; the parse gets the source checks' limits.
  TechniqueCheckOptions techniques;
  techniques.cc = options.cc;
  techniques.timeout_s = options.compile_timeout_s;
  techniques.memory_bytes = options.compile_memory_limit_mb << 20;
  techniques.work_root = options.work_root;
  techniques.source_memo = memo;
  scorer.set_technique_step(std::make_unique<TechniqueCheck>(techniques));
}

}  // namespace hpcreward
