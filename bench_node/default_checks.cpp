#include "bench_node/default_checks.hpp"

#include <memory>

#include "bench_node/object_audit/object_audit.hpp"

namespace hpcreward {

void add_default_checks(Scorer &scorer, const BenchOptions &options) {
  // The audit's baseline builds get a private directory of their own, removed with it.
  scorer.add_check(std::make_unique<ObjectAudit>(ObjectAuditOptions{gcc_options(options), {}}));
}

}  // namespace hpcreward
