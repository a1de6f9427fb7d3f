#pragma once
// The checks every benchmark rank runs on every candidate: the static source checks before
// compiling (the parse runs in a limited forked child: parsing hostile code is itself a
// risk), the audit of the compiled object before the runner loads it, and technique
// detection with the stage's constraint decision (technique_check.hpp, also in a limited
// forked child) once the audit passed. The two share one parse of the source: the source
// checks' child reads the techniques too (source_checks/technique_memo.hpp).
#include "bench_node/rank/bench_options.hpp"
#include "bench_node/rank/scorer.hpp"

namespace hpcreward {

void add_default_checks(Scorer &scorer, const BenchOptions &options);

}  // namespace hpcreward
