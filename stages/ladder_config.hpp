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

// What the run's benchmark ranks can execute, for the stages that need more than every rank
// has: AVX-512 on the CPU ranks, Hopper's wgmma and TMA on the GPU ranks. A bool converts to
// it (the CPU ranks' AVX-512, every GPU rank a Hopper), as callers that know only that pass.
struct RankSupport {
  RankSupport(bool cpu_avx512 = true) : avx512(cpu_avx512) {}  // NOLINT: implicit on purpose
  bool avx512 = true;  // every CPU rank runs AVX-512F code
  // The first GPU rank that cannot run wgmma (sm_90a alone has it; Blackwell's tensor cores
  // take other instructions), as "GPU rank 2 (node7, sm_80)"; "" when every one can.
  std::string gpu_without_hopper;
  // The first GPU rank without CUTLASS's headers (CuTe), as "GPU rank 2 (node7)"; "" when every
  // one has them. Stages whose "libraries" name cute or cutlass can't be scored there.
  std::string gpu_without_cute;
};

// Ladder stages (of both ladders) these ranks cannot run, each with the reason to log: C stages
// that require AVX-512 or compile with its flags on CPU ranks without it, CUDA stages that require
// wgmma or tma where a GPU rank is not a Hopper, CUDA stages that allow CuTe or CUTLASS where a
// GPU rank has no CUTLASS headers. Under the `refuse` policy a C stage in the
// answer means: refuse the run; CUDA stages are always skipped.
struct UnsupportedStage {
  std::string stage;
  std::string reason;
  Language language = Language::c;
};
std::vector<UnsupportedStage> unsupported_stages(const LadderConfig &config, const RankSupport &support);
// Why no rank can pass `stage` with `problem`, whatever it runs on: a CUDA stage that requires
// wgmma for an fp64 problem (wgmma has no fp64 form); nullopt when one could. A ladder skips such
// a stage for that problem alone.
std::optional<std::string> unsupported_for_problem(const StageSpec &stage, const Problem &problem);
// Why these ranks cannot run `stage` (ladder or not); nullopt when they can.
std::optional<std::string> unsupported_reason(const StageSpec &stage, const RankSupport &support);

// The stage's constraint decision on what detection found the candidate really uses: ok, or
// constraint_violation naming each technique used but not allowed and each required one missing.
Verdict check_constraints(const StageSpec &stage, const std::vector<std::string> &techniques_used);
// The same for the stage a task names (its allowed and required techniques travel with it).
Verdict check_constraints(const BenchTask &task, const std::vector<std::string> &techniques_used);

}  // namespace hpcreward
