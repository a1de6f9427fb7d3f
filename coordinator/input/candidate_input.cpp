#include "coordinator/input/candidate_input.hpp"

#include <algorithm>
#include <optional>

#include <nlohmann/json.hpp>

#include "common/problem_catalog.hpp"
#include "coordinator/input/code_extraction.hpp"

namespace hpcreward {
namespace {

using nlohmann::json;

// Reads an optional string field; a present field of another type is an error.
bool read_string(const json &object, const char *key, std::string *out, std::string *error) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return true;
  if (!it->is_string()) {
    *error = std::string("field \"") + key + "\" must be a string, not " + it->type_name();
    return false;
  }
  *out = it->get<std::string>();
  return true;
}

// The known stages' names, or only those of one language.
std::string join(const std::vector<KnownStage> &stages, std::optional<Language> language = std::nullopt) {
  std::string text;
  for (const KnownStage &stage : stages)
    if (!language || stage.language == *language) text += (text.empty() ? "" : ", ") + stage.name;
  return text;
}

std::string language_name(Language language) { return language == Language::c ? "C" : "CUDA"; }

Verdict reject(std::string reason) { return {Status::format_error, std::move(reason)}; }

Verdict fill_fields(const json &object, const CandidateDefaults &defaults,
                    PreparedCandidate *candidate) {
  std::string error, id, source, completion;
  candidate->problem = defaults.problem;
  candidate->stage = defaults.stage;
  candidate->batch_id = defaults.batch_id;
  if (!read_string(object, "id", &id, &error) ||
      !read_string(object, "problem", &candidate->problem, &error) ||
      !read_string(object, "stage", &candidate->stage, &error) ||
      !read_string(object, "batch_id", &candidate->batch_id, &error) ||
      !read_string(object, "source", &source, &error) ||
      !read_string(object, "completion", &completion, &error))
    return reject(error);

  if (const auto turn = object.find("turn"); turn != object.end() && !turn->is_null()) {
    if (!turn->is_number_integer() || turn->get<long long>() < 1 || turn->get<long long>() > 1000000)
      return reject("field \"turn\" must be an integer from 1 (the episode's first turn), not " + turn->dump());
    candidate->turn = static_cast<int>(turn->get<long long>());
  }
  if (!read_string(object, "episode", &candidate->episode, &error)) return reject(error);
  if (candidate->episode.size() > kMaxCandidateIdBytes)
    return reject("\"episode\" is " + std::to_string(candidate->episode.size()) + " bytes; the limit is " +
                  std::to_string(kMaxCandidateIdBytes));
  if (candidate->turn > 0 && candidate->episode.empty())
    return reject("field \"turn\" needs \"episode\": the turn of which episode?");

  if (id.empty()) return reject("missing \"id\": every candidate needs a unique id");
  if (id.size() > kMaxCandidateIdBytes)
    return reject("\"id\" is " + std::to_string(id.size()) + " bytes; the limit is " +
                  std::to_string(kMaxCandidateIdBytes));
  candidate->id = id;

  if (candidate->problem.empty())
    return reject("missing \"problem\" (and no --problem default); known: " + known_problem_ids());
  const Problem *problem = find_problem(candidate->problem);
  if (!problem)
    return reject("unknown problem \"" + candidate->problem + "\"; known: " + known_problem_ids());
  candidate->stage_named = !candidate->stage.empty();
  if (candidate->stage_named) {
    auto stage = std::find_if(defaults.known_stages.begin(), defaults.known_stages.end(),
                              [&](const KnownStage &known) { return known.name == candidate->stage; });
    if (stage == defaults.known_stages.end())
      return reject("unknown stage \"" + candidate->stage + "\"; known: " + join(defaults.known_stages));
    // A C stage's flags and techniques mean nothing to nvcc, and the reverse: the line asks
    // for something no rank can do, like an unknown stage, whatever its code.
    if (stage->language != problem->language) {
      const std::string own = join(defaults.known_stages, problem->language);
      return reject("stage \"" + stage->name + "\" is a " + language_name(stage->language) + " stage and problem \"" +
                    problem->id + "\" is a " + language_name(problem->language) + " problem: name a " +
                    language_name(problem->language) + " stage" + (own.empty() ? "" : " (" + own + ")") +
                    ", or none for the problem's current stage");
    }
  }

  const bool has_source = object.contains("source") && !object["source"].is_null();
  const bool has_completion = object.contains("completion") && !object["completion"].is_null();
  if (has_source == has_completion)
    return reject("give exactly one of \"source\" (C code) or \"completion\" (model output)");
  auto extracted = has_completion ? extract_from_completion(completion, problem->language)
                                  : code_from_source(source, problem->language);
  if (auto *verdict = std::get_if<Verdict>(&extracted)) return *verdict;
  ExtractedCode &code = std::get<ExtractedCode>(extracted);
  Verdict text = check_source_text(code.code, defaults.max_source_bytes ? defaults.max_source_bytes
                                                                         : kDefaultMaxSourceBytes);
  if (!text.ok()) return text;
  candidate->code = std::move(code.code);
  candidate->judged = std::move(code.judged);
  return {};
}

}  // namespace

PreparedCandidate prepare_candidate(std::string_view json_line, std::size_t line_number,
                                    const CandidateDefaults &defaults) {
  PreparedCandidate candidate;
  candidate.id = "line-" + std::to_string(line_number);
  candidate.batch_id = defaults.batch_id;
  candidate.problem = defaults.problem;
  candidate.stage = defaults.stage;
  json object = json::parse(json_line, nullptr, /*allow_exceptions=*/false);
  if (object.is_discarded()) {
    candidate.verdict = reject("line " + std::to_string(line_number) + " is not valid JSON");
    return candidate;
  }
  if (!object.is_object()) {
    candidate.verdict =
        reject("line " + std::to_string(line_number) + " is JSON but not an object");
    return candidate;
  }
  candidate.verdict = fill_fields(object, defaults, &candidate);
  if (!candidate.verdict.ok()) candidate.code.clear();
  return candidate;
}

}  // namespace hpcreward
