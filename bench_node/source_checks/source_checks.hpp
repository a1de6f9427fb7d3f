#pragma once
// Static checks of a candidate's C source before it is compiled (docs/design.md "Running
// untrusted code"): the candidate is never compiled, loaded or run here.
//
//   1. the text: no NUL bytes (format_error);
//   2. the preprocessor rules on a lexer of its own, before any compiler reads the file:
//      includes, directives and pragmas (preprocessor_rules.hpp with C's tables,
//      c_preprocessor_policy.hpp),
//      conditions gcc and clang would read alike (conditional_rules.hpp);
//   3. a parse by libclang, in a forked child with time and memory limits: its diagnostics
//      (diagnostic_rules.hpp), the syntax tree (ast_audit.hpp) and the entry point
//      (entry_point.hpp).
// A failed check is a Verdict: forbidden, format_error, or compile_error when the parser
// crashes or runs past its limits (a macro bomb). A syntax error alone is left to gcc - but
// clang may skip code after an error that gcc compiles (a construct only gcc accepts, 257
// nested braces), so when gcc does compile a source clang rejected, check_object refuses
// the object (compile_error): no code the checks could not read ever runs.
//
// With a SourceTechniqueMemo (technique_memo.hpp), the same forked child then reads the
// candidate's techniques from the same translation unit, so each candidate is parsed once
// for both (plus the serial parse technique detection needs under -fopenmp).
#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench_node/checks/candidate_check.hpp"
#include "bench_node/source_checks/c_lexer.hpp"
#include "bench_node/source_checks/forked_call.hpp"
#include "bench_node/source_checks/technique_memo.hpp"
#include "c_analysis/libclang_handles.hpp"

namespace hpcreward {

struct SourceCheckOptions {
  std::string cc = "gcc";  // the candidates' compiler: its omp.h is what the parser reads
  // A private directory for that omp.h and the precompiled preambles; empty: a new one in
  // $TMPDIR, removed with the checks (and by the next checks, if its process died first).
  std::filesystem::path work_root;
  double parse_timeout_s = 10;                    // wall clock of one parse
  std::uint64_t parse_memory_bytes = 2ULL << 30;  // address space the parse may add
  std::size_t preamble_cache_entries = 8;         // precompiled preambles kept (0: none)
  // Where the techniques read from the checks' parse go; null: not read (the technique step
  // parses on its own). The reading gets its own wall-clock budget after the parse's.
  std::shared_ptr<source_checks::SourceTechniqueMemo> technique_memo;
  double technique_timeout_s = 30;
};

// One per scoring thread: check_object remembers what check_source saw.
class SourceChecks : public CandidateCheck {
 public:
  // Throws std::runtime_error when libclang can't be initialised or the work root made.
  explicit SourceChecks(const SourceCheckOptions &options = {});
  ~SourceChecks() override;
  SourceChecks(const SourceChecks &) = delete;
  SourceChecks &operator=(const SourceChecks &) = delete;

  std::string_view name() const override { return "source checks"; }
  Verdict check_source(const BenchTask &task) override;
  // compile_error for a task whose source clang rejected but gcc compiled; otherwise ok.
  Verdict check_object(const BenchTask &task, const std::filesystem::path &object) override;

 private:
  // Step 3, in the forked child: sends the verdict and clang's first error in the
  // candidate, then (with a memo, for a passing candidate) the techniques in the same unit.
  void parse_and_audit(const BenchTask &task, const std::vector<source_checks::Token> &tokens,
                       const source_checks::Send &send);
  // The parse's outcome: the verdict, and the techniques into the memo.
  Verdict judge(const BenchTask &task, const source_checks::ForkOutcome &parsed);
  void remember_rejection(const BenchTask &task, std::string error);

  SourceCheckOptions options_;
  std::filesystem::path owned_root_;  // removed in the destructor
  std::filesystem::path root_;
  std::filesystem::path include_dir_;  // holds omp.h; empty when the compiler has none
  c_analysis::IndexHandle index_;  // created once, used by every (forked) parse
  // Tasks that passed with clang errors in their source: key (sequence and source), error.
  std::deque<std::pair<std::string, std::string>> rejected_by_parser_;
};

}  // namespace hpcreward
