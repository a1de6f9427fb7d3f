#pragma once
// What a prompt may say, as named fields, each built from the run's own configuration: the
// problem (catalog), the stage (ladder), the hardware (the ranks' hellos) and the reward mode.
// Templates (prompt_template.hpp) place them; prompts/README.md documents each one. A field
// states only what the harness enforces (tests/prompts/ check the lists against the checks).
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/problem.hpp"
#include "prompts/node_description.hpp"
#include "prompts/prompt_template.hpp"
#include "stages/ladder_config.hpp"

namespace hpcreward::prompts {

struct PromptFieldDoc {
  std::string_view name;
  std::string_view holds;
};

// Every field, in the order prompts/README.md lists them.
std::span<const PromptFieldDoc> prompt_field_docs();
const std::vector<std::string> &prompt_field_names();

// The headers a candidate of `language` may include in `stage` (with CuTe's where the stage
// allows it), as the prompt lists them.
std::vector<std::string_view> allowed_headers(Language language, const StageSpec &stage);

// A technique in words a model follows ("OpenMP: #pragma omp parallel for ...").
std::string technique_words(std::string_view technique);

struct PromptInputs {
  const Problem &problem;
  const StageSpec &stage;
  std::vector<NodeDescription> nodes;  // the ranks that score the problem's language; may be empty
  std::string reward_unit = "the measured GFLOPS";  // RewardMode::unit()
};

PromptFields prompt_fields(const PromptInputs &inputs);

}  // namespace hpcreward::prompts
