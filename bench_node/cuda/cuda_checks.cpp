#include "bench_node/cuda/cuda_checks.hpp"

#include "bench_node/cuda/caching_compiler.hpp"
#include "bench_node/cuda/cute_headers.hpp"
#include "bench_node/cuda/cuda_object_audit.hpp"
#include "bench_node/cuda/cuda_source_checks.hpp"
#include "bench_node/cuda/cuda_technique_check.hpp"

namespace hpcreward {

std::unique_ptr<Compiler> make_cuda_compiler(const CudaCheckOptions &options) {
  return std::make_unique<CachingCompiler>(
      std::make_unique<NvccCompiler>(options.compiler), nvcc_identity(options.compiler),
      CompileCacheOptions{options.work_root, options.compile_cache_entries});
}

void add_cuda_checks(Scorer &scorer, const CudaCheckOptions &options) {
  CudaTechniqueOptions techniques;
  techniques.dump.cuobjdump = options.cuobjdump;
  techniques.dump.nvdisasm = options.nvdisasm;
  techniques.dump.timeout_s = options.detect_timeout_s;
  techniques.dump.memory_bytes = options.detect_memory_bytes;
  techniques.arch = options.compiler.arch;
  auto step = std::make_unique<CudaTechniqueStep>(techniques);  // validates the tools first

  // Source first: nothing reaches nvcc that these refuse (includes outside the toolkit).
  scorer.add_check(std::make_unique<CudaSourceChecks>(!cute_version(options.compiler.cute_include).empty(),
                                                      has_cutlass_utilities(options.compiler.cute_include)));
  scorer.add_check(cuda_object_audit(CudaObjectAuditOptions{options.compiler, options.work_root}));
  scorer.set_technique_step(std::move(step));
}

}  // namespace hpcreward
