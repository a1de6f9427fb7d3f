#include "bench_node/source_checks/c_preprocessor_policy.hpp"

#include "bench_node/source_checks/c_include_policy.hpp"
#include "bench_node/source_checks/c_pragma_policy.hpp"
#include "bench_node/source_checks/keywords.hpp"

namespace hpcreward::source_checks {

const PreprocessorTable &c_preprocessor_table() {
  // gcc ends a raw string elsewhere than a lexer without them would (and than clang).
  static const PreprocessorTable table{.includes = c_include_table(),
                                       .pragmas = c_pragma_table(),
                                       .keyword = &c_keyword,
                                       .lex = LexOptions{},
                                       .raw_string_note = " (a GNU extension)",
                                       .libclang_parses = true};
  return table;
}

}  // namespace hpcreward::source_checks
