#pragma once
// Static checks of a CUDA candidate's source before nvcc sees it (docs/design.md "Running
// untrusted code"), on the C checks' own lexer (bench_node/source_checks/c_lexer.hpp, in
// C++ mode: digit separators, no trigraphs); the candidate is never compiled, parsed by a
// compiler library, loaded or run here, and nothing forks.
//
//   1. the text: no NUL bytes (format_error);
//   2. the C checks' preprocessor and attribute rules (source_checks/preprocessor_rules.hpp,
//      attribute_rules.hpp) with CUDA's tables (cuda_preprocessor_policy.hpp,
//      cuda_attribute_policy.hpp; CUTLASS's includes by the stage's libraries), and
//      no __managed__ (managed memory): forbidden;
//   3. `matmul` must appear as an identifier (format_error); whether the object really
//      exports it, extern "C", is the object audit's to say.
// Not here, by design: asm. Device code uses inline PTX (mma, cp.async, ldmatrix), and a
// token rule cannot tell host asm from device asm; the object audit reads the host code.
// Stateless and thread-safe: one instance may serve every worker thread of a rank.
#include <string_view>

#include "bench_node/checks/candidate_check.hpp"

namespace hpcreward {

class CudaSourceChecks : public CandidateCheck {
 public:
  // `cute_available`: the rank's compiler is given CuTe headers; `cutlass_utilities`: CUTLASS's
  // host utilities beside them (cutlass/util). Without them a task of a stage that allows CuTe,
  // or all of CUTLASS, is a compile_error the node decided (node_failure.hpp).
  explicit CudaSourceChecks(bool cute_available = false, bool cutlass_utilities = false)
      : cute_available_(cute_available), cutlass_utilities_(cutlass_utilities) {}
  std::string_view name() const override { return "CUDA source checks"; }
  Verdict check_source(const BenchTask &task) override;

 private:
  bool cute_available_;
  bool cutlass_utilities_;
};

}  // namespace hpcreward
