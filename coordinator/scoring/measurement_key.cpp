#include "coordinator/scoring/measurement_key.hpp"

#include <vector>

#include "common/sha256.hpp"

namespace hpcreward {
namespace {

// Every field length-prefixed, so no two different field lists serialize alike
// ("-O3" "x" and "-O3 x" differ).
void add_field(std::string &text, std::string_view field) {
  text += std::to_string(field.size());
  text += ':';
  text += field;
  text += '\n';
}

void add_list(std::string &text, const std::vector<std::string> &fields) {
  add_field(text, std::to_string(fields.size()));
  for (const std::string &field : fields) add_field(text, field);
}

}  // namespace

std::string measurement_key(std::string_view code_sha256, std::string_view problem, const StageSpec &stage) {
  std::string text = "hpcreward measurement key 2\n";  // 2: the code by its digest
  add_field(text, code_sha256);
  add_field(text, problem);
  add_field(text, stage.name);
  add_field(text, stage.language == Language::cuda ? "cuda" : "c");
  add_list(text, stage.compiler_flags);
  add_list(text, stage.techniques_allowed);
  add_list(text, stage.techniques_required);
  // Only when there are any: the keys of stages without libraries stay what older logs hold.
  if (!stage.libraries.empty()) add_list(text, stage.libraries);
  return sha256_hex(text);
}

}  // namespace hpcreward
