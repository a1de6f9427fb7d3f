// hpcreward-prompts: a problem's prompt for a stage (prompts/README.md), without MPI or a
// running pipeline: the same text GET /v1/prompts serves, from the catalog, the ladder, a
// template and the hardware (a run's hosts, or this machine's CPU).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "common/messages_json.hpp"
#include "common/problem_catalog.hpp"
#include "coordinator/rewards/reward_mode.hpp"
#include "prompts/node_description.hpp"
#include "prompts/prompt_fields.hpp"
#include "prompts/prompt_maker.hpp"
#include "stages/builtin_ladder.hpp"

namespace po = boost::program_options;
using namespace hpcreward;
using namespace hpcreward::prompts;

namespace {

// The log's hosts_json (a JSON array of the ranks' hellos), as results/README.md describes it.
std::vector<RankInfo> read_hosts(const std::string &path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("cannot read --hosts " + path);
  std::vector<RankInfo> ranks;
  try {
    for (const nlohmann::json &entry : nlohmann::json::parse(in)) ranks.push_back(entry.get<RankInfo>());
  } catch (const nlohmann::json::exception &error) {
    throw std::invalid_argument("--hosts " + path + " is not a JSON array of ranks as a log's hosts_json holds (" +
                                error.what() + ")");
  }
  return ranks;
}

void print_fields() {
  for (const PromptFieldDoc &field : prompt_field_docs())
    std::printf("{{%.*s}}  %.*s\n", static_cast<int>(field.name.size()), field.name.data(),
                static_cast<int>(field.holds.size()), field.holds.data());
}

}  // namespace

int main(int argc, char **argv) {
  po::options_description options(
      "hpcreward-prompts [--problems NAME|FILE] [--ladder FILE] [--template FILE] [--hosts FILE] [--stage NAME | "
      "--all-stages] [--json] PROBLEM...");
  options.add_options()("help,h", "this text")
      ("problems", po::value<std::string>()->default_value("default"), "a built-in catalog's name or a catalog file")
      ("ladder", po::value<std::string>(), "stage ladder file (default: the built-in stages/default_ladder.json)")
      ("template", po::value<std::string>(), "prompt template file (default: the built-in prompts/default_prompt.txt)")
      ("hosts", po::value<std::string>(), "the ranks' hardware: a JSON array as a run log's hosts_json attribute "
                                          "(default: this machine's CPU; GPUs undescribed)")
      ("cores", po::value<int>()->default_value(static_cast<int>(std::thread::hardware_concurrency())),
       "without --hosts: the CPUs a C candidate gets")
      ("stage", po::value<std::string>()->default_value(""), "the stage (default: the first of the problem's ladder)")
      ("all-stages", po::bool_switch(), "one prompt per stage of the problem's language")
      ("reward-mode", po::value<std::string>()->default_value("gflops"), "gflops, fraction or speedup:NAME, as the run's")
      ("json", po::bool_switch(), "JSON Lines: {problem, stage, current_stage, prompt} per prompt")
      ("fields", po::bool_switch(), "list the fields a template may use, and exit")
      ("problem", po::value<std::vector<std::string>>(), "problem ids");
  po::positional_options_description positional;
  positional.add("problem", -1);
  po::variables_map values;
  try {
    po::store(po::command_line_parser(argc, argv).options(options).positional(positional).run(), values);
    po::notify(values);
    if (values.count("help")) {
      std::cout << options;
      return 0;
    }
    if (values["fields"].as<bool>()) {
      print_fields();
      return 0;
    }
    if (!values.count("problem")) throw std::invalid_argument("name a problem (hpcreward-problems lists them)");
    LadderConfig ladder = values.count("ladder") ? load_ladder_config(values["ladder"].as<std::string>())
                                                 : parse_ladder_config(builtin_ladder_json(), "stages/default_ladder.json");
    PromptTemplate prompt_template = values.count("template") ? PromptTemplate::load(values["template"].as<std::string>())
                                                              : PromptTemplate::builtin();
    std::vector<RankInfo> ranks = values.count("hosts") ? read_hosts(values["hosts"].as<std::string>())
                                                         : std::vector<RankInfo>{};
    const PromptMaker maker(load_problem_catalog(values["problems"].as<std::string>()), std::move(ladder),
                            std::move(prompt_template), std::move(ranks), {this_machine_cpu(values["cores"].as<int>())},
                            RewardMode::parse(values["reward-mode"].as<std::string>()).unit());
    const bool json = values["json"].as<bool>();
    bool first = true;
    for (const std::string &id : values["problem"].as<std::vector<std::string>>()) {
      std::vector<std::string> stages{values["stage"].as<std::string>()};
      if (values["all-stages"].as<bool>()) {
        const Problem *problem = maker.catalog().find(id);
        if (problem) {
          stages.clear();
          for (const StageSpec &stage : maker.ladder().stages)
            if (stage.language == problem->language) stages.push_back(stage.name);
        }
      }
      for (const std::string &stage : stages) {
        auto made = maker.make(id, stage, {});
        if (const auto *refusal = std::get_if<PromptRefusal>(&made)) throw std::invalid_argument(refusal->message);
        const Prompt &prompt = std::get<Prompt>(made);
        if (json) {
          std::printf("%s\n", nlohmann::json(prompt).dump().c_str());
        } else {
          std::printf("%s=== %s, stage %s ===\n%s", first ? "" : "\n", prompt.problem.c_str(), prompt.stage.c_str(),
                      prompt.text.c_str());
        }
        first = false;
      }
    }
    return 0;
  } catch (const std::exception &error) {
    std::fprintf(stderr, "hpcreward-prompts: %s\n", error.what());
    return 2;
  }
}
