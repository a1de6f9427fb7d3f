#include "prompts/prompt_template.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "prompts/builtin_prompt.hpp"
#include "prompts/prompt_fields.hpp"

namespace hpcreward::prompts {

namespace {

bool field_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }

}  // namespace

PromptTemplate PromptTemplate::parse(std::string text, std::string source) {
  PromptTemplate result;
  result.text_ = std::move(text);
  result.source_ = std::move(source);
  const std::string &t = result.text_;
  std::string literal;
  std::size_t at = 0;
  while (at < t.size()) {
    const std::size_t open = t.find("{{", at);
    if (open == std::string::npos) break;
    const std::size_t close = t.find("}}", open + 2);
    const bool placeholder = close != std::string::npos && close > open + 2 && t[open + 2] >= 'a' &&
                             t[open + 2] <= 'z' && std::all_of(t.begin() + open + 2, t.begin() + close, field_char);
    if (!placeholder) {  // text such as C's {{0}} initializer
      literal += t.substr(at, open + 2 - at);
      at = open + 2;
      continue;
    }
    const std::string name = t.substr(open + 2, close - open - 2);
    const std::vector<std::string> &known = prompt_field_names();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      const long line = 1 + std::count(t.begin(), t.begin() + open, '\n');
      std::string names;
      for (const std::string &field : known) names += (names.empty() ? "" : ", ") + field;
      throw std::invalid_argument(result.source_ + ":" + std::to_string(line) + ": no prompt field {{" + name +
                                  "}}; the fields are " + names + " (prompts/README.md says what each holds)");
    }
    literal += t.substr(at, open - at);
    result.pieces_.push_back({std::move(literal), false});
    literal.clear();
    result.pieces_.push_back({name, true});
    at = close + 2;
  }
  literal += t.substr(std::min(at, t.size()));
  result.pieces_.push_back({std::move(literal), false});
  return result;
}

PromptTemplate PromptTemplate::load(const std::filesystem::path &file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::invalid_argument("cannot read the prompt template " + file.string());
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), file.string());
}

PromptTemplate PromptTemplate::builtin() {
  return parse(std::string(builtin_prompt_template()), "prompts/default_prompt.txt (built in)");
}

std::string PromptTemplate::render(const PromptFields &fields) const {
  std::string out;
  for (const Piece &piece : pieces_) {
    if (!piece.field) {
      out += piece.text;
      continue;
    }
    const auto found = fields.find(piece.text);
    if (found == fields.end()) throw std::logic_error("prompt field " + piece.text + " was not filled");
    out += found->second;
  }
  return out;
}

}  // namespace hpcreward::prompts
