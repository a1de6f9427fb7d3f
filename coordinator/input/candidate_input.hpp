#pragma once
// One line of candidate JSON Lines input -> a candidate ready to benchmark, or a
// candidate already decided (format_error with the reason). Never throws on bad input.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/problem.hpp"
#include "common/status.hpp"

namespace hpcreward {

inline constexpr std::size_t kMaxCandidateIdBytes = 64;

// A stage a line may name, and the language of the problems it scores.
struct KnownStage {
  std::string name;
  Language language = Language::c;
};

struct CandidateDefaults {
  std::string problem;   // for lines without "problem"
  std::string stage;     // for lines without "stage"; empty: decided when the batch starts
  // A line's "stage" must be one of these, of its problem's language.
  std::vector<KnownStage> known_stages;
  std::string batch_id;  // for lines without "batch_id"
  std::size_t max_source_bytes = 0;
};

struct PreparedCandidate {
  std::string id;
  std::string batch_id;
  std::string problem;
  std::string stage;  // empty until its batch starts: the problem's current stage then
  bool stage_named = false;  // the line (or --stage) chose the stage, not the ladder
  // Multi-turn training: the episode (at most kMaxCandidateIdBytes) and its turn (1, 2, ...)
  // this candidate is; "" and 0 outside an episode. Labels for the log: they change no score.
  std::string episode;
  int turn = 0;
  std::string code;  // the C or CUDA source to benchmark; empty when the verdict is not ok
  // Which part of a model's answer `code` is (ExtractedCode::judged), for its feedback; empty
  // for a plain source.
  std::string judged;
  std::string code_sha256;  // of `code`, set once by the scoring run (row and measurement key share it)
  Verdict verdict;   // ok: benchmark it; otherwise this is its row's status and reason
};

// `line_number` counts from 1 and names the line in reasons and in the fallback id
// ("line-<n>") of lines whose id is missing or unusable.
PreparedCandidate prepare_candidate(std::string_view json_line, std::size_t line_number,
                                    const CandidateDefaults &defaults);

}  // namespace hpcreward
