#pragma once
// Checks a candidate must pass before it runs: the static source checks and the audit of
// the compiled object plug in as CandidateChecks. A failed check is a Verdict (forbidden,
// constraint_violation, format_error), never an exception.
//
// Technique detection is a step of its own (TechniqueStep): besides a verdict it produces a
// description of the candidate (TechniqueSummary) that travels back in the Measurement
// whatever the run makes of the candidate.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "common/messages.hpp"
#include "common/status.hpp"
#include "common/technique_summary.hpp"

namespace hpcreward {

class CandidateCheck {
 public:
  virtual ~CandidateCheck() = default;
  virtual std::string_view name() const = 0;
  // Before compiling: the task as received.
  virtual Verdict check_source(const BenchTask &) { return {}; }
  // After compiling: the shared object the runner would load.
  virtual Verdict check_object(const BenchTask &, const std::filesystem::path &) { return {}; }
};

// What technique detection found in a compiled candidate, and the stage's decision on it:
// ok, or constraint_violation (a technique used but not allowed, or a required one missing,
// or detection that could not finish).
struct TechniqueAssessment {
  TechniqueSummary summary;  // detected = true when detection finished
  Verdict verdict;
};

// Detection that could not finish: constraint_violation saying what went wrong.
inline TechniqueAssessment detection_failed(const std::string &what) {
  TechniqueAssessment assessment;
  assessment.verdict = {Status::constraint_violation,
                        "technique detection failed: " + what + "; the stage's technique rules could not be checked"};
  assessment.summary.evidence = assessment.verdict.reason;  // detected stays false
  return assessment;
}

// Runs after every CandidateCheck passed on the object, before the runner loads it.
class TechniqueStep {
 public:
  virtual ~TechniqueStep() = default;
  virtual TechniqueAssessment assess(const BenchTask &task, const std::filesystem::path &object) = 0;
  // The candidate did not compile with the stage's flags. If its source uses a technique the
  // stage does not allow (AVX-512 intrinsics without -mavx512f fail to compile), that is the
  // decision: constraint_violation. nullopt leaves the compile_error.
  virtual std::optional<Verdict> explain_compile_failure(const BenchTask &) { return std::nullopt; }
};

}  // namespace hpcreward
