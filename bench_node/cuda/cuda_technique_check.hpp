#pragma once
// Technique detection on a GPU rank: which of smem, tensor and async a compiled
// CUDA candidate's device code really uses (techniques/sass_techniques.hpp, on the
// SASS cuobjdump prints: sass_dump.hpp) and the stage's decision on it
// (stages/ladder_config.hpp check_constraints against the task's allowed and required
// techniques). Runs after the object audit passed, before the runner loads the object.
//
// Nothing forks without exec here: cuobjdump and nvdisasm run as limited children, and the
// parse is plain text processing in the rank. Detection that cannot finish (a tool missing
// at run time, past its deadline, killed, failing, a dump too large or unreadable) is a
// constraint_violation, "technique detection failed: ...", never ok: the stage's rules could
// not be shown to hold, and breaking the detector must not pay better than obeying them.
// TechniqueSummary: techniques in the order smem, tensor, async; loop_order and tile_sizes
// stay empty for CUDA.
#include <string>

#include "bench_node/checks/candidate_check.hpp"
#include "bench_node/cuda/sass_dump.hpp"

namespace hpcreward {

struct CudaTechniqueOptions {
  SassDumpOptions dump;         // cuobjdump, nvdisasm, their limits
  std::string arch = "sm_90a";  // only cubins for the rank's GPU count
};

// Thread-safe: one instance may serve every worker thread of a rank.
class CudaTechniqueStep : public TechniqueStep {
 public:
  // Throws std::invalid_argument when cuobjdump or nvdisasm can't be found (a rank that
  // can't detect must not start), or the arch is not one.
  explicit CudaTechniqueStep(CudaTechniqueOptions options);
  TechniqueAssessment assess(const BenchTask &task, const std::filesystem::path &object) override;
  // No source-level detection for CUDA: the stage's flags do not gate techniques (a WMMA
  // kernel compiles in every stage), so a compile_error stays one.
  std::optional<Verdict> explain_compile_failure(const BenchTask &) override { return std::nullopt; }

 private:
  CudaTechniqueOptions options_;
};

}  // namespace hpcreward
