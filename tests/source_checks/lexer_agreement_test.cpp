// Differential test of the lexer against gcc's own preprocessor: random sources made of
// the tricky pieces (splices, comments, quotes, digraphs, trigraphs, BOMs, CRs, digit
// separators, #if 0) around marker directives; every #define and #pragma gcc processes
// must be one the lexer found. (gcc only preprocesses text here; nothing is compiled.)
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <regex>
#include <set>

#include "bench_node/process/child_process.hpp"
#include "bench_node/process/environment.hpp"
#include "bench_node/source_checks/directives.hpp"
#include "bench_node/source_checks/lex_options.hpp"
#include "bench_node/process/work_dir.hpp"

namespace hpcreward::source_checks {
namespace {

const std::vector<std::string> kPieces = {"/*",
                                          "*/",
                                          "//",
                                          "\\\n",
                                          "\\ \n",
                                          "\\\t\r\n",
                                          "\"",
                                          "'",
                                          "\\\"",
                                          "\\'",
                                          "#",
                                          "%:",
                                          "\n",
                                          "\r",
                                          "\r\n",
                                          " ",
                                          "\t",
                                          "\f",
                                          "a",
                                          "?"
                                          "?/",
                                          "?"
                                          "?=",
                                          "\\\\",
                                          "\\",
                                          "<",
                                          ">",
                                          "x = ",
                                          ";",
                                          "(",
                                          ")",
                                          "\xEF\xBB\xBF",
                                          "%:%:",
                                          "##",
                                          "#if 0\n",
                                          "#endif\n",
                                          "#else\n",
                                          "1'2",
                                          "0x'",
                                          "1e",
                                          "'a'",
                                          "$",
                                          "\xC3\xA9",
                                          "\\u00e9",
                                          "u8",
                                          "L",
                                          "/**/",
                                          "*",
                                          "/",
                                          "'\\''",
                                          "\"\\\"\"",
                                          "#define P(x) _Pragma(#x)\n",
                                          "P("};

std::string generate(std::mt19937 &random) {
  std::uniform_int_distribution<int> length(3, 30), piece(0, static_cast<int>(kPieces.size()) - 1);
  std::uniform_real_distribution<double> chance(0, 1);
  const std::vector<std::string> hashes = {"#", "%:", "# ", "#/**/"};
  std::string text;
  int marker = 0;
  for (int i = length(random); i > 0; --i) {
    const double r = chance(random);
    const std::string hash = hashes[static_cast<std::size_t>(chance(random) * hashes.size())];
    if (r < 0.2)
      text += hash + "define X" + std::to_string(marker++) + " 1";
    else if (r < 0.3)
      text += hash + "pragma X" + std::to_string(marker++);
    else if (r < 0.35)
      text += "_Pragma(\"X" + std::to_string(marker++) + "\")";
    else
      text += kPieces[static_cast<std::size_t>(piece(random))];
  }
  return text;
}

// The markers the lexer finds as #define or #pragma (directive or _Pragma operand).
std::set<std::string> lexer_markers(const std::vector<Token> &tokens) {
  std::set<std::string> found;
  const std::regex marker("X[0-9]+");
  auto add = [&](const std::string &word) {
    std::smatch match;
    if (std::regex_search(word, match, marker) && match.position(0) == 0)
      found.insert(match.str(0));
  };
  for (const Directive &directive : directives_of(tokens))
    if ((directive.name == "define" || directive.name == "pragma") && !directive.operands.empty())
      add(directive.operands[0]->text);
  for (std::size_t i = 0; i + 2 < tokens.size(); ++i)
    if (tokens[i].is("_Pragma") && tokens[i + 2].kind == TokenKind::string)
      for (const Token &token : lex_c(destringize(tokens[i + 2].text))) {
        add(token.text);
        break;
      }
  return found;
}

std::string gcc_output(const std::string &gcc, std::vector<std::string> arguments,
                       const std::filesystem::path &directory) {
  ChildSpec spec;
  spec.program = gcc;
  spec.arguments = std::move(arguments);
  spec.environment = inherited_environment();
  set_variable(spec.environment, "LC_ALL", "C");
  spec.working_directory = directory.string();
  spec.deadline_s = 30;
  spec.output_limit = 1 << 20;
  return run_child(spec).output;
}

std::set<std::string> gcc_markers(const std::string &gcc, const std::string &standard,
                                  const std::filesystem::path &directory) {
  std::set<std::string> found;
  const std::string defines =
      gcc_output(gcc, {"-std=" + standard, "-E", "-dM", "-w", "f.c"}, directory);
  const std::regex define("(^|\n)#define (X[0-9]+) ");
  for (auto it = std::sregex_iterator(defines.begin(), defines.end(), define);
       it != std::sregex_iterator(); ++it)
    found.insert((*it)[2]);
  const std::string pragmas = gcc_output(
      gcc, {"-std=" + standard, "-fsyntax-only", "-Wunknown-pragmas", "-fmax-errors=0", "f.c"},
      directory);
  const std::regex pragma("ignoring .#pragma (X[0-9]+)");
  for (auto it = std::sregex_iterator(pragmas.begin(), pragmas.end(), pragma);
       it != std::sregex_iterator(); ++it)
    found.insert((*it)[1]);
  return found;
}

TEST(LexerAgreement, FindsEveryDirectiveGccFinds) {
  const auto gcc = find_executable("gcc");
  if (!gcc) GTEST_SKIP() << "no gcc";
  WorkDir directory(std::filesystem::temp_directory_path(), "hpcreward-lexer-agreement");
  std::mt19937 random(20240611);
  const std::vector<std::string> standards = {"gnu11", "c11", "gnu2x"};
  int compared = 0;
  for (int i = 0; i < 150; ++i) {
    const std::string text = generate(random);
    const std::string &standard = standards[static_cast<std::size_t>(i) % standards.size()];
    const std::vector<Token> tokens = lex_c(text, lex_options({"-std=" + standard}));
    bool raw = false;  // refused anyway; past one, the lexers may disagree
    for (std::size_t t = 0; t < tokens.size(); ++t)
      raw = raw || raw_string_prefix(tokens[t], t + 1 < tokens.size() ? &tokens[t + 1] : nullptr);
    if (raw) continue;
    std::ofstream(directory.path() / "f.c", std::ios::binary) << text;
    const std::set<std::string> mine = lexer_markers(tokens);
    for (const std::string &marker : gcc_markers(*gcc, standard, directory.path()))
      EXPECT_TRUE(mine.count(marker))
          << "gcc -std=" << standard << " finds " << marker << " the lexer misses in:\n"
          << text;
    ++compared;
  }
  EXPECT_GT(compared, 100);
}

}  // namespace
}  // namespace hpcreward::source_checks
