#include "bench_node/cuda/cuda_preprocessor_policy.hpp"

#include "bench_node/cuda/cuda_include_policy.hpp"
#include "bench_node/cuda/cuda_pragma_policy.hpp"
#include "bench_node/source_checks/keywords.hpp"

namespace hpcreward::cuda_source {

namespace {

bool cuda_keyword(std::string_view name) { return source_checks::c_keyword(name) || source_checks::cxx_keyword(name); }

}  // namespace

source_checks::LexOptions cuda_lex_options() {
  source_checks::LexOptions options;
  options.trigraphs = false;        // removed in C++17, nvcc's default
  options.digit_separators = true;  // C++14: 1'000
  return options;
}

namespace {

source_checks::PreprocessorTable preprocessor_table(CutlassAccess access) {
  return {.includes = cuda_include_table(access),
          .pragmas = cuda_pragma_table(),
          .keyword = &cuda_keyword,
          .lex = cuda_lex_options(),
          .raw_string_note = " (the checks do not read raw strings; write an ordinary literal)",
          .libclang_parses = false,
          .underscore_judged_by_its_partner = access != CutlassAccess::none};
}

}  // namespace

const source_checks::PreprocessorTable &cuda_preprocessor_table(CutlassAccess access) {
  static const source_checks::PreprocessorTable without_cute = preprocessor_table(CutlassAccess::none);
  static const source_checks::PreprocessorTable with_cute = preprocessor_table(CutlassAccess::cute);
  static const source_checks::PreprocessorTable with_cutlass = preprocessor_table(CutlassAccess::all);
  switch (access) {
    case CutlassAccess::none: return without_cute;
    case CutlassAccess::cute: return with_cute;
    case CutlassAccess::all: return with_cutlass;
  }
  return without_cute;
}

}  // namespace hpcreward::cuda_source
