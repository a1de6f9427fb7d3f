#pragma once
// A C lexer for the checks that must run before any compiler sees the file: translation
// phases 1-3 as gcc performs them (a leading UTF-8 byte order mark skipped; line splices,
// also with blanks before the newline; CR, CRLF and LF line ends; trigraphs only when the
// flags enable them; comments; digraphs) and preprocessing tokens, with header names after
// #include; C2x digit separators (1'000) only when the flags select C2x. It never touches
// the file system and never expands macros: it sees what the author wrote, in every #if
// branch. It does not lex gcc's raw strings (R"x(...)x", a GNU extension in C): a source
// with one is refused (raw_string_prefix), and up to the first one gcc and this lexer agree.
#include <string>
#include <string_view>
#include <vector>

namespace hpcreward::source_checks {

enum class TokenKind {
  identifier,
  number,       // a pp-number
  string,       // a string literal or character constant, with its prefix and quotes
  header_name,  // <...> or "..." right after #include, #include_next or #import
  punctuator,   // digraphs spelled as what they stand for: %: is "#", <: is "["
  other,        // a stray character (\, @, `), or an unterminated literal to the line's end
};

struct Token {
  TokenKind kind = TokenKind::other;
  std::string text;            // the spelling with line splices (and trigraphs) removed
  int line = 0;                // 1-based line of the token's first character in the original source
  bool line_start = false;     // first token of a logical line: a # here starts a directive
  bool after_newline = false;  // a newline (even one inside a comment) since the last token
  bool space_before = false;   // whitespace or a comment right before it
  bool is(std::string_view spelling) const { return text == spelling; }
};

struct LexOptions {
  bool trigraphs = false;         // gcc replaces trigraphs only in ISO modes (-std=c11, -ansi)
  bool digit_separators = false;  // C2x: 1'000 is one number
};

std::vector<Token> lex_c(std::string_view source, const LexOptions &options = {});

// Whether `token` (followed by `next`) starts what gcc lexes as a raw string: R, LR, uR, UR
// or u8R right before a double quote.
bool raw_string_prefix(const Token &token, const Token *next);

// The characters a string literal stands for in _Pragma: prefix and quotes dropped, \" and
// \\ unescaped (C11 6.10.9).
std::string destringize(std::string_view literal);

}  // namespace hpcreward::source_checks
