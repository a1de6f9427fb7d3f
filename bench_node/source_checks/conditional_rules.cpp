#include "bench_node/source_checks/conditional_rules.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <string_view>

#include "bench_node/source_checks/directives.hpp"
#include "bench_node/source_checks/preprocessor_rules.hpp"

namespace hpcreward::source_checks {

namespace {

bool agreed(std::string_view name) {
  static const std::set<std::string_view> names = {
      "__STDC__", "__STDC_VERSION__", "__STDC_HOSTED__", "__x86_64__", "__x86_64", "__amd64__",
      "__amd64", "__linux__", "__linux", "__unix__", "__unix", "__ELF__", "__LP64__", "_LP64",
      "__OPTIMIZE__", "__NO_INLINE__", "__FAST_MATH__", "__SSE__", "__SSE2__", "__SSE3__",
      "__SSSE3__", "__SSE4_1__", "__SSE4_2__", "__AVX__", "__AVX2__", "__FMA__", "__AVX512F__",
      "__AVX512CD__", "__AVX512DQ__", "__AVX512BW__", "__AVX512VL__", "__BYTE_ORDER__",
      "__ORDER_LITTLE_ENDIAN__", "__ORDER_BIG_ENDIAN__", "__CHAR_BIT__", "__SIZEOF_INT__",
      "__SIZEOF_LONG__", "__SIZEOF_LONG_LONG__", "__SIZEOF_POINTER__", "__SIZEOF_SIZE_T__",
      "__SIZEOF_FLOAT__", "__SIZEOF_DOUBLE__", "__LINE__", "__cplusplus", "__VA_ARGS__",
      "__VA_OPT__",
      // Other platforms and compilers, which neither defines here (portable boilerplate).
      "_WIN32", "_WIN64", "_MSC_VER", "_M_X64", "__APPLE__", "__MINGW32__", "__MINGW64__",
      "__CYGWIN__", "__FreeBSD__", "__i386__", "__aarch64__", "__arm__", "__ARM_NEON",
      "__powerpc64__", "__INTEL_COMPILER", "__INTEL_LLVM_COMPILER", "__ICC", "__NVCC__",
      "__CUDACC__", "__PGI", "__NVCOMPILER"};
  return names.count(name) != 0 || feature_test_macro(name);
}

bool defined_only(std::string_view name) {
  return name == "_OPENMP" || name == "__GNUC__";
}

bool conditional(const Directive &directive) {
  return directive.name == "if" || directive.name == "elif" || directive.name == "ifdef" ||
         directive.name == "ifndef";
}

// Whether operand i of a condition is the name `defined` (or #ifdef) asks about.
bool asks_defined(const Directive &directive, std::size_t i) {
  if (directive.name == "ifdef" || directive.name == "ifndef") return i == 0;
  const auto &ops = directive.operands;
  if (i >= 1 && ops[i - 1]->is("defined")) return true;
  return i >= 2 && ops[i - 1]->is("(") && ops[i - 2]->is("defined");
}

class Reach {
 public:
  explicit Reach(const std::vector<Token> &tokens) : directives_(directives_of(tokens)) {
    for (MacroDefinition &macro : macro_definitions(directives_))
      macros_[macro.name].push_back(std::move(macro));
  }

  std::vector<Finding> run() {
    for (const Directive &directive : directives_) {
      if (!conditional(directive)) continue;
      for (std::size_t i = 0; i < directive.operands.size(); ++i) {
        const Token &token = *directive.operands[i];
        if (token.kind != TokenKind::identifier || token.is("defined")) continue;
        if (defined_only(token.text) && asks_defined(directive, i)) continue;
        judge(token.text, directive.line, false);
        reach(token.text);
      }
    }
    while (!queue_.empty()) {
      const MacroDefinition *macro = queue_.front();
      queue_.pop_front();
      for (const Token *token : macro->body) {
        if (token->is("##") && !pasting_) {
          pasting_ = true;  // a pasted name can be any macro's: all of them are reachable
          for (const auto &entry : macros_) reach(entry.first);
        }
        if (token->kind != TokenKind::identifier) continue;
        const auto &params = macro->parameters;
        if (std::find(params.begin(), params.end(), token->text) != params.end()) continue;
        judge(token->text, macro->line, true);
        reach(token->text);
      }
    }
    return std::move(findings_);
  }

 private:
  void judge(const std::string &name, int line, bool in_macro) {
    if (name.empty() || name[0] != '_' || agreed(name)) return;
    if (!reported_.insert(name).second) return;
    const std::string what = in_macro ? "a macro used in a condition" : "a condition";
    std::string reason = what + " at line " + std::to_string(line) + " depends on " + name +
                         ", which gcc (the compiler) and the checker may define differently";
    if (defined_only(name)) reason += " (test it only as defined(" + name + "))";
    findings_.push_back({Status::forbidden, line, std::move(reason)});
  }

  void reach(const std::string &name) {
    auto found = macros_.find(name);
    if (found == macros_.end() || !visited_.insert(name).second) return;
    for (const MacroDefinition &macro : found->second) queue_.push_back(&macro);
  }

  std::vector<Directive> directives_;
  std::map<std::string, std::vector<MacroDefinition>> macros_;
  std::set<std::string> visited_;
  std::set<std::string> reported_;
  std::deque<const MacroDefinition *> queue_;
  bool pasting_ = false;
  std::vector<Finding> findings_;
};

}  // namespace

std::vector<Finding> conditional_findings(const std::vector<Token> &tokens) {
  return Reach(tokens).run();
}

}  // namespace hpcreward::source_checks
