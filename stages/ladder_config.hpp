#pragma once
// The stage ladder as configuration: stages with their flags, allowed and
// required techniques and advancement rules, read from a JSON file and validated at start.
// A stage may name only its own language's techniques (techniques/known_techniques.hpp).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/messages.hpp"
#include "common/problem.hpp"
#include "common/status.hpp"
#include "stages/qd_archive.hpp"

namespace hpcreward {

enum class RuleType {
  best_gflops,            // best verified GFLOPS in the stage >= threshold
  best_fraction_of_blas,  // best verified GFLOPS / OpenBLAS GFLOPS on that rank >= threshold
  // best verified GFLOPS / the problem's best yardstick (at its own shape, on the rank that
  // measured the row: common/yardsticks.hpp) >= threshold
  best_fraction_of_yardstick,
  success_rate,           // ok fraction over the last `window` candidates >= threshold
  plateau,                // best not improved over `window` batches
  max_candidates,         // `window` candidates scored in the stage
};
std::string_view to_string(RuleType type);
std::optional<RuleType> parse_rule_type(std::string_view text);

struct AdvanceRule {
  RuleType type = RuleType::best_gflops;
  double threshold = 0;  // GFLOPS, a fraction of OpenBLAS or of a yardstick, or an ok fraction; unused otherwise
  int window = 0;        // candidates (success_rate, max_candidates) or batches (plateau)
};

struct StageSpec {
  std::string name;
  Language language = Language::c;  // "language" in the file: "c" (default) or "cuda"
  std::vector<std::string> compiler_flags;
  std::vector<std::string> techniques_allowed;
  std::vector<std::string> techniques_required;
  // Libraries beyond the toolkit its candidates may include ("libraries"; common/stage_libraries.hpp).
  std::vector<std::string> libraries;
  std::vector<AdvanceRule> advance;  // any one rule firing advances the problem
};

// What to do when the host cannot run a stage that requires AVX-512.
enum class UnsupportedPolicy { skip, refuse };

struct LadderConfig {
  std::vector<StageSpec> stages;         // every stage a candidate may name, ladder or not
  std::vector<std::string> ladder;       // the order C problems advance through ("ladder")
  std::vector<std::string> cuda_ladder;  // CUDA problems ("cuda_ladder"; empty: none)
  UnsupportedPolicy avx512_unsupported = UnsupportedPolicy::skip;
  ArchiveShaping shaping;           // off unless the file turns it on

  const StageSpec *find(std::string_view name) const;
  // The ladder that problems of `language` climb (may be empty for CUDA).
  const std::vector<std::string> &ladder_for(Language language) const;
  // Position of `name` in the language's ladder; nullopt for stages outside it (like `open`).
  std::optional<std::size_t> ladder_index(std::string_view name, Language language = Language::c) const;
};

// Every stage name, comma-separated, for error messages.
std::string stage_names(const LadderConfig &config);

// Both throw std::invalid_argument naming the source, the stage and what to fix.
LadderConfig parse_ladder_config(std::string_view json_text, std::string_view source_name);
LadderConfig load_ladder_config(const std::string &path);

// C ladder stages this host cannot run (they require avx512 and the host lacks it), each with
// the reason to log. CUDA stages are never unsupported here. Under the `refuse` policy a non-empty answer means: refuse the run.
struct UnsupportedStage {
  std::string stage;
  std::string reason;
};
std::vector<UnsupportedStage> unsupported_stages(const LadderConfig &config, bool host_has_avx512);
// Why this host cannot run `stage` (ladder or not); nullopt when it can (always for CUDA stages).
std::optional<std::string> unsupported_reason(const StageSpec &stage, bool host_has_avx512);

// The stage's constraint decision on what detection found the candidate really uses: ok, or
// constraint_violation naming each technique used but not allowed and each required one missing.
Verdict check_constraints(const StageSpec &stage, const std::vector<std::string> &techniques_used);
// The same for the stage a task names (its allowed and required techniques travel with it).
Verdict check_constraints(const BenchTask &task, const std::vector<std::string> &techniques_used);

}  // namespace hpcreward
