// The lexer must find every token gcc finds, where gcc finds it: splices, comments,
// digraphs, line ends, header names, literals.
#include "bench_node/source_checks/c_lexer.hpp"

#include <gtest/gtest.h>

namespace hpcreward::source_checks {
namespace {

std::vector<std::string> texts(const std::vector<Token> &tokens) {
  std::vector<std::string> out;
  for (const Token &token : tokens) out.push_back(token.text);
  return out;
}

using Texts = std::vector<std::string>;

TEST(CLexer, SplitsIdentifiersNumbersAndPunctuators) {
  EXPECT_EQ(texts(lex_c("int x = a->b + 0x1p-3f;")),
            (Texts{"int", "x", "=", "a", "->", "b", "+", "0x1p-3f", ";"}));
  EXPECT_EQ(texts(lex_c("a<<=b...c##d")), (Texts{"a", "<<=", "b", "...", "c", "##", "d"}));
}

TEST(CLexer, LineSplicesJoinTokensAcrossLines) {
  const auto tokens = lex_c("#inc\\\nlude <std\\\ndef.h>\nx");
  EXPECT_EQ(texts(tokens), (Texts{"#", "include", "<stddef.h>", "x"}));
  EXPECT_EQ(tokens[2].kind, TokenKind::header_name);
  EXPECT_EQ(tokens[3].line, 4);  // lines count in the original source
  EXPECT_TRUE(tokens[3].line_start);
}

TEST(CLexer, SpliceWithBlanksBeforeTheNewlineAndCrLf) {
  // gcc splices a backslash followed by blanks, and reads CR LF and a lone CR as line ends.
  EXPECT_EQ(texts(lex_c("#inc\\  \t\nlude <x.h>")), (Texts{"#", "include", "<x.h>"}));
  EXPECT_EQ(texts(lex_c("#inc\\\r\nlude <x.h>")), (Texts{"#", "include", "<x.h>"}));
  const auto tokens = lex_c("a\rb\r\nc\nd");
  ASSERT_EQ(tokens.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(tokens[i].line, i + 1);
    EXPECT_TRUE(tokens[i].line_start);
  }
}

TEST(CLexer, CommentsAreBlanks) {
  const auto tokens = lex_c("# /* c */ include /* d */ <x.h> // e\nx /* f\n g */ y");
  EXPECT_EQ(texts(tokens), (Texts{"#", "include", "<x.h>", "x", "y"}));
  EXPECT_TRUE(tokens[1].space_before);
  EXPECT_TRUE(tokens[3].line_start);
  EXPECT_FALSE(tokens[4].line_start);  // a newline inside a comment does not start a line
  EXPECT_TRUE(tokens[4].after_newline);
  // A line comment continued by a splice swallows the next line.
  EXPECT_EQ(texts(lex_c("a // b \\\n#include <x.h>\nc")), (Texts{"a", "c"}));
  // Comment markers inside literals are text.
  EXPECT_EQ(texts(lex_c("\"/*\" x \"*/\"")), (Texts{"\"/*\"", "x", "\"*/\""}));
}

TEST(CLexer, DigraphsStandForTheirPunctuators) {
  EXPECT_EQ(texts(lex_c("%:include <x.h>")), (Texts{"#", "include", "<x.h>"}));
  EXPECT_EQ(texts(lex_c("a %:%: b <: :> <% %>")), (Texts{"a", "##", "b", "[", "]", "{", "}"}));
}

TEST(CLexer, TrigraphsOnlyWhenEnabled) {
  // "?" "?=" keeps the C++ compiler from reading the trigraph itself.
  EXPECT_EQ(texts(lex_c("?"
                        "?=include <x.h>")),
            (Texts{"?", "?", "=", "include", "<", "x", ".", "h", ">"}));
  EXPECT_EQ(texts(lex_c("?"
                        "?=include <x.h>",
                        {true})),
            (Texts{"#", "include", "<x.h>"}));
  EXPECT_EQ(texts(lex_c("#inc?"
                        "?/\nlude <x.h>",
                        {true})),
            (Texts{"#", "include", "<x.h>"}));
}

TEST(CLexer, HeaderNamesOnlyAfterIncludeDirectives) {
  EXPECT_EQ(lex_c("#include \"a.h\"")[2].kind, TokenKind::header_name);
  EXPECT_EQ(lex_c("#include_next <a.h>")[2].kind, TokenKind::header_name);
  EXPECT_EQ(lex_c("#import <a.h>")[2].kind, TokenKind::header_name);
  EXPECT_EQ(texts(lex_c("x < y > z")), (Texts{"x", "<", "y", ">", "z"}));
  EXPECT_EQ(texts(lex_c("x #include <a.h>")),
            (Texts{"x", "#", "include", "<", "a", ".", "h", ">"}));
  EXPECT_EQ(lex_c("#include MACRO")[2].kind, TokenKind::identifier);
}

TEST(CLexer, LiteralsKeepTheirContentTogether) {
  EXPECT_EQ(texts(lex_c(R"(a = "x\"#include" 'y' L"w" u8"v";)")),
            (Texts{"a", "=", R"("x\"#include")", "'y'", "L\"w\"", "u8\"v\"", ";"}));
  // Unterminated on its line, gcc makes the rest of the line one stray token (in which a
  // comment marker starts no comment).
  const auto tokens = lex_c("a \"b _Pragma /*\nc */");
  EXPECT_EQ(texts(tokens), (Texts{"a", "\"b _Pragma /*", "c", "*", "/"}));
  EXPECT_EQ(tokens[1].kind, TokenKind::other);
  EXPECT_EQ(texts(lex_c("it's /* x\n#define Y\n")), (Texts{"it", "'s /* x", "#", "define", "Y"}));
}

TEST(CLexer, PpNumbersSwallowIdentifierCharacters) {
  EXPECT_EQ(texts(lex_c("0x_Pragma 1e+5 .5f 1.2.3")), (Texts{"0x_Pragma", "1e+5", ".5f", "1.2.3"}));
}

TEST(CLexer, IdentifiersTakeDollarsAndUtf8) {
  EXPECT_EQ(texts(lex_c("a$b \xc3\xa9t\xc3\xa9 \\u00e9x")),
            (Texts{"a$b", "\xc3\xa9t\xc3\xa9", "\\u00e9x"}));
}

TEST(CLexer, ByteOrderMarkIsSkipped) {
  const auto tokens = lex_c("\xEF\xBB\xBF#include <x.h>\n");
  EXPECT_EQ(texts(tokens), (Texts{"#", "include", "<x.h>"}));
  EXPECT_TRUE(tokens[0].line_start);
}

TEST(CLexer, DigitSeparatorsOnlyInC2x) {
  // In C2x, 1'2 is a number and ' /* an unterminated literal: the next line is a directive.
  // Before C2x, '2 ' is a literal and /* opens a comment that hides it (as gcc reads both).
  EXPECT_EQ(texts(lex_c("x = 1'2 ' /*\n#define Y\n*/", {false, true})),
            (Texts{"x", "=", "1'2", "' /*", "#", "define", "Y", "*", "/"}));
  EXPECT_EQ(texts(lex_c("x = 1'2 ' /*\n#define Y\n*/")), (Texts{"x", "=", "1", "'2 '"}));
}

TEST(CLexer, RawStringsAreNotLexedButSpotted) {
  // Read as R and an unterminated string (gcc's raw string would run on): the prefix is
  // what the rules refuse.
  const auto tokens = lex_c("s = R\"(\n#define X\n)\";\n");
  EXPECT_EQ(texts(tokens), (Texts{"s", "=", "R", "\"(", "#", "define", "X", ")", "\";"}));
  EXPECT_TRUE(tokens[4].line_start);
  EXPECT_TRUE(raw_string_prefix(tokens[2], &tokens[3]));
  const auto more = lex_c("LR\"(b)\" u8R\"x()x\" R \"c\" Q\"d\" R");
  EXPECT_TRUE(raw_string_prefix(more[0], &more[1]));
  EXPECT_TRUE(raw_string_prefix(more[2], &more[3]));
  EXPECT_FALSE(raw_string_prefix(more[4], &more[5]));  // a space between
  EXPECT_FALSE(raw_string_prefix(more[6], &more[7]));
  EXPECT_FALSE(raw_string_prefix(more[8], nullptr));
}

TEST(CLexer, Destringize) {
  EXPECT_EQ(destringize(R"x("GCC optimize(\"O3\")")x"), R"x(GCC optimize("O3"))x");
  EXPECT_EQ(destringize(R"x(L"a\\b")x"), R"x(a\b)x");
  EXPECT_EQ(destringize("x"), "");
}

}  // namespace
}  // namespace hpcreward::source_checks
