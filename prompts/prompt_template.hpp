#pragma once
// A prompt template: text with {{field}} placeholders (prompt_fields.hpp lists the fields and
// what each holds). Parsed once, so a misspelt field is an error at start that names the file,
// the line and the fields there are, never a prompt with a hole in it.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace hpcreward::prompts {

using PromptFields = std::map<std::string, std::string>;

class PromptTemplate {
 public:
  // `source` names the text in errors ("prompts/default_prompt.txt", a user's file). A
  // placeholder is {{name}} with name of [a-z][a-z0-9_]*; any other {{ is text. Throws
  // std::invalid_argument when a placeholder names a field prompt_field_names() lacks.
  static PromptTemplate parse(std::string text, std::string source);
  static PromptTemplate load(const std::filesystem::path &file);  // throws, naming the file
  static PromptTemplate builtin();                                // prompts/default_prompt.txt

  // The text with every placeholder replaced by its field (fields must hold every name the
  // template uses: prompt_fields() does).
  std::string render(const PromptFields &fields) const;
  const std::string &source() const { return source_; }
  const std::string &text() const { return text_; }

 private:
  struct Piece {
    std::string text;
    bool field = false;  // text is a field's name
  };
  std::string text_, source_;
  std::vector<Piece> pieces_;
};

}  // namespace hpcreward::prompts
