#pragma once
// hpcreward-bench --gpu: a benchmark rank that scores CUDA problems on one GPU.
// Probes its GPU in a child (properties, cuBLAS ceilings), says hello with them, then feeds
// the coordinator's tasks through a GpuTaskPipeline until told to stop. After every candidate
// that ended in timeout or runtime_error it checks the GPU with a canary in a fresh child; a GPU that
// fails it three times ends the job (fail-stop: the run resumes from its log once the GPU is
// back, docs/design.md "Running on a cluster").
#include <string>

#include "bench_node/rank/bench_options.hpp"
#include "bench_node/rank/rank_placement.hpp"

namespace hpcreward {

// Returns the process exit code; calls MPI_Abort itself for a GPU it cannot use.
int run_gpu_rank(BenchOptions options, const Placement &placement, int rank);

}  // namespace hpcreward
