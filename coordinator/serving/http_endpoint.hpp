#pragma once
// Serve mode's HTTP/JSON endpoint (coordinator/README.md is its reference): bearer-token
// auth, request limits, POST /v1/batches, GET /v1/batches/{id}, POST /get_reward
// (OpenRLHF's remote reward protocol). Its threads touch only the BatchRegistry; scoring
// stays on the main thread.
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/problem.hpp"
#include "coordinator/serving/batch_registry.hpp"
#include "coordinator/input/candidate_input.hpp"
#include "coordinator/serving/tls_files.hpp"
#include "prompts/prompt_maker.hpp"

namespace httplib {
class Server;
}

namespace hpcreward {

inline constexpr std::size_t kDefaultMaxRequestBytes = 16 * 1024 * 1024;
inline constexpr std::size_t kDefaultMaxBatchCandidates = 1024;
inline constexpr std::size_t kMaxBatchIdBytes = 64;

struct EndpointConfig {
  std::string token;  // every request must carry `Authorization: Bearer <token>`
  std::size_t max_request_bytes = kDefaultMaxRequestBytes;
  std::size_t max_batch_candidates = kDefaultMaxBatchCandidates;
  CandidateDefaults defaults;  // problem (default), known stages, max source bytes
  int threads = 64;            // HTTP worker threads (a waiting request holds one)
  TlsFiles tls;                // checked certificate and key: serve HTTPS; empty: plain HTTP
  // Why this run cannot score a known problem (no rank of its kind: problem_support.hpp), or
  // nullopt. A request with a candidate (or an OpenRLHF label) for such a problem is 422.
  std::function<std::optional<std::string>(const Problem &)> refuse_problem;
  std::string reward_mode = "gflops";  // RewardMode::text(), shown by GET /v1/stages
  std::string reward_unit = "the measured GFLOPS";  // RewardMode::unit()
  // GET /v1/prompts (prompts/README.md); null: the route answers 404 saying so.
  std::shared_ptr<const prompts::PromptMaker> prompts;
};

// A request that passed validation: its candidates prepared as JSONL lines would be
// (per-candidate problems are format_error verdicts, not request errors).
struct BatchRequest {
  std::string batch_id;
  std::vector<PreparedCandidate> candidates;
  std::string fingerprint;
  bool wait = false;
};

// A request that did not: HTTP status and a message that says what to fix.
struct RequestError {
  int status = 400;
  std::string message;
};

std::variant<BatchRequest, RequestError> parse_batch_request(std::string_view body, const EndpointConfig &config);
// OpenRLHF: {"query": [...], "prompts": [...], "labels": [...]}. Query i is a completion,
// candidate "q<i>", problem labels[i] (missing, null or empty: the default problem);
// batch_id "openrlhf-" + the first 16 hex digits of sha256(body).
std::variant<BatchRequest, RequestError> parse_reward_request(std::string_view body, const EndpointConfig &config);

// GET /v1/prompts?problem=ID&stage=NAME, both optional: {"prompts": [...]} with the prompt of
// `problem` (every catalog problem this run can score when absent, each of the stage's
// language when a stage is named) at `stage` (default: where each problem stands now).
std::variant<nlohmann::json, RequestError> prompts_json(const EndpointConfig &config, const std::string &problem,
                                                        const std::string &stage,
                                                        const std::map<std::string, std::string> &current_stages);

// {"id","status","reason","feedback","reward","gflops","stage",...} per row.
nlohmann::json results_json(const std::vector<RewardRow> &rows);
// {"batch_id","state","done","total"} (+ "results" when done, "error" when failed).
nlohmann::json snapshot_json(const BatchSnapshot &snapshot);

class HttpEndpoint {
 public:
  HttpEndpoint(BatchRegistry &registry, EndpointConfig config);
  ~HttpEndpoint();
  HttpEndpoint(const HttpEndpoint &) = delete;
  HttpEndpoint &operator=(const HttpEndpoint &) = delete;

  // Binds host:port (port 0: any free port) and serves on a thread of its own (HTTPS when
  // the config has TLS files). Returns the port. Throws std::runtime_error when it cannot bind.
  int start(const std::string &host, int port);
  // Stops accepting connections, lets requests in progress finish, joins the threads.
  void stop();

 private:
  void install_routes();

  BatchRegistry &registry_;
  EndpointConfig config_;
  std::unique_ptr<httplib::Server> server_;
  int listen_socket_ = -1;  // the bound socket, whose listen backlog start() raises
  std::thread thread_;
};

}  // namespace hpcreward
