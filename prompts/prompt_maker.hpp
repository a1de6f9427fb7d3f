#pragma once
// A problem's prompt for a stage: the one place that turns a request (problem, and a stage or
// "the current one") into the prompt's text, for the command line (hpcreward-prompts) and
// serve mode's GET /v1/prompts alike.
#include <map>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/messages.hpp"
#include "common/problem_catalog.hpp"
#include "prompts/node_description.hpp"
#include "prompts/prompt_template.hpp"
#include "stages/ladder_config.hpp"

namespace hpcreward::prompts {

struct Prompt {
  std::string problem;
  std::string stage;
  bool current_stage = false;  // the stage is where the problem stands in the run
  std::string text;
};
void to_json(nlohmann::json &out, const Prompt &prompt);  // {"problem","stage","current_stage","prompt"}

struct PromptRefusal {
  bool not_found = false;  // no such problem (else: a stage that does not fit it)
  std::string message;     // says what to fix
};

class PromptMaker {
 public:
  // `ranks`: the run's benchmark ranks (their hellos), or none (the hardware then comes from
  // `fallback_nodes`, such as this machine's CPU). `reward_unit`: RewardMode::unit().
  PromptMaker(ProblemCatalog catalog, LadderConfig ladder, PromptTemplate prompt_template, std::vector<RankInfo> ranks,
              std::vector<NodeDescription> fallback_nodes, std::string reward_unit);

  // `stage` "" asks for the problem's current stage: `current[problem]` where the run has
  // one, else the first stage of its language's ladder.
  std::variant<Prompt, PromptRefusal> make(const std::string &problem, const std::string &stage,
                                           const std::map<std::string, std::string> &current) const;

  const ProblemCatalog &catalog() const { return catalog_; }
  const LadderConfig &ladder() const { return ladder_; }

 private:
  ProblemCatalog catalog_;
  LadderConfig ladder_;
  PromptTemplate template_;
  std::vector<RankInfo> ranks_;
  std::vector<NodeDescription> fallback_nodes_;
  std::string reward_unit_;
};

}  // namespace hpcreward::prompts
