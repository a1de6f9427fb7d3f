#pragma once
// The preprocessing directives of a lexed file, in every #if branch (nothing is evaluated):
// a # that starts a logical line, or follows a newline inside a comment (gcc does not take
// that one as a directive; counting it errs on the safe side).
#include <optional>
#include <string>
#include <vector>

#include "bench_node/source_checks/c_lexer.hpp"

namespace hpcreward::source_checks {

struct Directive {
  std::string name;                   // "include", "define", "pragma", ...; "" for a lone #
  const Token *name_token = nullptr;  // what follows the #, when anything does
  int line = 0;
  std::vector<const Token *> operands;  // the rest of the logical line after the name
};

// Pointers into `tokens`, which must outlive the result.
std::vector<Directive> directives_of(const std::vector<Token> &tokens);

// For each token, whether it belongs to a directive line.
std::vector<bool> directive_lines(const std::vector<Token> &tokens);

struct MacroDefinition {
  std::string name;
  int line = 0;
  bool function_like = false;
  std::vector<std::string> parameters;  // "__VA_ARGS__" for ...
  std::vector<const Token *> body;
};

// The #define directives among `directives` (a malformed one is skipped: gcc rejects it).
std::vector<MacroDefinition> macro_definitions(const std::vector<Directive> &directives);

// The preamble a precompiled header can stand for (c_analysis/preamble_cache.hpp):
// "#include <a.h>\n#include <b.h>\n" when every #include of `tokens` precedes all other
// tokens; nullopt when there is none or one comes later.
std::optional<std::string> include_preamble(const std::vector<Token> &tokens);

}  // namespace hpcreward::source_checks
