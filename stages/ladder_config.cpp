#include "stages/ladder_config.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "common/stage_libraries.hpp"
#include "techniques/known_techniques.hpp"

namespace hpcreward {
namespace {

using nlohmann::json;
using techniques::kCTechniques;
using techniques::kCudaTechniques;

// Every error names the file and where in it, so whoever edits the ladder knows what to fix.
[[noreturn]] void fail(std::string_view source, const std::string &where, const std::string &what) {
  throw std::invalid_argument(std::string(source) + ": " + where + ": " + what);
}

template <std::size_t N>
std::string join(const std::string_view (&names)[N]) {
  std::string list;
  for (std::string_view t : names) list += (list.empty() ? "" : ", ") + std::string(t);
  return list;
}

std::string known_techniques_list() {
  return "C stages: " + join(kCTechniques) + "; CUDA stages: " + join(kCudaTechniques);
}

std::string language_name(Language language) { return language == Language::c ? "C" : "CUDA"; }

// Unknown keys are rejected: a misspelt "requires" would otherwise silently drop a constraint.
void reject_unknown_keys(std::string_view source, const std::string &where, const json &object,
                         std::initializer_list<std::string_view> known) {
  for (const auto &[key, value] : object.items()) {
    if (key.starts_with("_")) continue;  // "_comment" and the like
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string list;
      for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      fail(source, where, "unknown key \"" + key + "\" (known keys: " + list + ")");
    }
  }
}

std::vector<std::string> string_list(std::string_view source, const std::string &where,
                                     const json &object, const char *key) {
  if (!object.contains(key)) return {};
  const json &value = object.at(key);
  if (!value.is_array()) fail(source, where, std::string("\"") + key + "\" must be an array of strings");
  std::vector<std::string> out;
  for (const json &item : value) {
    if (!item.is_string() || item.get<std::string>().empty())
      fail(source, where, std::string("\"") + key + "\" must hold non-empty strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::vector<std::string> technique_list(std::string_view source, const std::string &where,
                                        const json &object, const char *key, Language language) {
  std::vector<std::string> techniques = string_list(source, where, object, key);
  std::set<std::string> seen;
  for (const std::string &t : techniques) {
    const std::optional<Language> own = techniques::technique_language(t);
    if (!own)
      fail(source, where,
           std::string("unknown technique \"") + t + "\" in \"" + key + "\" (known: " +
               known_techniques_list() + ")");
    if (*own != language)
      fail(source, where,
           std::string("technique \"") + t + "\" in \"" + key + "\" is a " + language_name(*own) +
               " technique, but this is a " + language_name(language) + " stage (its techniques: " +
               (language == Language::c ? join(kCTechniques) : join(kCudaTechniques)) + "): " +
               (*own == Language::cuda ? "set \"language\": \"cuda\" on the stage, or drop it"
                                       : "drop it, or make this a C stage (no \"language\": \"cuda\")"));
    if (!seen.insert(t).second)
      fail(source, where, std::string("technique \"") + t + "\" listed twice in \"" + key + "\"");
  }
  return techniques;
}

double number(std::string_view source, const std::string &where, const json &rule, const char *key) {
  if (!rule.contains(key) || !rule.at(key).is_number())
    fail(source, where, std::string("needs a number \"") + key + "\"");
  return rule.at(key).get<double>();
}

int positive_count(std::string_view source, const std::string &where, const json &rule,
                   const char *key) {
  if (!rule.contains(key) || !rule.at(key).is_number_integer() || rule.at(key).get<long long>() < 1 ||
      rule.at(key).get<long long>() > 1'000'000'000)
    fail(source, where, std::string("needs a positive integer \"") + key + "\"");
  return static_cast<int>(rule.at(key).get<long long>());
}

AdvanceRule parse_rule(std::string_view source, const std::string &where, const json &rule) {
  if (!rule.is_object()) fail(source, where, "each advance rule must be an object with a \"type\"");
  if (!rule.contains("type") || !rule.at("type").is_string())
    fail(source, where, "advance rule needs a string \"type\"");
  std::string type_name = rule.at("type").get<std::string>();
  std::optional<RuleType> type = parse_rule_type(type_name);
  if (!type)
    fail(source, where,
         "unknown rule type \"" + type_name +
             "\" (known: best_gflops, best_fraction_of_blas, best_fraction_of_yardstick, success_rate, plateau, "
             "max_candidates)");
  const std::string at = where + " rule " + type_name;
  AdvanceRule out;
  out.type = *type;
  switch (*type) {
    case RuleType::best_gflops:
      reject_unknown_keys(source, at, rule, {"type", "threshold"});
      out.threshold = number(source, at, rule, "threshold");
      if (!(out.threshold > 0)) fail(source, at, "bad threshold: GFLOPS must be > 0");
      break;
    case RuleType::best_fraction_of_blas:
    case RuleType::best_fraction_of_yardstick:
      reject_unknown_keys(source, at, rule, {"type", "threshold"});
      out.threshold = number(source, at, rule, "threshold");
      // Above 1 would mean beating the library; allowed up to 10x so a typo like 50 is caught.
      if (!(out.threshold > 0 && out.threshold <= 10))
        fail(source, at,
             *type == RuleType::best_fraction_of_blas ? "bad threshold: a fraction of OpenBLAS must be in (0, 10]"
                                                      : "bad threshold: a fraction of the yardstick must be in (0, 10]");
      break;
    case RuleType::success_rate:
      reject_unknown_keys(source, at, rule, {"type", "threshold", "window"});
      out.threshold = number(source, at, rule, "threshold");
      if (!(out.threshold > 0 && out.threshold <= 1))
        fail(source, at, "bad threshold: an ok fraction must be in (0, 1]");
      out.window = positive_count(source, at, rule, "window");
      break;
    case RuleType::plateau:
    case RuleType::max_candidates:
      reject_unknown_keys(source, at, rule, {"type", "window"});
      out.window = positive_count(source, at, rule, "window");
      break;
  }
  return out;
}

StageSpec parse_stage(std::string_view source, std::size_t index, const json &object) {
  std::string where = "stages[" + std::to_string(index) + "]";
  if (!object.is_object()) fail(source, where, "each stage must be an object");
  if (!object.contains("name") || !object.at("name").is_string() ||
      object.at("name").get<std::string>().empty())
    fail(source, where, "stage needs a non-empty string \"name\"");
  StageSpec stage;
  stage.name = object.at("name").get<std::string>();
  where = "stage \"" + stage.name + "\"";
  reject_unknown_keys(source, where, object,
                      {"name", "language", "flags", "allows", "requires", "libraries", "advance"});
  if (object.contains("language")) {
    const json &language = object.at("language");
    std::optional<Language> parsed =
        language.is_string() ? parse_language(language.get<std::string>()) : std::nullopt;
    if (!parsed) fail(source, where, "\"language\" must be \"c\" (the default) or \"cuda\"");
    stage.language = *parsed;
  }
  stage.compiler_flags = string_list(source, where, object, "flags");
  if (stage.compiler_flags.empty())
    fail(source, where, "empty \"flags\": give at least the optimization level, e.g. [\"-O3\"]");
  for (const std::string &flag : stage.compiler_flags)
    if (!flag.starts_with("-"))
      fail(source, where, "flag \"" + flag + "\" does not start with '-'");
  stage.techniques_allowed = technique_list(source, where, object, "allows", stage.language);
  stage.techniques_required = technique_list(source, where, object, "requires", stage.language);
  for (const std::string &t : stage.techniques_required)
    if (std::find(stage.techniques_allowed.begin(), stage.techniques_allowed.end(), t) ==
        stage.techniques_allowed.end())
      fail(source, where,
           "requires \"" + t + "\" but does not allow it: add \"" + t + "\" to \"allows\"");
  stage.libraries = string_list(source, where, object, "libraries");
  for (const std::string &library : stage.libraries) {
    if (!known_stage_library(library))
      fail(source, where, "unknown library \"" + library + "\" in \"libraries\" (known: " + join(kStageLibraries) + ")");
    if (stage.language != Language::cuda)
      fail(source, where, "\"libraries\": [\"" + library + "\"] is for CUDA stages (\"language\": \"cuda\")");
  }
  if (object.contains("advance")) {
    if (!object.at("advance").is_array()) fail(source, where, "\"advance\" must be an array of rules");
    for (const json &rule : object.at("advance")) stage.advance.push_back(parse_rule(source, where, rule));
  }
  return stage;
}

}  // namespace

std::string_view to_string(RuleType type) {
  switch (type) {
    case RuleType::best_gflops: return "best_gflops";
    case RuleType::best_fraction_of_blas: return "best_fraction_of_blas";
    case RuleType::best_fraction_of_yardstick: return "best_fraction_of_yardstick";
    case RuleType::success_rate: return "success_rate";
    case RuleType::plateau: return "plateau";
    case RuleType::max_candidates: return "max_candidates";
  }
  return "best_gflops";
}

std::optional<RuleType> parse_rule_type(std::string_view text) {
  for (RuleType type : {RuleType::best_gflops, RuleType::best_fraction_of_blas, RuleType::best_fraction_of_yardstick,
                        RuleType::success_rate, RuleType::plateau, RuleType::max_candidates})
    if (to_string(type) == text) return type;
  return std::nullopt;
}

const StageSpec *LadderConfig::find(std::string_view name) const {
  for (const StageSpec &stage : stages)
    if (stage.name == name) return &stage;
  return nullptr;
}

const std::vector<std::string> &LadderConfig::ladder_for(Language language) const {
  return language == Language::cuda ? cuda_ladder : ladder;
}

std::optional<std::size_t> LadderConfig::ladder_index(std::string_view name, Language language) const {
  const std::vector<std::string> &order = ladder_for(language);
  for (std::size_t i = 0; i < order.size(); ++i)
    if (order[i] == name) return i;
  return std::nullopt;
}

LadderConfig parse_ladder_config(std::string_view json_text, std::string_view source) {
  json root;
  try {
    root = json::parse(json_text);
  } catch (const json::parse_error &error) {
    fail(source, "JSON", std::string("not valid JSON: ") + error.what());
  }
  if (!root.is_object()) fail(source, "top level", "must be an object with \"ladder\" and \"stages\"");
  reject_unknown_keys(source, "top level", root,
                      {"ladder", "cuda_ladder", "stages", "avx512_unsupported", "archive_shaping"});

  LadderConfig config;
  if (!root.contains("stages") || !root.at("stages").is_array() || root.at("stages").empty())
    fail(source, "top level", "needs a non-empty array \"stages\"");
  std::size_t index = 0;
  for (const json &object : root.at("stages")) {
    StageSpec stage = parse_stage(source, index++, object);
    if (config.find(stage.name))
      fail(source, "stage \"" + stage.name + "\"", "duplicate stage name: each name must be unique");
    config.stages.push_back(std::move(stage));
  }

  config.ladder = string_list(source, "top level", root, "ladder");
  if (config.ladder.empty()) fail(source, "top level", "needs a non-empty array \"ladder\" of stage names");
  config.cuda_ladder = string_list(source, "top level", root, "cuda_ladder");
  if (root.contains("cuda_ladder") && config.cuda_ladder.empty())
    fail(source, "cuda_ladder", "is empty: name the CUDA stages CUDA problems climb, or drop the key");
  std::set<std::string> in_ladder;
  for (Language language : {Language::c, Language::cuda}) {
    const char *key = language == Language::c ? "ladder" : "cuda_ladder";
    for (const std::string &name : config.ladder_for(language)) {
      const StageSpec *stage = config.find(name);
      if (!stage)
        fail(source, key, "names stage \"" + name + "\", which \"stages\" does not define");
      if (stage->language != language)
        fail(source, key,
             "names stage \"" + name + "\", a " + language_name(stage->language) + " stage: " +
                 (language == Language::c
                      ? "CUDA stages belong in \"cuda_ladder\"; move it there"
                      : "C stages belong in \"ladder\"; move it there, or give the stage \"language\": \"cuda\""));
      if (!in_ladder.insert(name).second)
        fail(source, key, "names stage \"" + name + "\" twice");
    }
  }
  // Rules only move a problem along a ladder; on a stage outside both they would never fire.
  for (const StageSpec &stage : config.stages)
    if (!stage.advance.empty() && !in_ladder.count(stage.name)) {
      const char *key = stage.language == Language::c ? "ladder" : "cuda_ladder";
      fail(source, "stage \"" + stage.name + "\"",
           std::string("has \"advance\" rules but is not in \"") + key + "\": add it to \"" + key +
               "\" or drop the rules");
    }

  if (root.contains("avx512_unsupported")) {
    const json &policy = root.at("avx512_unsupported");
    if (policy == "skip") config.avx512_unsupported = UnsupportedPolicy::skip;
    else if (policy == "refuse") config.avx512_unsupported = UnsupportedPolicy::refuse;
    else fail(source, "avx512_unsupported", "must be \"skip\" or \"refuse\"");
  }

  if (root.contains("archive_shaping")) {
    const json &shaping = root.at("archive_shaping");
    const std::string where = "archive_shaping";
    if (!shaping.is_object()) fail(source, where, "must be an object");
    reject_unknown_keys(source, where, shaping, {"enabled", "new_niche_bonus", "new_elite_bonus"});
    if (shaping.contains("enabled")) {
      if (!shaping.at("enabled").is_boolean()) fail(source, where, "\"enabled\" must be true or false");
      config.shaping.enabled = shaping.at("enabled").get<bool>();
    }
    for (const char *key : {"new_niche_bonus", "new_elite_bonus"}) {
      if (!shaping.contains(key)) continue;
      double bonus = number(source, where, shaping, key);
      if (bonus < 0) fail(source, where, std::string("\"") + key + "\" must be >= 0");
      (std::string_view(key) == "new_niche_bonus" ? config.shaping.new_niche_bonus
                                                   : config.shaping.new_elite_bonus) = bonus;
    }
  }
  return config;
}

LadderConfig load_ladder_config(const std::string &path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open the stage ladder file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_ladder_config(text.str(), path);
}

std::string stage_names(const LadderConfig &config) {
  std::string names;
  for (const StageSpec &stage : config.stages) names += (names.empty() ? "" : ", ") + stage.name;
  return names;
}

std::optional<std::string> unsupported_reason(const StageSpec &stage, const RankSupport &support) {
  auto requires_technique = [&](std::string_view name) {
    return std::find(stage.techniques_required.begin(), stage.techniques_required.end(), name) !=
           stage.techniques_required.end();
  };
  if (stage.language == Language::cuda) {
    if (!support.gpu_without_cute.empty() && uses_cutlass_headers(stage.libraries))
      return "stage " + stage.name + " allows CuTe, and " + support.gpu_without_cute + " has no CuTe headers (" +
             std::string(kCuteInstallHint) + ")";
    if (support.gpu_without_hopper.empty() || (!requires_technique("wgmma") && !requires_technique("tma")))
      return std::nullopt;
    return "stage " + stage.name + " requires Hopper's wgmma or TMA (sm_90a), which " + support.gpu_without_hopper +
           " cannot run";
  }
  if (support.avx512) return std::nullopt;
  // Flags like -mavx512f let the compiler emit zmm code on its own: the binary would die
  // with an illegal instruction on this host even if the candidate never asks for AVX-512.
  bool avx512_flags = std::any_of(stage.compiler_flags.begin(), stage.compiler_flags.end(),
                                  [](const std::string &f) { return f.starts_with("-mavx512"); });
  if (requires_technique("avx512")) return "stage " + stage.name + " requires avx512, which this host does not support";
  if (avx512_flags)
    return "stage " + stage.name + " compiles with AVX-512 flags, which this host does not support";
  return std::nullopt;
}

std::optional<std::string> unsupported_for_problem(const StageSpec &stage, const Problem &problem) {
  const bool requires_wgmma = std::find(stage.techniques_required.begin(), stage.techniques_required.end(),
                                        "wgmma") != stage.techniques_required.end();
  if (stage.language != Language::cuda || !requires_wgmma || problem.precision != Precision::f64) return std::nullopt;
  return "stage " + stage.name + " requires wgmma, which has no fp64 form (" + problem.id +
         " is fp64: its tensor-core instructions are mma.sync's DMMA)";
}

std::vector<UnsupportedStage> unsupported_stages(const LadderConfig &config, const RankSupport &support) {
  std::vector<UnsupportedStage> out;
  for (const Language language : {Language::c, Language::cuda})
    for (const std::string &name : config.ladder_for(language))
      if (std::optional<std::string> reason = unsupported_reason(*config.find(name), support))
        out.push_back({name, *reason, language});
  return out;
}

Verdict check_constraints(const StageSpec &stage, const std::vector<std::string> &techniques_used) {
  auto contains = [](const std::vector<std::string> &list, const std::string &item) {
    return std::find(list.begin(), list.end(), item) != list.end();
  };
  std::vector<std::string> problems;
  std::set<std::string> reported;  // detection may report a technique more than once
  auto allowed = [&](const std::string &t) {
    const std::optional<std::string_view> refines = techniques::refined_technique(t);
    return contains(stage.techniques_allowed, t) ||
           (refines && contains(stage.techniques_allowed, std::string(*refines)));
  };
  for (const std::string &t : techniques_used)
    if (!allowed(t) && reported.insert(t).second)
      problems.push_back("stage " + stage.name + " does not allow " + t);
  for (const std::string &t : stage.techniques_required)
    if (!contains(techniques_used, t))
      problems.push_back("stage " + stage.name + " requires " + t + ", which the candidate does not use");
  if (problems.empty()) return {};
  std::string reason;
  for (const std::string &p : problems) reason += (reason.empty() ? "" : "; ") + p;
  return {Status::constraint_violation, reason};
}

Verdict check_constraints(const BenchTask &task, const std::vector<std::string> &techniques_used) {
  StageSpec stage;
  stage.name = task.stage;
  stage.compiler_flags = task.compiler_flags;
  stage.techniques_allowed = task.techniques_allowed;
  stage.techniques_required = task.techniques_required;
  stage.libraries = task.libraries;
  return check_constraints(stage, techniques_used);
}

}  // namespace hpcreward
