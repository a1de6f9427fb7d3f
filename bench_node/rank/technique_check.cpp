#include "bench_node/rank/technique_check.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

#include "bench_node/checks/compiler.hpp"
#include "bench_node/source_checks/forked_call.hpp"
#include "bench_node/source_checks/omp_header.hpp"
#include "common/number_text.hpp"
#include "stages/ladder_config.hpp"
#include "techniques/technique_detection.hpp"
#include "techniques/simd_clones.hpp"
#include "techniques/technique_json.hpp"

namespace hpcreward {

namespace tq = techniques;
using nlohmann::json;

namespace {

// The child's answer: the halves of detection it was asked for, as found (the parent applies
// the rules): the source half only when the memo did not have it.
std::string encode(const std::optional<tq::SourceTechniques> &source,
                   const std::optional<tq::ObjectTechniques> &object) {
  json answer = json::object();
  if (source) answer["source"] = tq::to_json(*source);
  if (object) answer["object"] = tq::to_json(*object);
  return answer.dump();
}

}  // namespace

TechniqueCheck::TechniqueCheck(const TechniqueCheckOptions &options) : options_(options) {
  std::filesystem::path parent = options_.work_root;
  if (parent.empty())
    parent = std::filesystem::temp_directory_path();
  else
    ensure_private_directory(parent);
  owned_root_ = std::make_unique<WorkDir>(parent, "hpcreward-techniques");
  const std::filesystem::path &root = owned_root_->path();
  if (source_checks::install_compiler_omp_header(options_.cc, root / "include"))
    include_dir_ = root / "include";
}

TechniqueCheck::~TechniqueCheck() = default;

std::optional<source_checks::SourceTechniqueFindings> TechniqueCheck::remembered(
    const BenchTask &task) const {
  if (!options_.source_memo) return std::nullopt;
  return options_.source_memo->recall(task);
}

tq::VectorIsa TechniqueCheck::target_isa(const std::vector<std::string> &flags) {
  const std::lock_guard lock(isa_mutex_);
  if (auto found = isa_by_flags_.find(flags); found != isa_by_flags_.end()) return found->second;
  const std::string macros = predefined_macros(options_.cc, flags);
  if (macros.find("#define __x86_64__ ") == std::string::npos)
    throw std::runtime_error("technique detection: " + options_.cc + " -dM -E does not say what the stage's flags target");
  return isa_by_flags_.emplace(flags, tq::vector_isa_from_macros(macros)).first->second;
}

TechniqueAssessment TechniqueCheck::assess(const BenchTask &task,
                                           const std::filesystem::path &object) {
  const std::optional<source_checks::SourceTechniqueFindings> from_checks = remembered(task);
  if (from_checks && from_checks->failure) return detection_failed(*from_checks->failure);
  const tq::VectorIsa target = target_isa(task.compiler_flags);
  const source_checks::ForkOutcome detected = source_checks::run_forked(
      [&] {
        std::optional<tq::SourceTechniques> source;
        if (!from_checks) source = tq::detect_in_source(task.source, task.compiler_flags, include_dir_);
        const tq::DisabledClones disabled = tq::disable_simd_clones_beyond(object, target);
        tq::ObjectTechniques found = tq::detect_in_object(object);
        if (!disabled.done) found.read = false, found.error = disabled.error;
        found.disabled_simd_clones = disabled.names;
        return encode(source, found);
      },
      {options_.timeout_s, options_.memory_bytes});
  switch (detected.end) {
    case source_checks::ForkOutcome::End::returned:
      break;
    case source_checks::ForkOutcome::End::timed_out:
      return detection_failed("it ran past its " + seconds_text(options_.timeout_s) + " limit");
    case source_checks::ForkOutcome::End::out_of_memory:
      return detection_failed("it ran out of memory (" + std::to_string(options_.memory_bytes >> 20) +
                    " MiB)");
    case source_checks::ForkOutcome::End::crashed:
      return detection_failed("it crashed (" + detected.detail + ")");
    case source_checks::ForkOutcome::End::not_started:
      // A rank that can't fork can't detect: an internal failure, not the candidate's.
      throw std::runtime_error("technique detection could not start (" + detected.detail + ")");
  }

  tq::SourceTechniques source;
  tq::ObjectTechniques object_found;
  try {
    const json answer = json::parse(detected.output);
    source = from_checks ? from_checks->found : tq::source_techniques_from_json(answer.at("source"));
    object_found = tq::object_techniques_from_json(answer.at("object"));
  } catch (const std::exception &) {
    return detection_failed("its answer was unreadable");
  }
  if (!source.parsed) return detection_failed("the C parser (libclang) could not parse the source");
  if (!object_found.read) return detection_failed("the object could not be read (" + object_found.error + ")");

  TechniqueAssessment assessment;
  assessment.summary = tq::summarise(source, object_found, task.problem.nominal, target);
  assessment.verdict = check_constraints(task, assessment.summary.techniques);
  const bool avx512_refused = !assessment.verdict.ok() && assessment.verdict.reason.find("does not allow avx512") != std::string::npos;
  if (avx512_refused && source.avx512_uses == 0)
    if (const std::optional<std::string> where = tq::avx512_beyond_flags(object_found, target))
      assessment.verdict.reason += " (" + *where + ")";
  if (assessment.verdict.ok())
    if (const std::optional<std::string> beyond = tq::code_beyond_flags(object_found, target))
      assessment.verdict = {Status::constraint_violation, "stage " + task.stage + ": " + *beyond};
  return assessment;
}

std::optional<Verdict> TechniqueCheck::explain_compile_failure(const BenchTask &task) {
  tq::SourceTechniques source;
  if (const auto from_checks = remembered(task)) {
    if (from_checks->failure) return std::nullopt;
    source = from_checks->found;
  } else {
    const source_checks::ForkOutcome detected = source_checks::run_forked(
        [&] {
          return encode(tq::detect_in_source(task.source, task.compiler_flags, include_dir_),
                        std::nullopt);
        },
        {options_.timeout_s, options_.memory_bytes});
    if (detected.end != source_checks::ForkOutcome::End::returned) return std::nullopt;
    try {
      source = tq::source_techniques_from_json(json::parse(detected.output).at("source"));
    } catch (const std::exception &) {
      return std::nullopt;
    }
  }
  if (!source.parsed) return std::nullopt;
  std::string not_allowed;
  for (const std::string &technique : tq::source_technique_names(source))
    if (std::find(task.techniques_allowed.begin(), task.techniques_allowed.end(), technique) ==
        task.techniques_allowed.end())
      not_allowed += (not_allowed.empty() ? "" : ", ") + technique;
  if (not_allowed.empty()) return std::nullopt;
  return Verdict{Status::constraint_violation,
                 "stage " + task.stage + " does not allow " + not_allowed + " (in the source: " +
                     source.evidence.substr(0, 120) + "), and the code does not compile with its flags"};
}

}  // namespace hpcreward
