#include "bench_node/source_checks/ast_audit.hpp"

#include <set>
#include <string>
#include <unordered_map>

#include "bench_node/source_checks/attribute_rules.hpp"
#include "bench_node/source_checks/c_attribute_policy.hpp"
#include "bench_node/source_checks/call_policy.hpp"
#include "c_analysis/cursor_utils.hpp"
#include "c_analysis/libclang_handles.hpp"

namespace hpcreward::source_checks {

using namespace c_analysis;  // libclang handles and cursor helpers

namespace {

bool reserved(const std::string &name) {
  return name.size() >= 2 && name[0] == '_' &&
         (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z'));
}

class Audit {
 public:
  explicit Audit(CXTranslationUnit unit) : main_(candidate_file(unit)), unit_(unit) {
    for (CXCursor child : children(clang_getTranslationUnitCursor(unit)))
      if (clang_getCursorKind(child) == CXCursor_FunctionDecl && clang_isCursorDefinition(child) &&
          ours(child))
        functions_defined_.insert(spelling(child));
    find_reachable();
  }

  std::vector<Finding> run() {
    for (CXCursor child : children(clang_getTranslationUnitCursor(unit_))) {
      if (!ours(child)) continue;
      // Calls in a function matmul never reaches are not judged: the linker drops that code
      // (--gc-sections, compiler.hpp), so a self-test main's printf never runs.
      judging_calls_ = clang_getCursorKind(child) != CXCursor_FunctionDecl ||
                       !clang_isCursorDefinition(child) || reachable_.count(spelling(child)) != 0;
      visit(child);
    }
    return std::move(findings_);
  }

 private:
  // The file's functions that matmul or a file-scope initializer (a function pointer in
  // data, which reached code may call) names, transitively. By name, as defined_here is.
  void find_reachable() {
    std::unordered_map<std::string, std::set<std::string>> names;  // function -> functions it names
    std::vector<std::string> pending{"matmul"};
    for (CXCursor child : children(clang_getTranslationUnitCursor(unit_))) {
      if (!ours(child)) continue;
      std::set<std::string> named;
      collect_function_names(child, named);
      if (clang_getCursorKind(child) == CXCursor_FunctionDecl && clang_isCursorDefinition(child))
        names[spelling(child)].insert(named.begin(), named.end());
      else
        pending.insert(pending.end(), named.begin(), named.end());
    }
    while (!pending.empty()) {
      const std::string name = std::move(pending.back());
      pending.pop_back();
      if (!reachable_.insert(name).second) continue;
      const auto found = names.find(name);
      if (found != names.end()) pending.insert(pending.end(), found->second.begin(), found->second.end());
    }
  }
  static void collect_function_names(CXCursor parent, std::set<std::string> &named) {
    for (CXCursor child : children(parent)) {
      if (clang_getCursorKind(child) == CXCursor_DeclRefExpr) {
        const CXCursor target = clang_getCursorReferenced(child);
        if (clang_getCursorKind(target) == CXCursor_FunctionDecl) named.insert(spelling(target));
      }
      collect_function_names(child, named);
    }
  }

  void add(unsigned line, std::string reason, int weight = 0) {
    findings_.push_back({Status::forbidden, static_cast<int>(line), std::move(reason), weight});
  }
  static std::string at(unsigned line) { return " at line " + std::to_string(line); }

  bool ours(CXCursor cursor) const { return same_file(place_of(cursor).file, main_); }

  // Defined in the candidate's file (not only declared there). By name too: a call before any
  // declaration declares the function implicitly (gcc compiles it with a warning), and clang
  // does not link that declaration to a later definition whose type differs (void f(...)).
  bool defined_here(CXCursor function) const {
    const CXCursor definition = clang_getCursorDefinition(function);
    return (!clang_Cursor_isNull(definition) && ours(definition)) ||
           functions_defined_.count(spelling(function)) != 0;
  }

  void visit_children(CXCursor parent) {
    for (CXCursor child : children(parent))
      if (ours(child)) visit(child);
  }

  void visit(CXCursor cursor) {
    const unsigned line = place_of(cursor).line;
    const CXCursorKind kind = clang_getCursorKind(cursor);
    if (clang_isDeclaration(kind) && clang_Cursor_hasAttrs(cursor)) check_attributes(cursor, line);
    switch (kind) {
      case CXCursor_FunctionDecl:
        function_declaration(cursor, line);
        break;
      case CXCursor_VarDecl:
        variable_declaration(cursor, line);
        break;
      case CXCursor_UnexposedDecl:
        file_scope_asm(cursor, line);
        break;
      case CXCursor_AsmLabelAttr:
        add(line, "asm label" + at(line) + " (renames a symbol)");
        break;
      case CXCursor_GCCAsmStmt:
      case CXCursor_MSAsmStmt:
        add(line, "inline assembly" + at(line));
        break;
      case CXCursor_IndirectGotoStmt:
      case CXCursor_AddrLabelExpr:
        add(line, "computed goto" + at(line) + " (labels as values)");
        break;
      case CXCursor_CallExpr:
        if (judging_calls_) call(cursor, line);
        break;
      case CXCursor_DeclRefExpr:
        if (judging_calls_) reference(cursor, line);
        break;
      case CXCursor_CStyleCastExpr:
      case CXCursor_UnexposedExpr:
        conversion(cursor, line);
        break;
      default:
        break;
    }
    visit_children(cursor);
  }

  void check_attributes(CXCursor declaration, unsigned line) {
    // The declaration as clang prints it: every attribute, however the source spelled it.
    for (const WrittenAttribute &attribute : written_attributes(lex_c(printed_declaration(declaration))))
      if (auto why = attribute_refusal(attribute.name, static_cast<int>(line), c_attribute_table()))
        add(line, std::move(*why));
  }

  // A declaration alone reaches nothing: a hand-written prototype is judged where the
  // function is called or its address taken (judge_call, reference).
  void function_declaration(CXCursor function, unsigned line) {
    if (clang_isCursorDefinition(function)) external_definition(function, spelling(function), line);
  }

  void variable_declaration(CXCursor variable, unsigned line) {
    const std::string name = spelling(variable);
    if (clang_Cursor_getStorageClass(variable) == CX_SC_Extern &&
        !clang_isCursorDefinition(variable)) {
      add(line,
          "extern variable " + name + at(line) + " (a candidate may use only its own variables)");
      return;
    }
    external_definition(variable, name, line);
  }

  void external_definition(CXCursor declaration, const std::string &name, unsigned line) {
    if (clang_getCursorLinkage(declaration) != CXLinkage_External) return;
    if (reserved(name))
      add(line,
          "defines " + name + at(line) +
              ", a reserved name (names starting with __ or _X belong to the implementation)");
    else if (library_name(name))
      add(line, "defines " + name + at(line) +
                    ", a C library name (the dynamic linker would bind it to the library's; make "
                    "it static or rename it)");
  }

  void file_scope_asm(CXCursor declaration, unsigned line) {
    const std::string printed = printed_declaration(declaration);
    if (printed.rfind("__asm", 0) == 0 || printed.rfind("asm", 0) == 0)
      add(line, "inline assembly" + at(line) + " (file-scope asm)");
  }

  void call(CXCursor call, unsigned line) {
    const std::vector<CXCursor> parts = children(call);
    if (parts.empty()) return;
    const CXCursor callee = strip_implicit(parts[0]);
    const CXCursor function = clang_getCursorReferenced(callee);
    if (clang_getCursorKind(callee) != CXCursor_DeclRefExpr ||
        clang_getCursorKind(function) != CXCursor_FunctionDecl) {
      add(line, "call through a function pointer" + at(line) + " (call functions by name)");
      return;
    }
    direct_callees_.emplace(clang_hashCursor(callee), callee);
    judge_call(function, spelling(function), line);
  }

  // Adds a finding when the call of `function` may not stay.
  void judge_call(CXCursor function, const std::string &name, unsigned line) {
    const std::string shown = "call to " + name + at(line);
    if (builtin_name(name)) {
      if (!allowed_builtin(name)) add(line, shown + " (a builtin that is not on the allow-list)");
      return;
    }
    if (defined_here(function)) return;
    // Clocks and counters are refused by name, however declared (clang's __rdtsc is a builtin
    // that no header declares).
    if (auto refusal = inline_call_refusal(name)) {
      add(line, shown + " " + *refusal);
      return;
    }
    const Place declared = place_of(clang_getCanonicalCursor(function));
    if (declared.file == nullptr || same_file(declared.file, main_)) {
      // Undeclared or declared by the file itself: a function of a known danger is refused here
      // with its reason; any other is the linker's and the object audit's (one no library has
      // fails the link, a compile_error; a library's is an import the audit judges).
      if (const auto category = function_category(name))
        add(line, shown + " (" + std::string(*category) + "): not defined in the file nor declared by a header");
      return;
    }
    // Intrinsics are inline functions of the compiler's headers, all named _x or __x; an
    // inline function of the C library (atof calls strtod) is a library function.
    const bool intrinsic =
        !clang_Cursor_isNull(clang_getCursorDefinition(function)) && name[0] == '_';
    const auto refusal = intrinsic ? inline_call_refusal(name)
                                   : library_call_refusal(name, file_name(declared.file));
    if (refusal) add(line, shown + " " + *refusal);
  }

  void reference(CXCursor reference, unsigned line) {
    const CXCursor target = clang_getCursorReferenced(reference);
    if (clang_getCursorKind(target) != CXCursor_FunctionDecl || defined_here(target)) return;
    const auto [first, last] = direct_callees_.equal_range(clang_hashCursor(reference));
    for (auto it = first; it != last; ++it)
      if (clang_equalCursors(it->second, reference)) return;
    add(line, "takes the address of " + spelling(target) + at(line) +
                  " (a function the file does not define may only be called directly)");
  }

  void conversion(CXCursor expression, unsigned line) {
    if (!is_function_pointer(clang_getCursorType(expression))) return;
    std::vector<CXCursor> operands;
    for (CXCursor child : children(expression))
      if (clang_isExpression(clang_getCursorKind(child))) operands.push_back(child);
    const bool explicit_cast = clang_getCursorKind(expression) == CXCursor_CStyleCastExpr;
    if (operands.size() != 1 || (!explicit_cast && operands.size() != children(expression).size()))
      return;  // not a conversion
    const CXType from = clang_getCursorType(operands[0]);
    const CXCursor named = strip_implicit(operands[0]);  // a function name (builtins too)
    if (clang_getCursorKind(named) == CXCursor_DeclRefExpr &&
        clang_getCursorKind(clang_getCursorReferenced(named)) == CXCursor_FunctionDecl)
      return;
    if (is_function_type(from) || is_function_pointer(from) || null_pointer_constant(operands[0]))
      return;
    add(line, "converts " + type_spelling(from) + " to a function pointer" + at(line));
  }

  CXFile main_;
  CXTranslationUnit unit_;
  std::unordered_multimap<unsigned, CXCursor> direct_callees_;  // by clang_hashCursor
  std::set<std::string> functions_defined_;                      // in the candidate's file
  std::set<std::string> reachable_;                              // find_reachable()
  bool judging_calls_ = true;                                    // in code matmul may reach
  std::vector<Finding> findings_;
};

}  // namespace

std::vector<Finding> audit_ast(CXTranslationUnit unit) {
  return Audit(unit).run();
}

}  // namespace hpcreward::source_checks
