#pragma once
// The C technique step of a benchmark rank: applies C detection (techniques/, README.md says
// what each technique is and how it is found) to a compiled candidate safely, and asks the
// stage (stages/ladder_config.hpp check_constraints, against the allowed and required
// techniques the task carries). Runs after the object audit passed, before the runner loads
// the object. What is here is only how detection runs on a rank; the rules, the summary and
// its names are techniques/'s (technique_detection.hpp summarise). The GPU rank's step is
// bench_node/cuda/cuda_technique_check.hpp.
//
// Both halves of detection read hostile input: libclang parses the candidate's source and
// libelf + capstone read the object gcc made of it. So both run in a forked child with a
// wall-clock deadline and an address-space limit (source_checks/forked_call.hpp), exactly
// as the source checks' parse does, and hand back their findings as JSON text. The source
// half is normally not parsed here at all: the source checks' child read it from their own
// parse (source_checks/technique_memo.hpp), so only the object is read in this child.
//
// Before the object is read, gcc's simd clones for wider ISAs than the stage's flags are made
// unreachable in the file (techniques/simd_clones.hpp): the runner then loads what was read.
//
// When detection cannot finish (the child runs past its deadline, runs out of memory or
// crashes; libclang gives no translation unit; the object can't be read), the candidate is
// a constraint_violation, "technique detection failed: ...", in every stage: the stage's
// rules could not be shown to hold. Not forbidden (nothing hostile was found) and not a
// cheaper failure such as compile_error: constraint_violation costs as much as forbidden,
// so breaking the detector can never pay better than obeying the stage.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bench_node/checks/candidate_check.hpp"
#include "bench_node/source_checks/technique_memo.hpp"
#include "bench_node/process/work_dir.hpp"
#include "techniques/vector_isa.hpp"

namespace hpcreward {

struct TechniqueCheckOptions {
  std::string cc = "gcc";  // the candidates' compiler: its omp.h is what the parser reads
  // Where the check makes its private directory (for that omp.h), removed with the check;
  // empty: $TMPDIR.
  std::filesystem::path work_root;
  double timeout_s = 30;                      // wall clock of one detection (both halves)
  std::uint64_t memory_bytes = 2ULL << 30;    // address space the detection may add
  // The source checks' findings (SourceCheckOptions::technique_memo); a task it does not
  // hold (or a null memo) has its source parsed here, in the child, as before.
  std::shared_ptr<const source_checks::SourceTechniqueMemo> source_memo;
};

class TechniqueCheck : public TechniqueStep {
 public:
  // Throws std::filesystem::filesystem_error when the work root can't be made.
  explicit TechniqueCheck(const TechniqueCheckOptions &options = {});
  ~TechniqueCheck() override;
  TechniqueCheck(const TechniqueCheck &) = delete;
  TechniqueCheck &operator=(const TechniqueCheck &) = delete;

  // Never throws for anything the candidate does; throws std::runtime_error only when the
  // rank cannot fork (an internal failure, not the candidate's).
  TechniqueAssessment assess(const BenchTask &task, const std::filesystem::path &object) override;
  // Source evidence only (there is no object): a technique the stage does not allow, seen in
  // the syntax tree, decides. Detection failures leave the compile_error as it is.
  std::optional<Verdict> explain_compile_failure(const BenchTask &task) override;

 private:
  // What the source checks found for this task, if they hold it.
  std::optional<source_checks::SourceTechniqueFindings> remembered(const BenchTask &task) const;
  // The widest ISA the stage's flags compile for (gcc's predefined macros), asked once per set
  // of flags; throws std::runtime_error when the compiler can't say (the rank's failure).
  techniques::VectorIsa target_isa(const std::vector<std::string> &flags);

  TechniqueCheckOptions options_;
  std::unique_ptr<WorkDir> owned_root_;  // the check's private directory, removed with it
  std::filesystem::path include_dir_;    // holds omp.h; empty when the compiler has none
  std::mutex isa_mutex_;
  std::map<std::vector<std::string>, techniques::VectorIsa> isa_by_flags_;
};

}  // namespace hpcreward
