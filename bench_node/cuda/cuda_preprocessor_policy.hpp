#pragma once
// What CUDA candidates bring to the preprocessor rules (source_checks/preprocessor_rules.hpp):
// CUDA's includes (cuda_include_policy.hpp) and pragmas (cuda_pragma_policy.hpp), C's and
// C++'s keywords, nvcc's lexing (C++17: digit separators, no trigraphs), and raw strings
// refused with a hint. #elifdef is left to nvcc: no parser of the checks reads CUDA.
#include "bench_node/source_checks/preprocessor_rules.hpp"
#include "common/stage_libraries.hpp"

namespace hpcreward::cuda_source {

source_checks::LexOptions cuda_lex_options();
// With the includes of a stage by how much of CUTLASS it allows.
const source_checks::PreprocessorTable &cuda_preprocessor_table(CutlassAccess access = CutlassAccess::none);

}  // namespace hpcreward::cuda_source
