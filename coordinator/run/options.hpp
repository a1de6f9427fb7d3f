#pragma once
// The coordinator's command line and config file (Boost.Program_options).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "coordinator/scoring/measurement_cache.hpp"
#include "coordinator/rewards/reward_table.hpp"
#include "coordinator/serving/tls_files.hpp"
#include "common/problem_catalog.hpp"
#include "prompts/prompt_template.hpp"
#include "stages/ladder_config.hpp"

namespace hpcreward {

struct CoordinatorOptions {
  std::filesystem::path candidates;  // JSON Lines input (empty in serve mode)
  bool serve = false;                // take batches over HTTP (coordinator/README.md) instead
  std::string listen_host = "0.0.0.0";  // serve mode: --listen HOST:PORT
  int listen_port = 0;                  // 0: any free port
  std::size_t max_request_bytes = 0;    // serve mode: larger bodies are 413
  std::size_t max_batch_candidates = 0; // serve mode: larger batches are 413
  TlsFiles tls;                         // serve mode: --tls-cert/--tls-key (HTTPS); empty: HTTP
  std::size_t coalesce_window_ms = 200; // serve mode: single-candidate requests gathered this long; 0: off
  std::size_t coalesce_max = 256;       // serve mode: a coalesced group this large goes at once
  std::size_t batches_in_flight = 0;    // serve mode: batches scored at once; 0: no limit
  std::filesystem::path out;         // run directory: rewards.h5, coordinator.pid
  std::string stage;                 // stage of lines without one; empty: the problem's current stage
  LadderConfig ladder;               // --ladder FILE, or the built-in default ladder
  std::string ladder_source;         // the file it came from, for messages and provenance
  std::string ladder_json;           // its text, for the log's provenance
  // Serve mode: GET /v1/prompts fills this template (--prompt-template FILE; checked at start),
  // or the built-in one (prompts/README.md).
  std::optional<prompts::PromptTemplate> prompt_template;
  ProblemCatalog problems;           // --problems NAME or FILE (default: the built-in "default")
  bool resume = false;               // go on with OUT/rewards.h5 instead of creating it
  std::string problem;               // default problem of lines without one
  std::string batch_id;              // default batch id (the input file's stem; serve mode: unused)
  std::uint64_t seed = 0;
  std::size_t max_source_bytes = 0;
  int rank_start_timeout_s = 0;
  double rank_deadline_margin_s = 60;  // a silent rank's deadline: its task limit + this
  double stop_grace_s = 60;            // a stop waits this long for the tasks the ranks hold
  std::size_t repeat_cache_entries = kDefaultRepeatCacheEntries;  // measurements kept for identical candidates; 0: off
  RewardTable rewards;
  nlohmann::json as_json;  // every option, for the log's provenance
};

// Parses argv (and --config FILE). Returns nullopt after printing --help. Throws
// std::invalid_argument with a message that says what to fix on bad options.
std::optional<CoordinatorOptions> parse_coordinator_options(int argc, const char *const *argv);

// The run directory named on the command line (--out DIR or --out=DIR), read without the
// rest: where a configuration error's coordinator.outcome.json goes when parsing fails.
std::optional<std::filesystem::path> out_directory_argument(int argc, const char *const *argv);

}  // namespace hpcreward
