#include "bench_node/cuda/cuda_technique_check.hpp"

#include <stdexcept>

#include "bench_node/cuda/nvcc_compiler.hpp"
#include "bench_node/environment.hpp"
#include "stages/ladder_config.hpp"
#include "stages/techniques/sass_techniques.hpp"

namespace hpcreward {

namespace {

TechniqueAssessment failed(const std::string &what) {
  TechniqueAssessment assessment;
  assessment.verdict = {Status::constraint_violation,
                        "technique detection failed: " + what +
                            "; the stage's technique rules could not be checked"};
  assessment.summary.evidence = assessment.verdict.reason;  // detected stays false
  return assessment;
}

StageSpec stage_of(const BenchTask &task) {
  StageSpec stage;
  stage.name = task.stage;
  stage.compiler_flags = task.compiler_flags;
  stage.techniques_allowed = task.techniques_allowed;
  stage.techniques_required = task.techniques_required;
  return stage;
}

}  // namespace

CudaTechniqueStep::CudaTechniqueStep(CudaTechniqueOptions options) : options_(std::move(options)) {
  if (!valid_cuda_arch(options_.arch))
    throw std::invalid_argument("CUDA technique detection: not a CUDA architecture: '" + options_.arch + "'");
  for (const std::string &tool : {options_.dump.cuobjdump, options_.dump.nvdisasm})
    if (!find_executable(tool))
      throw std::invalid_argument("CUDA technique detection needs " + tool +
                                  " (CUDA Toolkit; jobs/install-deps.sh installs it)");
}

TechniqueAssessment CudaTechniqueStep::assess(const BenchTask &task, const std::filesystem::path &object) {
  const SassDump dump = dump_sass(options_.dump, object);
  if (!dump.ok) return failed(dump.error);
  const techniques::SassTechniques found = techniques::parse_sass(dump.text, options_.arch);
  if (!found.parsed) return failed("the SASS dump could not be read (" + found.error + ")");

  TechniqueAssessment assessment;
  assessment.summary.detected = true;
  assessment.summary.techniques = techniques::sass_technique_names(found);
  assessment.summary.evidence = techniques::sass_evidence(found);
  assessment.verdict = check_constraints(stage_of(task), assessment.summary.techniques);
  return assessment;
}

}  // namespace hpcreward
