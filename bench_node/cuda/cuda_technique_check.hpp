#pragma once
// The CUDA technique step of a GPU rank: applies CUDA detection (techniques/sass_techniques.hpp;
// techniques/README.md says what each technique is and how it is found) to the SASS cuobjdump
// prints of a compiled candidate (sass_dump.hpp), and asks the stage
// (stages/ladder_config.hpp check_constraints against the task's allowed and required
// techniques). Runs after the object audit passed, before the runner loads the object. The
// CPU rank's step is bench_node/rank/technique_check.hpp.
//
// Nothing forks without exec here: cuobjdump and nvdisasm run as limited children, and the
// parse is plain text processing in the rank. Detection that cannot finish (a tool missing
// at run time, past its deadline, killed, failing, a dump too large or unreadable) is a
// constraint_violation, "technique detection failed: ...", never ok: the stage's rules could
// not be shown to hold, and breaking the detector must not pay better than obeying them.
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
