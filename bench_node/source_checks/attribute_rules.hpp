#pragma once
// Which attributes a candidate's declarations may carry: an allow-list, because an attribute
// can run code at load time, rename or re-section a symbol, or change the code generation the
// stage controls. The rule is the same for C and CUDA; the list is each language's
// (c_attribute_policy.hpp, ../cuda/cuda_attribute_policy.hpp). Names compare without
// surrounding underscores (__aligned__ is aligned).
//
// The names are read off tokens: GNU __attribute__((...)), [[...]] (also [[gnu::x]] and
// [[using gnu: x]]) and __declspec(...) lists, wherever they are written. C reads the
// declarations as libclang prints them (ast_audit.cpp); CUDA, which has no parser here, reads
// its whole token stream, directive lines (macro bodies) included.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench_node/checks/name_table.hpp"
#include "bench_node/source_checks/c_lexer.hpp"
#include "bench_node/source_checks/finding.hpp"

namespace hpcreward::source_checks {

std::string normalized_attribute(std::string_view spelled);  // "__aligned__" -> "aligned"

struct WrittenAttribute {
  std::string name;  // as written, "__constructor__" or "constructor"
  int line = 0;
};

// Every attribute name in `tokens`, in order
// ("void f() __attribute__((constructor(101))) [[gnu::cold]]" -> constructor, cold).
std::vector<WrittenAttribute> written_attributes(const std::vector<Token> &tokens);

// nullopt when the attribute (either spelling) may stay; otherwise why not:
// "attribute constructor at line 3 runs code when the object is loaded or unloaded".
std::optional<std::string> attribute_refusal(std::string_view spelled, int line, const NameTable &table);

// A finding for each attribute in `tokens` the table refuses.
std::vector<Finding> attribute_findings(const std::vector<Token> &tokens, const NameTable &table);

}  // namespace hpcreward::source_checks
