#include "bench_node/cuda/cuda_technique_check.hpp"

#include <stdexcept>

#include "bench_node/cuda/nvcc_compiler.hpp"
#include "bench_node/process/environment.hpp"
#include "stages/ladder_config.hpp"
#include "techniques/sass_techniques.hpp"

namespace hpcreward {

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
  if (!dump.ok) return detection_failed(dump.error);
  const techniques::SassTechniques found = techniques::parse_sass(dump.text, options_.arch);
  if (!found.parsed) return detection_failed("the SASS dump could not be read (" + found.error + ")");

  TechniqueAssessment assessment;
  assessment.summary = techniques::summarise(found);
  assessment.verdict = check_constraints(task, assessment.summary.techniques);
  return assessment;
}

}  // namespace hpcreward
