#include "coordinator/input/code_shape.hpp"

#include <algorithm>
#include <array>

namespace hpcreward {
namespace {

enum class Kind { identifier, number, literal, punctuator, stray };

struct Token {
  Kind kind;
  std::string_view text;
  int line;
  bool is(std::string_view spelling) const { return text == spelling; }
};

struct Directive {
  int line;
  std::string_view name;  // "" for a null directive (a # alone)
};

struct Lexed {
  std::vector<Token> tokens;  // outside directives, comments and whitespace
  std::vector<Directive> directives;
  std::string unterminated;  // a comment or raw string that never ends; lexing stopped there
};

bool identifier_start(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c >= 0x80;
}
bool identifier_char(unsigned char c) { return identifier_start(c) || (c >= '0' && c <= '9'); }
bool digit(unsigned char c) { return c >= '0' && c <= '9'; }

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  Lexed run() {
    bool line_start = true;  // only blanks since the line began: a # here opens a directive
    while (at_ < text_.size() && out_.unterminated.empty()) {
      const unsigned char c = text_[at_];
      if (c == '\n') {
        ++line_;
        ++at_;
        line_start = true;
      } else if (splice()) {
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++at_;
      } else if (starts("//")) {
        line_comment();
      } else if (starts("/*")) {
        block_comment();
      } else if (c == '#' && line_start) {
        directive();
      } else {
        line_start = false;
        token();
      }
    }
    return std::move(out_);
  }

 private:
  bool starts(std::string_view what) const { return text_.substr(at_).starts_with(what); }

  // A backslash right before the line's end joins the next line to this one.
  bool splice() {
    if (text_[at_] != '\\') return false;
    std::size_t next = at_ + 1;
    if (next < text_.size() && text_[next] == '\r') ++next;
    if (next >= text_.size() || text_[next] != '\n') return false;
    at_ = next + 1;
    ++line_;
    return true;
  }

  void line_comment() {
    while (at_ < text_.size() && text_[at_] != '\n')
      if (!splice()) ++at_;
  }

  void block_comment() {
    const int opened = line_;
    const std::size_t end = text_.find("*/", at_ + 2);
    if (end == std::string_view::npos) {
      out_.unterminated = "the /* comment opened at line " + std::to_string(opened) + " never ends";
      return;
    }
    line_ += static_cast<int>(std::count(text_.begin() + at_, text_.begin() + end, '\n'));
    at_ = end + 2;
  }

  // The whole logical line: its name is kept, its body is never code of a definition.
  void directive() {
    const int line = line_;
    ++at_;
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t')) ++at_;
    const std::size_t name_begin = at_;
    while (at_ < text_.size() && identifier_char(text_[at_])) ++at_;
    out_.directives.push_back({line, text_.substr(name_begin, at_ - name_begin)});
    while (at_ < text_.size() && text_[at_] != '\n' && out_.unterminated.empty()) {
      if (splice()) continue;
      if (starts("/*")) {
        block_comment();
      } else if (starts("//")) {
        line_comment();
      } else if (text_[at_] == '"' || text_[at_] == '\'') {
        quoted(text_[at_]);
      } else {
        ++at_;
      }
    }
  }

  // A string or character literal; one that reaches the line's end unclosed is a stray token.
  Kind quoted(char quote) {
    ++at_;
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (c == '\\') {
        if (!splice()) at_ += 2;
        continue;
      }
      if (c == '\n') return Kind::stray;
      ++at_;
      if (c == quote) return Kind::literal;
    }
    at_ = text_.size();
    return Kind::stray;
  }

  // R"delim( ... )delim" (C++, and GNU C): nothing inside is code.
  bool raw_string(std::size_t begin) {
    std::size_t open = at_ + 1;
    while (open < text_.size() && open - at_ <= 17 && text_[open] != '(' && text_[open] != '\n') ++open;
    if (open >= text_.size() || text_[open] != '(') return false;
    const std::string closing = ")" + std::string(text_.substr(at_ + 1, open - at_ - 1)) + "\"";
    const std::size_t end = text_.find(closing, open + 1);
    if (end == std::string_view::npos) {
      out_.unterminated = "the raw string at line " + std::to_string(line_) + " never ends";
      return true;
    }
    const int line = line_;
    line_ += static_cast<int>(std::count(text_.begin() + at_, text_.begin() + end, '\n'));
    at_ = end + closing.size();
    out_.tokens.push_back({Kind::literal, text_.substr(begin, at_ - begin), line});
    return true;
  }

  void token() {
    const std::size_t begin = at_;
    const int line = line_;
    const unsigned char c = text_[at_];
    Kind kind = Kind::punctuator;
    if (identifier_start(c)) {
      while (at_ < text_.size() && identifier_char(text_[at_])) ++at_;
      const std::string_view name = text_.substr(begin, at_ - begin);
      if (at_ < text_.size() && text_[at_] == '"' &&
          (name == "R" || name == "LR" || name == "uR" || name == "UR" || name == "u8R") && raw_string(begin))
        return;
      kind = Kind::identifier;
    } else if (digit(c) || (c == '.' && at_ + 1 < text_.size() && digit(text_[at_ + 1]))) {
      // A pp-number, with digit separators (1'000) and exponent signs.
      ++at_;
      while (at_ < text_.size()) {
        const unsigned char d = text_[at_];
        const bool sign = (d == '+' || d == '-') && std::string_view("eEpP").find(text_[at_ - 1]) != std::string_view::npos;
        const bool separator = d == '\'' && at_ + 1 < text_.size() && identifier_char(text_[at_ + 1]);
        if (!identifier_char(d) && d != '.' && !sign && !separator) break;
        ++at_;
      }
      kind = Kind::number;
    } else if (c == '"' || c == '\'') {
      kind = quoted(static_cast<char>(c));
    } else {
      ++at_;
      // Not in C's source character set outside literals and comments: markdown, mail, shell.
      if (c == '`' || c == '@' || c == '\\' || c < 0x20 || c == 0x7f) kind = Kind::stray;
    }
    out_.tokens.push_back({kind, text_.substr(begin, at_ - begin), line});
  }

  std::string_view text_;
  std::size_t at_ = 0;
  int line_ = 1;
  Lexed out_;
};

// A parameter list or attribute longer than this is no definition's: the bound keeps a text
// full of `matmul(` from costing rank 0 a scan to the end for each.
constexpr std::size_t kMaxGroupTokens = 512;

// The index of the token that closes the group opened at `open` ("(" or "["), or npos.
std::size_t closing_of(const std::vector<Token> &tokens, std::size_t open) {
  const std::string_view opener = tokens[open].text;
  const std::string_view closer = opener == "(" ? ")" : "]";
  int depth = 0;
  for (std::size_t i = open; i < tokens.size() && i - open < kMaxGroupTokens; ++i) {
    if (tokens[i].is(opener)) ++depth;
    if (tokens[i].is(closer) && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// `matmul` at `at` (outside any body) followed by its parameters, then (past qualifiers,
// attributes or a trailing return type) its body's `{`.
bool defines_at(const std::vector<Token> &tokens, std::size_t at) {
  // Kernel::matmul(...) { } is a member's definition, not the entry point's.
  if (at >= 2 && tokens[at - 1].is(":") && tokens[at - 2].is(":")) return false;
  if (at > 0 && (tokens[at - 1].is(".") || (tokens[at - 1].is(">") && at >= 2 && tokens[at - 2].is("-"))))
    return false;
  if (at + 1 >= tokens.size() || !tokens[at + 1].is("(")) return false;
  std::size_t i = closing_of(tokens, at + 1);
  if (i == std::string_view::npos) return false;
  for (const std::size_t end = std::min(tokens.size(), i + kMaxGroupTokens); ++i < end;) {
    const Token &token = tokens[i];
    if (token.is("{")) return true;
    if (token.is("(") || token.is("[")) {
      i = closing_of(tokens, i);
      if (i == std::string_view::npos) return false;
    } else if (token.kind != Kind::identifier && !token.is("-") && !token.is(">") && !token.is("<") &&
               !token.is(":") && !token.is("*") && !token.is("&")) {
      return false;  // ; = , ) } and the rest: a prototype, a call, a declaration
    }
  }
  return false;
}

// Words that run three or more in a row in declarations (`static inline void`, `unsigned
// long long int`); three other identifiers in a row are a sentence, not C. Keywords that are
// also common English (this, new, public, using, true) are left out: prose is full of them.
bool keyword(std::string_view word) {
  static constexpr std::array kWords = {
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
      "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short",
      "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile",
      "while", "_Bool", "_Complex", "_Alignas", "_Alignof", "_Atomic", "_Noreturn", "_Static_assert",
      "_Thread_local", "bool", "nullptr", "constexpr", "consteval", "constinit", "template",
      "typename", "class", "namespace", "operator",
      "virtual", "noexcept", "decltype",
      "static_assert", "thread_local", "alignas", "alignof", "__global__", "__device__", "__host__",
      "__shared__", "__constant__", "__restrict__", "__restrict", "__inline__", "__inline", "__forceinline__",
      "__noinline__", "__launch_bounds__", "__attribute__", "__extension__", "__thread", "__half",
      "__nv_bfloat16", "half", "size_t", "ptrdiff_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
      "uint16_t", "uint32_t", "uint64_t", "intptr_t", "uintptr_t"};
  return std::find(kWords.begin(), kWords.end(), word) != kWords.end();
}

bool known_directive(std::string_view name) {
  static constexpr std::array kNames = {"",      "include", "include_next", "import", "define", "undef",
                                        "if",    "ifdef",   "ifndef",       "elif",   "elifdef", "elifndef",
                                        "else",  "endif",   "pragma",       "error",  "warning", "line",
                                        "embed", "ident"};
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end() ||
         std::all_of(name.begin(), name.end(), [](char c) { return digit(c); });  // # 12 "file"
}

// Why one line's tokens are not code, or "".
std::string prose_sign(const std::vector<Token> &line) {
  int words_in_a_row = 0;
  for (const Token &token : line) {
    if (token.kind == Kind::stray)
      return token.text.front() == '"' || token.text.front() == '\''
                 ? "a quote that never closes"
                 : "the character " + std::string(token.text.substr(0, 1));
    const bool word = token.kind == Kind::identifier && !keyword(token.text);
    if (word && std::any_of(token.text.begin(), token.text.end(), [](char c) { return (c & 0x80) != 0; }))
      return "letters outside C's character set";
    words_in_a_row = word ? words_in_a_row + 1 : 0;
    if (words_in_a_row == 3) return "words in a row, as in a sentence";
  }
  const Token &last = line.back();
  if (last.is(".") || (last.kind == Kind::number && last.text.ends_with(".")))
    return "a sentence's full stop at its end";
  if (last.is("!")) return "an exclamation mark at its end";
  return "";
}

std::string_view line_text(std::string_view text, int line) {
  std::size_t begin = 0;
  for (int i = 1; i < line && begin != std::string_view::npos; ++i) {
    begin = text.find('\n', begin);
    if (begin != std::string_view::npos) ++begin;
  }
  if (begin == std::string_view::npos) return {};
  std::string_view rest = text.substr(begin, text.find('\n', begin) - begin);
  const std::size_t first = rest.find_first_not_of(" \t");
  rest = first == std::string_view::npos ? std::string_view() : rest.substr(first);
  return rest.substr(0, std::min<std::size_t>(rest.size(), 40));
}

std::string not_code_reason(std::string_view text, const Lexed &lexed, int brace_balance, int paren_balance,
                            int bracket_balance) {
  if (!lexed.unterminated.empty()) return lexed.unterminated;
  // The earliest line that is not code, directives and token lines alike.
  int worst_line = 0;
  std::string why;
  auto consider = [&](int line, std::string sign) {
    if (!sign.empty() && (worst_line == 0 || line < worst_line)) {
      worst_line = line;
      why = std::move(sign);
    }
  };
  for (const Directive &directive : lexed.directives)
    if (!known_directive(directive.name)) consider(directive.line, "# and a word that is no directive: a heading");
  for (std::size_t i = 0; i < lexed.tokens.size();) {
    std::size_t end = i;
    while (end < lexed.tokens.size() && lexed.tokens[end].line == lexed.tokens[i].line) ++end;
    const std::vector<Token> line(lexed.tokens.begin() + i, lexed.tokens.begin() + end);
    consider(line.front().line, prose_sign(line));
    i = end;
  }
  if (worst_line > 0)
    return "line " + std::to_string(worst_line) + " (\"" + std::string(line_text(text, worst_line)) +
           "\") is not code: " + why;
  if (brace_balance != 0) return "its braces { } do not balance";
  if (paren_balance != 0) return "its parentheses do not balance";
  if (bracket_balance != 0) return "its brackets [ ] do not balance";
  return "";
}

}  // namespace

CodeShape read_code_shape(std::string_view text) {
  const Lexed lexed = Lexer(text).run();
  CodeShape shape;
  std::vector<bool> bodies;  // per open brace: whether it opens a body (not extern "C" or a namespace)
  int open_bodies = 0, parens = 0, brackets = 0, braces = 0;
  bool namespace_pending = false;
  const std::vector<Token> &tokens = lexed.tokens;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const Token &token = tokens[i];
    if (token.is("{")) {
      const bool linkage = i >= 2 && tokens[i - 1].kind == Kind::literal && tokens[i - 2].is("extern");
      const bool body = !linkage && !namespace_pending;
      bodies.push_back(body);
      open_bodies += body;
      namespace_pending = false;
      ++braces;
    } else if (token.is("}")) {
      --braces;
      if (!bodies.empty()) {
        open_bodies -= bodies.back();
        bodies.pop_back();
      }
    } else if (token.is("(")) {
      ++parens;
    } else if (token.is(")")) {
      --parens;
    } else if (token.is("[")) {
      ++brackets;
    } else if (token.is("]")) {
      --brackets;
    } else if (token.is("namespace")) {
      namespace_pending = true;
    } else if (token.is(";") || token.is("=")) {
      namespace_pending = false;
    } else if (token.kind == Kind::identifier && token.text == kEntryPointName) {
      shape.mentions_entry = true;
      if (open_bodies == 0 && defines_at(tokens, i)) shape.definition_lines.push_back(token.line);
    }
  }
  shape.not_code = not_code_reason(text, lexed, braces, parens, brackets);
  return shape;
}

}  // namespace hpcreward
