#include "techniques/source_techniques.hpp"

#include <clang-c/Index.h>

#include <cstdlib>
#include <map>
#include <set>
#include <utility>

#include "c_analysis/clang_parse.hpp"
#include "c_analysis/cursor_utils.hpp"
#include "c_analysis/libclang_handles.hpp"
#include "c_analysis/parse_arguments.hpp"
#include "techniques/loop_nest.hpp"

namespace hpcreward::techniques {

namespace ca = hpcreward::c_analysis;

namespace {

struct Token {
  std::string text;
  CXTokenKind kind;
};

using Tokens = std::vector<Token>;

// The tokens as written in the file. A cursor that starts inside a macro expansion
// (`C(i, j) += ...` with `#define C(i, j) C[(i) * n + (j)]`) has its start where the macro is
// defined; the expansion location is where it is used (libclang already maps the end there).
CXSourceRange written_extent(CXTranslationUnit unit, CXCursor cursor) {
  const CXSourceRange extent = clang_getCursorExtent(cursor);
  CXFile file = nullptr;
  unsigned offset = 0;
  clang_getExpansionLocation(clang_getRangeStart(extent), &file, nullptr, nullptr, &offset);
  if (file == nullptr) return extent;
  return clang_getRange(clang_getLocationForOffset(unit, file, offset), clang_getRangeEnd(extent));
}

Tokens tokens_of(CXTranslationUnit unit, CXCursor cursor) {
  CXToken *raw = nullptr;
  unsigned count = 0;
  clang_tokenize(unit, written_extent(unit, cursor), &raw, &count);
  Tokens out;
  for (unsigned i = 0; i < count; ++i)
    out.push_back({ca::take_string(clang_getTokenSpelling(unit, raw[i])),
                   clang_getTokenKind(raw[i])});
  if (raw != nullptr) clang_disposeTokens(unit, raw, count);
  return out;
}

unsigned line_of(CXCursor cursor) {
  unsigned line = 0;
  clang_getExpansionLocation(clang_getCursorLocation(cursor), nullptr, &line, nullptr, nullptr);
  return line;
}

// Where the code is used, not where a macro spelled it: `C(i, j) += ...` is the candidate's
// statement even though its location lies in a macro expansion.
bool in_main_file(CXCursor cursor) {
  const CXSourceLocation location = clang_getCursorLocation(cursor);
  if (clang_Location_isFromMainFile(location) != 0) return true;
  CXFile file = nullptr;
  unsigned offset = 0;
  clang_getExpansionLocation(location, &file, nullptr, nullptr, &offset);
  const CXTranslationUnit unit = clang_Cursor_getTranslationUnit(cursor);
  return file != nullptr &&
         clang_Location_isFromMainFile(clang_getLocationForOffset(unit, file, offset)) != 0;
}

bool starts(const std::string &text, const char *prefix) { return text.rfind(prefix, 0) == 0; }

std::vector<std::string> identifiers(const Tokens &tokens, std::size_t from, std::size_t to) {
  std::vector<std::string> out;
  for (std::size_t i = from; i < to && i < tokens.size(); ++i)
    if (tokens[i].kind == CXToken_Identifier) out.push_back(tokens[i].text);
  return out;
}

// Everything the walk gathers; constants are names with an integer value the loop steps may
// use (object-like macros, const variables and enumerators with a literal value).
struct Walk {
  CXTranslationUnit unit;
  std::map<std::string, long> constants;
  int omp = 0, avx = 0, simd = 0;
  std::string omp_evidence, avx_evidence, simd_evidence;
  std::vector<Loop> roots;
  std::vector<std::string> root_function;  // the function each root is in
  Functions functions;  // by name, for following tiles into callees
  // The function being walked: its dimension parameters (matmul's), the calls that may run,
  // and how many conditions that never hold the walk is under.
  std::set<std::string> dimensions;
  std::set<std::string> callees;
  int dead = 0;

  static void note(std::string &evidence, const std::string &what, unsigned line) {
    if (!evidence.empty()) evidence += "; ";
    evidence += what + " at line " + std::to_string(line);
  }
};

// An integer literal (12, 0x40, 64u) or -1.
long literal_value(const std::string &text) {
  char *end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 0);
  if (end == text.c_str()) return -1;
  for (; *end != '\0'; ++end)
    if (std::string("uUlL").find(*end) == std::string::npos) return -1;
  return value;
}

// The value of an expression's tokens [from, to): a literal or a known constant; kNamedStep
// for a lone unknown name; 0 otherwise.
long value_of(const Walk &walk, const Tokens &tokens, std::size_t from, std::size_t to) {
  while (to - from >= 3 && tokens[from].text == "(" && tokens[to - 1].text == ")") ++from, --to;
  if (to - from != 1) return 0;
  const Token &token = tokens[from];
  if (token.kind == CXToken_Literal) {
    const long value = literal_value(token.text);
    return value > 0 ? value : 0;
  }
  if (token.kind != CXToken_Identifier) return 0;
  const auto known = walk.constants.find(token.text);
  return known != walk.constants.end() ? known->second : kNamedStep;
}

// for ( init ; cond ; inc ): the variable, its start and its step, from the tokens.
Loop loop_header(const Walk &walk, const Tokens &tokens) {
  Loop loop;
  if (tokens.size() < 6 || tokens[0].text != "for" || tokens[1].text != "(") return loop;
  std::size_t semi[2] = {0, 0}, close = 0, found = 0;
  int depth = 0;
  for (std::size_t i = 1; i < tokens.size() && close == 0; ++i) {
    const std::string &t = tokens[i].text;
    if (t == "(" || t == "[" || t == "{") ++depth;
    if (t == ")" || t == "]" || t == "}") {
      if (--depth == 0) close = i;
    }
    if (t == ";" && depth == 1 && found < 2) semi[found++] = i;
  }
  if (found != 2 || close == 0) return loop;
  loop.bound_names = identifiers(tokens, semi[0] + 1, semi[1]);
  for (std::size_t i = 2; i < semi[0]; ++i)
    if (tokens[i].text == "=" && i > 2 && tokens[i - 1].kind == CXToken_Identifier) {
      loop.var = tokens[i - 1].text;
      loop.start_names = identifiers(tokens, i + 1, semi[0]);
      break;
    }
  // The increment: v++, ++v, v += N, v = v + N, v = N + v.
  const std::size_t a = semi[1] + 1, n = close - a;
  auto text = [&](std::size_t i) { return a + i < close ? tokens[a + i].text : std::string(); };
  if (n == 2 && ((text(0) == "++" && text(1) != "") || text(1) == "++")) {
    if (loop.var.empty()) loop.var = text(0) == "++" ? text(1) : text(0);
    loop.step = 1;
  } else if (n >= 3 && text(1) == "+=") {
    if (loop.var.empty()) loop.var = text(0);
    loop.step = text(0) == loop.var ? value_of(walk, tokens, a + 2, close) : 0;
  } else if (n == 5 && text(1) == "=" && text(0) == loop.var) {
    if (text(2) == loop.var && text(3) == "+") loop.step = value_of(walk, tokens, a + 4, close);
    if (text(4) == loop.var && text(3) == "+") loop.step = value_of(walk, tokens, a + 2, a + 3);
  }
  return loop;
}

// lhs op= f1 * f2 ... : split at the first top-level assignment, then at top-level '*'.
bool update_of(const Tokens &tokens, Update &update) {
  int depth = 0;
  std::size_t assign = 0;
  for (std::size_t i = 0; i < tokens.size() && assign == 0; ++i) {
    const std::string &t = tokens[i].text;
    if (t == "(" || t == "[") ++depth;
    if (t == ")" || t == "]") --depth;
    if (depth == 0 && (t == "=" || t == "+=" || t == "-=")) assign = i;
  }
  if (assign == 0) return false;
  std::vector<std::vector<std::string>> factors(1);
  bool in_factor_with_name = false;
  depth = 0;
  for (std::size_t i = assign + 1; i < tokens.size(); ++i) {
    const std::string &t = tokens[i].text;
    if (t == "(" || t == "[") ++depth;
    if (t == ")" || t == "]") --depth;
    if (depth == 0 && t == "*") {
      factors.emplace_back();
    } else if (depth == 0 && (t == "+" || t == "-" || t == ";")) {
      break;  // only the first product term
    } else if (tokens[i].kind == CXToken_Identifier) {
      factors.back().push_back(t);
      in_factor_with_name = true;
    }
  }
  if (factors.size() < 2 || !in_factor_with_name) return false;
  update.lhs = identifiers(tokens, 0, assign);
  // Scalars (alpha * A * B): the last two factors are A and B.
  update.first = factors[factors.size() - 2];
  update.second = factors.back();
  return true;
}

void record_constant(Walk &walk, CXCursor cursor) {
  const CXCursorKind kind = clang_getCursorKind(cursor);
  const std::string name = ca::spelling(cursor);
  if (kind == CXCursor_EnumConstantDecl) {
    walk.constants[name] = clang_getEnumConstantDeclValue(cursor);
  } else if (kind == CXCursor_MacroDefinition && !clang_Cursor_isMacroFunctionLike(cursor)) {
    const Tokens tokens = tokens_of(walk.unit, cursor);
    const long value = tokens.size() >= 2 ? value_of(walk, tokens, 1, tokens.size()) : 0;
    if (value > 0) walk.constants[name] = value;
  } else if (kind == CXCursor_VarDecl &&
             clang_isConstQualifiedType(clang_getCursorType(cursor)) != 0) {
    const Tokens tokens = tokens_of(walk.unit, cursor);
    for (std::size_t i = 0; i + 1 < tokens.size(); ++i)
      if (tokens[i].text == "=") {
        const long value = value_of(walk, tokens, i + 1, tokens.size());
        if (value > 0) walk.constants[name] = value;
        break;
      }
  }
}

void walk_cursor(Walk &walk, CXCursor cursor, Loop *loop);
void walk_children(Walk &walk, CXCursor cursor, Loop *loop);

bool integer_type(CXType type) {
  const CXTypeKind kind = clang_getCanonicalType(type).kind;
  return kind >= CXType_Char_U && kind <= CXType_LongLong && kind != CXType_Char16 && kind != CXType_Char32;
}

constexpr const char *kEntryPoint = "matmul";

// matmul's integer parameters that its body never writes (no assignment, ++, -- or &): every
// harness shape gives each a value in [1, kMaxDimension]. A written one could hold anything.
std::set<std::string> dimension_parameters(const Walk &walk, CXCursor function) {
  std::set<std::string> names;
  for (int i = 0; i < clang_Cursor_getNumArguments(function); ++i) {
    const CXCursor parameter = clang_Cursor_getArgument(function, i);
    if (integer_type(clang_getCursorType(parameter))) names.insert(ca::spelling(parameter));
  }
  const Tokens tokens = tokens_of(walk.unit, function);
  static const std::set<std::string> writes = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
                                               "<<=", ">>=", "++", "--"};
  // Past the parameter list: the first '{' opens the body.
  std::size_t body = 0;
  while (body < tokens.size() && tokens[body].text != "{") ++body;
  for (std::size_t i = body; i < tokens.size(); ++i) {
    if (names.count(tokens[i].text) == 0) continue;
    const bool before = i > 0 && (tokens[i - 1].text == "++" || tokens[i - 1].text == "--" || tokens[i - 1].text == "&");
    const bool after = i + 1 < tokens.size() && writes.count(tokens[i + 1].text) != 0;
    if (before || after) names.erase(tokens[i].text);
  }
  return names;
}

// A function definition: its loops become roots as before, and are also kept under its name
// with its parameters, for the tile loops that call it.
void walk_function(Walk &walk, CXCursor function) {
  const std::size_t first = walk.roots.size();
  const std::string name = ca::spelling(function);
  walk.dimensions = name == kEntryPoint ? dimension_parameters(walk, function) : std::set<std::string>{};
  walk.callees.clear();
  walk_children(walk, function, nullptr);
  Function recorded;
  for (int i = 0; i < clang_Cursor_getNumArguments(function); ++i)
    recorded.parameters.push_back(ca::spelling(clang_Cursor_getArgument(function, i)));
  recorded.loops.assign(walk.roots.begin() + static_cast<std::ptrdiff_t>(first), walk.roots.end());
  recorded.callees = std::move(walk.callees);
  walk.root_function.resize(walk.roots.size(), name);
  walk.functions[name] = std::move(recorded);
  walk.dimensions.clear();
}

// Walks code that never runs: what it holds still counts as source evidence of a technique
// (OpenMP, intrinsics: both need the object's too), but its loops, updates and calls describe
// nothing, so they go into a scratch loop that is dropped.
void walk_dead(Walk &walk, CXCursor cursor) {
  ++walk.dead;
  Loop scratch;
  walk_cursor(walk, cursor, &scratch);
  --walk.dead;
}

std::vector<std::string> texts(const Tokens &tokens, std::size_t from, std::size_t to) {
  std::vector<std::string> out;
  for (std::size_t i = from; i < to && i < tokens.size(); ++i) out.push_back(tokens[i].text);
  return out;
}

Truth truth_of(const Walk &walk, CXCursor condition) {
  const Tokens tokens = tokens_of(walk.unit, condition);
  return condition_truth(texts(tokens, 0, tokens.size()), walk.dimensions, walk.constants);
}

// for ( init ; cond ; inc ): the condition's tokens; empty when not found or absent.
std::vector<std::string> for_condition(const Tokens &tokens) {
  if (tokens.size() < 2 || tokens[0].text != "for" || tokens[1].text != "(") return {};
  std::size_t semi[2] = {0, 0}, found = 0;
  int depth = 0;
  for (std::size_t i = 1; i < tokens.size() && found < 2; ++i) {
    const std::string &t = tokens[i].text;
    if (t == "(" || t == "[" || t == "{") ++depth;
    if ((t == ")" || t == "]" || t == "}") && --depth == 0) break;
    if (t == ";" && depth == 1) semi[found++] = i;
  }
  return found == 2 ? texts(tokens, semi[0] + 1, semi[1]) : std::vector<std::string>{};
}

// What a loop body holds for following a tile: calls with their arguments' names, and integer
// locals with their initializers' names.
void note_call_or_local(Walk &walk, CXCursor cursor, CXCursorKind kind, Loop &loop) {
  if (kind == CXCursor_CallExpr) {
    Call call{ca::spelling(cursor), {}};
    for (int i = 0; i < clang_Cursor_getNumArguments(cursor); ++i) {
      const Tokens tokens = tokens_of(walk.unit, clang_Cursor_getArgument(cursor, i));
      call.arguments.push_back(identifiers(tokens, 0, tokens.size()));
    }
    loop.calls.push_back(std::move(call));
  } else if (kind == CXCursor_VarDecl && integer_type(clang_getCursorType(cursor))) {
    const Tokens tokens = tokens_of(walk.unit, cursor);
    for (std::size_t i = 0; i < tokens.size(); ++i)
      if (tokens[i].text == "=") {
        loop.locals.push_back({ca::spelling(cursor), identifiers(tokens, i + 1, tokens.size())});
        break;
      }
  } else if (kind == CXCursor_BinaryOperator) {
    // The same bound assigned to a variable declared earlier (`ib = min(m - i, mc);`, as
    // textbooks write it): `name = ...` with an integer name on the left.
    const std::vector<CXCursor> sides = ca::children(cursor);
    const Tokens tokens = tokens_of(walk.unit, cursor);
    if (sides.size() == 2 && clang_getCursorKind(sides[0]) == CXCursor_DeclRefExpr &&
        integer_type(clang_getCursorType(sides[0])) && tokens.size() >= 3 && tokens[1].text == "=")
      loop.locals.push_back({ca::spelling(sides[0]), identifiers(tokens, 2, tokens.size())});
  }
}

void walk_children(Walk &walk, CXCursor cursor, Loop *loop) {
  for (CXCursor child : ca::children(cursor)) walk_cursor(walk, child, loop);
}

void walk_cursor(Walk &walk, CXCursor cursor, Loop *loop) {
  if (!in_main_file(cursor)) return;  // headers: immintrin.h and omp.h use everything
  const CXCursorKind kind = clang_getCursorKind(cursor);
  const std::string name = ca::spelling(cursor);
  record_constant(walk, cursor);
  if (ca::take_string(clang_getCursorKindSpelling(kind)).rfind("OMP", 0) == 0 &&
      clang_isStatement(kind)) {
    if (walk.omp++ < 3) Walk::note(walk.omp_evidence, ca::take_string(clang_getCursorKindSpelling(kind)), line_of(cursor));
  } else if (((kind == CXCursor_CallExpr || kind == CXCursor_MacroExpansion) &&
              starts(name, "_mm512_")) ||
             (kind == CXCursor_TypeRef && starts(name, "__m512"))) {
    if (walk.avx++ < 3) Walk::note(walk.avx_evidence, name, line_of(cursor));
  } else if (((kind == CXCursor_CallExpr || kind == CXCursor_MacroExpansion) &&
              (starts(name, "_mm_") || starts(name, "_mm256_"))) ||
             (kind == CXCursor_TypeRef && (starts(name, "__m128") || starts(name, "__m256")))) {
    if (walk.simd++ < 3) Walk::note(walk.simd_evidence, name, line_of(cursor));
  }
  if (kind == CXCursor_FunctionDecl && clang_isCursorDefinition(cursor)) {
    walk_function(walk, cursor);
    return;
  }
  if (kind == CXCursor_CallExpr && walk.dead == 0) walk.callees.insert(name);
  if (loop != nullptr) note_call_or_local(walk, cursor, kind, *loop);
  if (kind == CXCursor_IfStmt || kind == CXCursor_WhileStmt) {
    // A branch whose condition no harness shape satisfies never runs (`if (m < 0)`), nor the
    // else of one every shape satisfies. C's children: condition, then, else (if any).
    const std::vector<CXCursor> parts = ca::children(cursor);
    if (parts.size() < 2) {
      walk_children(walk, cursor, loop);
      return;
    }
    const Truth truth = truth_of(walk, parts[0]);
    walk_cursor(walk, parts[0], loop);
    if (truth == Truth::never) walk_dead(walk, parts[1]);
    else walk_cursor(walk, parts[1], loop);
    for (std::size_t i = 2; i < parts.size(); ++i) {
      if (truth == Truth::always) walk_dead(walk, parts[i]);
      else walk_cursor(walk, parts[i], loop);
    }
    return;
  }
  if (kind == CXCursor_ForStmt) {
    const Tokens tokens = tokens_of(walk.unit, cursor);
    Loop header = loop_header(walk, tokens);
    header.line = line_of(cursor);
    const std::vector<CXCursor> parts = ca::children(cursor);
    // The body is the last child. The header's parts are walked too (for OpenMP/AVX uses),
    // first, as part of the enclosing loop, so nothing is added to `siblings` while `self`
    // points into it.
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) walk_cursor(walk, parts[i], loop);
    if (condition_truth(for_condition(tokens), walk.dimensions, walk.constants) == Truth::never) {
      if (!parts.empty()) walk_dead(walk, parts.back());  // its body never runs: no loop at all
      return;
    }
    std::vector<Loop> &siblings = loop != nullptr ? loop->inner : walk.roots;
    siblings.push_back(std::move(header));
    Loop *self = &siblings.back();
    if (!parts.empty()) walk_cursor(walk, parts.back(), self);
    return;
  }
  if (loop != nullptr &&
      (kind == CXCursor_CompoundAssignOperator || kind == CXCursor_BinaryOperator)) {
    Update update;
    if (update_of(tokens_of(walk.unit, cursor), update)) {
      update.line = line_of(cursor);
      loop->updates.push_back(std::move(update));
      return;
    }
  }
  walk_children(walk, cursor, loop);
}

Walk walk_unit(CXTranslationUnit unit) {
  Walk walk{unit};
  walk_children(walk, clang_getTranslationUnitCursor(unit), nullptr);
  return walk;
}

void append(std::string &evidence, const std::string &more) {
  if (more.empty()) return;
  if (!evidence.empty()) evidence += "; ";
  evidence += more;
}

}  // namespace

std::optional<std::vector<std::string>> serial_parse_flags(
    const std::vector<std::string> &compiler_flags) {
  bool openmp = false;
  for (const std::string &flag : compiler_flags)
    openmp = flag.rfind("-fopenmp", 0) == 0 ? true : flag == "-fno-openmp" ? false : openmp;
  if (!openmp) return std::nullopt;
  std::vector<std::string> serial = compiler_flags;
  serial.push_back("-fno-openmp");
  serial.push_back("-D_OPENMP=201511");
  return serial;
}

SourceTechniques detect_in_units(CXTranslationUnit as_compiled,
                                 std::optional<CXTranslationUnit> serial_unit) {
  SourceTechniques out;
  if (as_compiled == nullptr) return out;
  out.parsed = true;
  const Walk compiled = walk_unit(as_compiled);
  out.omp_directives = compiled.omp;
  append(out.evidence, compiled.omp_evidence);
  // Intrinsics and loops inside OpenMP regions are only visible in the serial parse.
  const Walk serial = !serial_unit ? compiled : *serial_unit != nullptr ? walk_unit(*serial_unit) : Walk{};
  out.avx512_uses = serial.avx;
  append(out.evidence, serial.avx_evidence);
  out.simd_uses = serial.simd;
  append(out.evidence, serial.simd_evidence);
  // Only loops of functions that matmul reaches through calls that may run describe it.
  const std::set<std::string> reached = reachable_functions(serial.functions, kEntryPoint);
  std::vector<Loop> roots;
  for (std::size_t i = 0; i < serial.roots.size(); ++i)
    if (i >= serial.root_function.size() || reached.count(serial.root_function[i]) != 0)
      roots.push_back(serial.roots[i]);
  const BlockingFacts blocking = find_blocking(roots, serial.functions);
  out.blocking = blocking.blocking;
  out.tile_sizes = blocking.tile_sizes;
  append(out.evidence, blocking.evidence);
  unsigned line = 0;
  out.loop_order = find_loop_order(roots, &line);
  if (!out.loop_order.empty())
    append(out.evidence, "loop order " + out.loop_order + " for the update at line " +
                             std::to_string(line));
  return out;
}

SourceTechniques detect_in_source(const std::string &source,
                                  const std::vector<std::string> &compiler_flags,
                                  const std::filesystem::path &omp_include_dir) {
  const ca::IndexHandle index(clang_createIndex(0, 0));
  std::string error;
  const ca::TranslationUnitHandle unit = ca::parse_candidate(
      index.get(), source, ca::clang_arguments(compiler_flags, omp_include_dir), {}, error);
  if (!unit) return {};
  const auto serial_flags = serial_parse_flags(compiler_flags);
  if (!serial_flags) return detect_in_units(unit.get(), std::nullopt);
  const ca::TranslationUnitHandle serial = ca::parse_candidate(
      index.get(), source, ca::clang_arguments(*serial_flags, omp_include_dir), {}, error);
  return detect_in_units(unit.get(), serial.get());
}

}  // namespace hpcreward::techniques
