#pragma once
// Everything a GPU rank does to a CUDA candidate before it runs, assembled (the CUDA
// counterpart of bench_node/rank/default_checks.hpp):
//   compile      make_cuda_compiler: nvcc (nvcc_compiler.hpp) behind the compile cache
//                (caching_compiler.hpp); the Scorer is built with it
//   source       CudaSourceChecks (cuda_source_checks.hpp): includes, directives, pragmas,
//                attributes, on the project's own lexer
//   object       the object audit with CUDA's tables (cuda_object_audit.hpp): imports,
//                libraries, load-time code, exports, host instructions
//   techniques   CudaTechniqueStep (cuda_technique_check.hpp): smem, tensor, async from the
//                SASS, and the stage's allowed and required techniques
// Nothing here forks without exec or needs a GPU; every check is thread-safe, so one Scorer's
// checks may serve every worker thread of a rank.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "bench_node/checks/compiler.hpp"
#include "bench_node/cuda/cuda_tools.hpp"
#include "bench_node/cuda/cute_headers.hpp"
#include "bench_node/cuda/nvcc_compiler.hpp"
#include "bench_node/rank/scorer.hpp"

namespace hpcreward {

struct CudaCheckOptions {
  // The candidates' compiler, also the audit's for its baselines; its arch is the rank's GPU
  // (GpuInfo::arch), which the techniques are read for.
  NvccOptions compiler{.nvcc = default_nvcc_path(), .cute_include = default_cute_include()};
  std::string cuobjdump = default_cuobjdump_path();
  std::string nvdisasm = default_nvdisasm_path();
  double detect_timeout_s = 60;                    // cuobjdump
  std::uint64_t detect_memory_bytes = 4ULL << 30;
  // The audit's baseline builds and the compile cache make private directories in here,
  // removed with them; empty: $TMPDIR.
  std::filesystem::path work_root;
  std::size_t compile_cache_entries = 256;
};

// nvcc behind the compile cache. Throws std::invalid_argument for a bad arch, and
// std::filesystem::filesystem_error when the cache directory can't be made.
std::unique_ptr<Compiler> make_cuda_compiler(const CudaCheckOptions &options);

// Adds the source checks and the object audit to `scorer` and sets the technique step.
// Throws std::invalid_argument when cuobjdump or nvdisasm is missing or the arch is bad.
void add_cuda_checks(Scorer &scorer, const CudaCheckOptions &options);

}  // namespace hpcreward
