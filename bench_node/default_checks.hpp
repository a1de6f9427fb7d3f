#pragma once
// The checks every benchmark rank runs on every candidate: the static source checks before
// compiling (the parse runs in a limited forked child: parsing hostile code is itself a
// risk) and the audit of the compiled object before the runner loads it.
#include "bench_node/bench_options.hpp"
#include "bench_node/scorer.hpp"

namespace hpcreward {

void add_default_checks(Scorer &scorer, const BenchOptions &options);

}  // namespace hpcreward
