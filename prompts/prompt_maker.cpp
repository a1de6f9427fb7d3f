#include "prompts/prompt_maker.hpp"

#include "prompts/node_description.hpp"
#include "prompts/prompt_fields.hpp"

namespace hpcreward::prompts {

namespace {

std::string stages_of(const LadderConfig &ladder, Language language) {
  std::string names;
  for (const StageSpec &stage : ladder.stages)
    if (stage.language == language) names += (names.empty() ? "" : ", ") + stage.name;
  return names.empty() ? "none" : names;
}

}  // namespace

void to_json(nlohmann::json &out, const Prompt &prompt) {
  out = {{"problem", prompt.problem},
         {"stage", prompt.stage},
         {"current_stage", prompt.current_stage},
         {"prompt", prompt.text}};
}

PromptMaker::PromptMaker(ProblemCatalog catalog, LadderConfig ladder, PromptTemplate prompt_template,
                         std::vector<RankInfo> ranks, std::vector<NodeDescription> fallback_nodes,
                         std::string reward_unit)
    : catalog_(std::move(catalog)),
      ladder_(std::move(ladder)),
      template_(std::move(prompt_template)),
      ranks_(std::move(ranks)),
      fallback_nodes_(std::move(fallback_nodes)),
      reward_unit_(std::move(reward_unit)) {}

std::variant<Prompt, PromptRefusal> PromptMaker::make(const std::string &problem_id, const std::string &stage_name,
                                                      const std::map<std::string, std::string> &current) const {
  const Problem *problem = catalog_.find(problem_id);
  if (!problem)
    return PromptRefusal{true, "no problem " + problem_id + " in the catalog " + catalog_.source + "; its problems: " +
                                   catalog_.ids()};
  Prompt prompt;
  prompt.problem = problem->id;
  std::string name = stage_name;
  if (name.empty()) {
    prompt.current_stage = true;
    if (const auto at = current.find(problem->id); at != current.end()) {
      name = at->second;
    } else {
      const std::vector<std::string> &ladder = ladder_.ladder_for(problem->language);
      if (ladder.empty())
        return PromptRefusal{false, "the ladder has no " + std::string(to_string(problem->language)) +
                                        " ladder for " + problem->id + " to stand on; name a stage (" +
                                        stages_of(ladder_, problem->language) + ")"};
      name = ladder.front();
    }
  } else if (const auto at = current.find(problem->id); at != current.end()) {
    prompt.current_stage = at->second == name;
  }
  const StageSpec *stage = ladder_.find(name);
  if (!stage || stage->language != problem->language)
    return PromptRefusal{false, (stage ? "stage " + name + " is for " + std::string(to_string(stage->language)) +
                                             " problems"
                                       : "no stage " + name + " in the ladder") +
                                    "; the stages of " + std::string(to_string(problem->language)) + " problems such as " +
                                    problem->id + ": " + stages_of(ladder_, problem->language)};
  prompt.stage = stage->name;
  PromptInputs inputs{*problem, *stage, {}, reward_unit_};
  inputs.nodes = nodes_of_kind(ranks_, problem->language == Language::cuda ? "gpu" : "cpu");
  if (inputs.nodes.empty())
    for (const NodeDescription &node : fallback_nodes_)
      if ((node.kind == "gpu") == (problem->language == Language::cuda)) inputs.nodes.push_back(node);
  prompt.text = template_.render(prompt_fields(inputs));
  return prompt;
}

}  // namespace hpcreward::prompts
