#include "bench_node/source_checks/c_lexer.hpp"

#include <array>
#include <cstddef>

namespace hpcreward::source_checks {

namespace {

// Phases 1 and 2: the text with line ends made '\n' and line splices removed, and for each
// character the original line it came from.
struct Spliced {
  std::string text;
  std::vector<int> line;
};

bool horizontal_space(char c) {
  return c == ' ' || c == '\t' || c == '\f' || c == '\v';
}

char trigraph(char third) {
  switch (third) {
    case '=':
      return '#';
    case '(':
      return '[';
    case ')':
      return ']';
    case '/':
      return '\\';
    case '\'':
      return '^';
    case '<':
      return '{';
    case '>':
      return '}';
    case '!':
      return '|';
    case '-':
      return '~';
    default:
      return 0;
  }
}

Spliced splice(std::string_view source, bool trigraphs) {
  Spliced out;
  out.text.reserve(source.size());
  out.line.reserve(source.size());
  int line = 1;
  std::size_t i = 0;
  // The length of a line end at `at` (\n, \r\n or a lone \r, as gcc reads them), or 0.
  auto newline_at = [&](std::size_t at) -> std::size_t {
    if (at >= source.size()) return 0;
    if (source[at] == '\n') return 1;
    if (source[at] == '\r') return at + 1 < source.size() && source[at + 1] == '\n' ? 2 : 1;
    return 0;
  };
  while (i < source.size()) {
    if (const std::size_t end = newline_at(i)) {
      out.text += '\n';
      out.line.push_back(line++);
      i += end;
      continue;
    }
    char c = source[i];
    std::size_t width = 1;
    if (trigraphs && c == '?' && i + 2 < source.size() && source[i + 1] == '?' &&
        trigraph(source[i + 2])) {
      c = trigraph(source[i + 2]);
      width = 3;
    }
    if (c == '\\') {  // a splice: backslash, optional blanks (gcc warns), line end
      std::size_t j = i + width;
      while (j < source.size() && horizontal_space(source[j])) ++j;
      if (const std::size_t end = newline_at(j)) {
        ++line;
        i = j + end;
        continue;
      }
    }
    out.text += c;
    out.line.push_back(line);
    i += width;
  }
  return out;
}

bool identifier_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool identifier_char(char c) {
  return identifier_start(c) || (c >= '0' && c <= '9');
}
bool digit(char c) {
  return c >= '0' && c <= '9';
}
bool hex_digit(char c) {
  return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Punctuators, longest first; digraphs map to what they stand for.
struct Punctuator {
  std::string_view spelling;
  std::string_view means;
};
constexpr std::array kPunctuators = {
    Punctuator{"%:%:", "##"}, Punctuator{"...", "..."}, Punctuator{"<<=", "<<="},
    Punctuator{">>=", ">>="}, Punctuator{"%:", "#"},    Punctuator{"<:", "["},
    Punctuator{":>", "]"},    Punctuator{"<%", "{"},    Punctuator{"%>", "}"},
    Punctuator{"##", "##"},   Punctuator{"->", "->"},   Punctuator{"++", "++"},
    Punctuator{"--", "--"},   Punctuator{"<<", "<<"},   Punctuator{">>", ">>"},
    Punctuator{"<=", "<="},   Punctuator{">=", ">="},   Punctuator{"==", "=="},
    Punctuator{"!=", "!="},   Punctuator{"&&", "&&"},   Punctuator{"||", "||"},
    Punctuator{"*=", "*="},   Punctuator{"/=", "/="},   Punctuator{"%=", "%="},
    Punctuator{"+=", "+="},   Punctuator{"-=", "-="},   Punctuator{"&=", "&="},
    Punctuator{"^=", "^="},   Punctuator{"|=", "|="},
};
constexpr std::string_view kSingle = "[](){}.&*+-~!/%<>^|?:;=,#";

class Lexer {
 public:
  Lexer(Spliced spliced, bool digit_separators)
      : s_(std::move(spliced)), digit_separators_(digit_separators) {}

  std::vector<Token> run() {
    while (at_ < s_.text.size()) step();
    return std::move(tokens_);
  }

 private:
  char peek(std::size_t ahead = 0) const {
    return at_ + ahead < s_.text.size() ? s_.text[at_ + ahead] : '\0';
  }
  bool starts(std::string_view text) const { return s_.text.compare(at_, text.size(), text) == 0; }

  void emit(TokenKind kind, std::size_t begin, std::string text) {
    Token token;
    token.kind = kind;
    token.text = std::move(text);
    token.line = s_.line[begin];
    token.line_start = line_start_;
    token.after_newline = after_newline_;
    token.space_before = space_;
    // After `# include` the next token is a header name (gcc lexes it so, in any #if branch).
    const std::size_t on_line = line_start_ ? 0 : tokens_on_line_;
    want_header_ =
        on_line == 1 && tokens_.back().is("#") && kind == TokenKind::identifier &&
        (token.text == "include" || token.text == "include_next" || token.text == "import");
    tokens_on_line_ = on_line + 1;
    tokens_.push_back(std::move(token));
    line_start_ = after_newline_ = space_ = false;
  }

  void step() {
    const char c = peek();
    if (c == '\n') {
      line_start_ = after_newline_ = space_ = true;
      want_header_ = false;
      ++at_;
    } else if (horizontal_space(c) || c == '\0') {  // gcc ignores NUL like a blank
      space_ = true;
      ++at_;
    } else if (starts("/*")) {
      const std::size_t end = s_.text.find("*/", at_ + 2);
      const std::size_t stop = end == std::string::npos ? s_.text.size() : end + 2;
      if (s_.text.find('\n', at_) < stop) after_newline_ = true;  // not a new logical line
      space_ = true;
      at_ = stop;
    } else if (starts("//")) {
      const std::size_t end = s_.text.find('\n', at_);
      at_ = end == std::string::npos ? s_.text.size() : end;
      space_ = true;
    } else if (want_header_ && (c == '<' || c == '"')) {
      header_name(c == '<' ? '>' : '"');
    } else if (identifier_start(c) || ucn_length() > 0) {
      identifier();
    } else if (digit(c) || (c == '.' && digit(peek(1)))) {
      number();
    } else if (c == '"' || c == '\'') {
      quoted(at_, at_);
    } else {
      punctuator();
    }
  }

  // \uXXXX or \UXXXXXXXX at the current position (an identifier character), else 0.
  std::size_t ucn_length(std::size_t from = std::string::npos) const {
    const std::size_t p = from == std::string::npos ? at_ : from;
    if (p + 1 >= s_.text.size() || s_.text[p] != '\\') return 0;
    const std::size_t digits = s_.text[p + 1] == 'u' ? 4 : s_.text[p + 1] == 'U' ? 8 : 0;
    if (digits == 0 || p + 2 + digits > s_.text.size()) return 0;
    for (std::size_t i = 0; i < digits; ++i)
      if (!hex_digit(s_.text[p + 2 + i])) return 0;
    return 2 + digits;
  }

  void identifier() {
    const std::size_t begin = at_;
    while (at_ < s_.text.size()) {
      if (identifier_char(peek())) {
        ++at_;
      } else if (const std::size_t ucn = ucn_length()) {
        at_ += ucn;
      } else {
        break;
      }
    }
    const std::string_view text(s_.text.data() + begin, at_ - begin);
    const bool string_prefix = text == "L" || text == "u" || text == "U" || text == "u8";
    if (string_prefix && (peek() == '"' || peek() == '\'')) return quoted(begin, at_);
    emit(TokenKind::identifier, begin, std::string(text));
  }

  void number() {  // pp-number: [.]digit then identifier characters, '.', e+ e- p+ p-
    const std::size_t begin = at_;
    ++at_;
    while (at_ < s_.text.size()) {
      const char c = peek();
      if ((c == '+' || c == '-') &&
          std::string_view("eEpP").find(s_.text[at_ - 1]) != std::string_view::npos) {
        ++at_;
      } else if (identifier_char(c) || c == '.') {
        ++at_;
      } else if (digit_separators_ && c == '\'' && identifier_char(peek(1))) {
        at_ += 2;
      } else if (const std::size_t ucn = ucn_length()) {
        at_ += ucn;
      } else {
        break;
      }
    }
    emit(TokenKind::number, begin, s_.text.substr(begin, at_ - begin));
  }

  // A string literal or character constant starting at `quote` (its prefix from `begin`).
  // Unterminated on its line, gcc (and clang) make the rest of the line one stray token: a
  // comment marker in it starts no comment.
  void quoted(std::size_t begin, std::size_t quote) {
    const char close = s_.text[quote];
    std::size_t p = quote + 1;
    while (p < s_.text.size() && s_.text[p] != close && s_.text[p] != '\n')
      p += s_.text[p] == '\\' && p + 1 < s_.text.size() && s_.text[p + 1] != '\n' ? 2 : 1;
    const bool closed = p < s_.text.size() && s_.text[p] == close;
    at_ = closed ? p + 1 : p;
    emit(closed ? TokenKind::string : TokenKind::other, begin, s_.text.substr(begin, at_ - begin));
  }

  void header_name(char close) {
    const std::size_t begin = at_;
    std::size_t p = at_ + 1;
    while (p < s_.text.size() && s_.text[p] != close && s_.text[p] != '\n') ++p;
    at_ = p < s_.text.size() && s_.text[p] == close ? p + 1 : p;
    emit(TokenKind::header_name, begin, s_.text.substr(begin, at_ - begin));
  }

  void punctuator() {
    const std::size_t begin = at_;
    for (const Punctuator &p : kPunctuators)
      if (starts(p.spelling)) {
        at_ += p.spelling.size();
        return emit(TokenKind::punctuator, begin, std::string(p.means));
      }
    ++at_;
    const char c = s_.text[begin];
    emit(kSingle.find(c) != std::string_view::npos ? TokenKind::punctuator : TokenKind::other,
         begin, std::string(1, c));
  }

  Spliced s_;
  bool digit_separators_;
  std::size_t at_ = 0;
  std::vector<Token> tokens_;
  bool line_start_ = true;
  bool after_newline_ = true;
  bool space_ = false;
  bool want_header_ = false;
  std::size_t tokens_on_line_ = 0;
};

}  // namespace

std::vector<Token> lex_c(std::string_view source, const LexOptions &options) {
  // gcc and clang skip a UTF-8 byte order mark: a # right after it starts a directive.
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  if (source.substr(0, kByteOrderMark.size()) == kByteOrderMark)
    source.remove_prefix(kByteOrderMark.size());
  return Lexer(splice(source, options.trigraphs), options.digit_separators).run();
}

bool raw_string_prefix(const Token &token, const Token *next) {
  if (token.kind != TokenKind::identifier || next == nullptr || next->space_before) return false;
  // A string, or an unterminated one where the raw string runs past the end of the line.
  if (next->text.empty() || next->text[0] != '"') return false;
  return token.text == "R" || token.text == "LR" || token.text == "uR" || token.text == "UR" ||
         token.text == "u8R";
}

std::string destringize(std::string_view literal) {
  const std::size_t open = literal.find('"');
  if (open == std::string_view::npos || literal.size() < open + 2) return {};
  const std::string_view body = literal.substr(open + 1, literal.size() - open - 2);
  std::string out;
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body[i] == '\\' && i + 1 < body.size() && (body[i + 1] == '"' || body[i + 1] == '\\')) ++i;
    out += body[i];
  }
  return out;
}

}  // namespace hpcreward::source_checks
