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

const source_checks::PreprocessorTable &cuda_preprocessor_table() {
  static const source_checks::PreprocessorTable table{
      .includes = cuda_include_table(),
      .pragmas = cuda_pragma_table(),
      .keyword = &cuda_keyword,
      .lex = cuda_lex_options(),
      .raw_string_note = " (the checks do not read raw strings; write an ordinary literal)",
      .libclang_parses = false};
  return table;
}

}  // namespace hpcreward::cuda_source
