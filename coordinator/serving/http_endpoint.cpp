#include "coordinator/serving/http_endpoint.hpp"

#include <httplib.h>
#include <openssl/crypto.h>
#include <openssl/err.h>

#include <sys/socket.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <set>
#include <stdexcept>

#include "common/messages_json.hpp"
#include "common/problem_catalog.hpp"
#include "common/sha256.hpp"
#include "coordinator/input/utf8_check.hpp"

namespace hpcreward {
namespace {

using nlohmann::json;

// Connections the kernel queues for accept (capped by net.core.somaxconn).
constexpr int kListenBacklog = 4096;

RequestError bad(std::string message, int status = 400) { return {status, std::move(message)}; }

std::string type_of(const json &value) { return value.type_name(); }

bool batch_id_usable(const std::string &id) {
  if (id.empty() || id.size() > kMaxBatchIdBytes) return false;
  for (char c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == ':'))
      return false;
  return true;
}

// Parses a body as JSON, or says where it is not.
std::variant<json, RequestError> parse_json(std::string_view body, const EndpointConfig &config) {
  if (body.size() > config.max_request_bytes)
    return bad("the body is " + std::to_string(body.size()) + " bytes; the limit is " +
                   std::to_string(config.max_request_bytes) + " (--max-request-bytes)",
               413);
  // Checked first: nlohmann's parse error would quote the bad bytes, without naming the field.
  if (std::optional<std::size_t> offset = first_invalid_utf8(body)) return bad(describe_invalid_utf8(body, *offset));
  try {
    json value = json::parse(body);
    if (!value.is_object()) return bad("the body must be a JSON object, not " + type_of(value));
    return value;
  } catch (const json::parse_error &error) {
    return bad("the body is not valid JSON: " + printable_utf8(error.what()));
  }
}

// Checks one candidate object's fields (request errors) and prepares it (candidate errors).
std::variant<PreparedCandidate, RequestError> prepare(const json &object, std::size_t index,
                                                      const std::string &batch_id,
                                                      const EndpointConfig &config,
                                                      CandidateIdentity *identity) {
  const std::string where = "candidates[" + std::to_string(index) + "]";
  if (!object.is_object()) return bad(where + " must be an object, not " + type_of(object));
  auto string_field = [&](const char *key, bool required, std::string *out) -> std::optional<RequestError> {
    auto it = object.find(key);
    if (it == object.end() || it->is_null()) {
      if (required) return bad(where + " has no \"" + key + "\"");
      return std::nullopt;
    }
    if (!it->is_string()) return bad(where + ".\"" + key + "\" must be a string, not " + type_of(*it));
    *out = it->get<std::string>();
    return std::nullopt;
  };
  std::string source, completion;
  identity->problem = config.defaults.problem;
  for (auto error : {string_field("id", true, &identity->id), string_field("problem", false, &identity->problem),
                     string_field("stage", false, &identity->stage), string_field("source", false, &source),
                     string_field("completion", false, &completion)})
    if (error) return *error;
  if (identity->id.empty()) return bad(where + ".\"id\" is empty");
  if (identity->id.size() > kMaxCandidateIdBytes)
    return bad(where + ".\"id\" is " + std::to_string(identity->id.size()) + " bytes; the limit is " +
               std::to_string(kMaxCandidateIdBytes));
  if (identity->problem.empty()) return bad(where + " has no \"problem\"; known: " + known_problem_ids());
  const Problem *problem = find_problem(identity->problem);
  if (!problem)
    return bad(where + ": unknown problem \"" + identity->problem + "\"; known: " + known_problem_ids());
  if (config.refuse_problem)
    if (std::optional<std::string> reason = config.refuse_problem(*problem))
      return bad(where + ": this run cannot score problem " + identity->problem + ": " + *reason, 422);
  const bool has_source = object.contains("source") && !object["source"].is_null();
  const bool has_completion = object.contains("completion") && !object["completion"].is_null();
  if (has_source == has_completion)
    return bad(where + " needs exactly one of \"source\" (C code) or \"completion\" (model output)");
  identity->text_kind = has_source ? "source" : "completion";
  identity->text_sha256 = sha256_hex(has_source ? source : completion);

  json line = object;
  line["problem"] = identity->problem;
  line.erase("batch_id");
  PreparedCandidate candidate = prepare_candidate(line.dump(), index + 1, config.defaults);
  candidate.id = identity->id;
  candidate.batch_id = batch_id;
  candidate.problem = identity->problem;
  return candidate;
}

std::variant<BatchRequest, RequestError> prepare_batch(const std::string &batch_id, const json &candidates,
                                                       bool wait, const EndpointConfig &config) {
  BatchRequest request;
  request.batch_id = batch_id;
  request.wait = wait;
  std::vector<CandidateIdentity> identities;
  std::set<std::string> ids;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    CandidateIdentity identity;
    auto prepared = prepare(candidates[i], i, batch_id, config, &identity);
    if (auto *error = std::get_if<RequestError>(&prepared)) return *error;
    if (!ids.insert(identity.id).second)
      return bad("candidates[" + std::to_string(i) + "]: id \"" + identity.id +
                 "\" appears twice; ids must be unique within a batch");
    request.candidates.push_back(std::get<PreparedCandidate>(std::move(prepared)));
    identities.push_back(std::move(identity));
  }
  request.fingerprint = batch_fingerprint(identities);
  return request;
}

std::optional<RequestError> check_count(std::size_t count, const EndpointConfig &config) {
  if (count > config.max_batch_candidates)
    return bad("the batch has " + std::to_string(count) + " candidates; the limit is " +
                   std::to_string(config.max_batch_candidates) + " (--max-batch-candidates): split it",
               413);
  return std::nullopt;
}

// Never throws: a string that is not UTF-8 (a path or reason echoed back) gets U+FFFD, where
// a plain dump() would throw type_error 316 and turn the answer into a bare 500.
void send_json(httplib::Response &response, int status, const json &body) {
  response.status = status;
  response.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
}

void send_error(httplib::Response &response, int status, const std::string &message) {
  send_json(response, status, {{"error", message}});
}

}  // namespace

std::variant<BatchRequest, RequestError> parse_batch_request(std::string_view body, const EndpointConfig &config) {
  auto parsed = parse_json(body, config);
  if (auto *error = std::get_if<RequestError>(&parsed)) return *error;
  const json &object = std::get<json>(parsed);
  auto id = object.find("batch_id");
  if (id == object.end()) return bad("missing \"batch_id\"");
  if (!id->is_string()) return bad("\"batch_id\" must be a string, not " + type_of(*id));
  const std::string batch_id = id->get<std::string>();
  if (!batch_id_usable(batch_id))
    return bad("\"batch_id\" must be 1 to " + std::to_string(kMaxBatchIdBytes) +
               " letters, digits, '.', '_', '-' or ':'");
  auto candidates = object.find("candidates");
  if (candidates == object.end()) return bad("missing \"candidates\" (a list of candidate objects)");
  if (!candidates->is_array()) return bad("\"candidates\" must be a list, not " + type_of(*candidates));
  if (candidates->empty()) return bad("\"candidates\" is empty");
  if (auto error = check_count(candidates->size(), config)) return *error;
  bool wait = false;
  if (auto it = object.find("wait"); it != object.end() && !it->is_null()) {
    if (!it->is_boolean()) return bad("\"wait\" must be true or false, not " + type_of(*it));
    wait = it->get<bool>();
  }
  return prepare_batch(batch_id, *candidates, wait, config);
}

std::variant<BatchRequest, RequestError> parse_reward_request(std::string_view body, const EndpointConfig &config) {
  auto parsed = parse_json(body, config);
  if (auto *error = std::get_if<RequestError>(&parsed)) return *error;
  const json &object = std::get<json>(parsed);
  auto query = object.find("query");
  if (query == object.end()) return bad("missing \"query\" (a list of completions)");
  if (!query->is_array()) return bad("\"query\" must be a list of strings, not " + type_of(*query));
  if (auto error = check_count(query->size(), config)) return *error;
  json labels = json::array();
  if (auto it = object.find("labels"); it != object.end() && !it->is_null()) {
    if (!it->is_array()) return bad("\"labels\" must be a list of problem ids, not " + type_of(*it));
    if (it->size() != query->size())
      return bad("\"labels\" has " + std::to_string(it->size()) + " entries for " + std::to_string(query->size()) +
                 " queries; give one problem id per query (or none)");
    labels = *it;
  }
  json prompts = json::array();
  if (auto it = object.find("prompts"); it != object.end() && !it->is_null()) {
    if (!it->is_array()) return bad("\"prompts\" must be a list, not " + type_of(*it));
    prompts = *it;
  }
  json candidates = json::array();
  for (std::size_t i = 0; i < query->size(); ++i) {
    const json &text = (*query)[i];
    if (!text.is_string())
      return bad("query[" + std::to_string(i) + "] must be a string, not " + type_of(text));
    // OpenRLHF's query is the prompt followed by the response: only the response is the
    // candidate (a prompt that shows a matmul would otherwise add a second code block).
    std::string completion = text.get<std::string>();
    if (i < prompts.size() && prompts[i].is_string()) {
      const std::string &prompt = prompts[i].get_ref<const std::string &>();
      if (!prompt.empty() && completion.starts_with(prompt)) completion.erase(0, prompt.size());
    }
    json candidate = {{"id", "q" + std::to_string(i)}, {"completion", completion}};
    if (i < labels.size() && !labels[i].is_null()) {
      if (!labels[i].is_string())
        return bad("labels[" + std::to_string(i) + "] must be a problem id string, not " + type_of(labels[i]));
      const std::string label = labels[i].get<std::string>();
      if (!label.empty() && !find_problem(label))
        return bad("labels[" + std::to_string(i) + "] is \"" + label + "\", not a problem id; known: " +
                   known_problem_ids() + " (an empty label means --problem)");
      if (!label.empty()) candidate["problem"] = label;
    }
    candidates.push_back(std::move(candidate));
  }
  const std::string batch_id = "openrlhf-" + sha256_hex(body).substr(0, 16);
  return prepare_batch(batch_id, candidates, /*wait=*/true, config);
}

json results_json(const std::vector<RewardRow> &rows) {
  json list = json::array();
  for (const RewardRow &row : rows)
    list.push_back({{"id", row.candidate_id}, {"status", row.status}, {"reason", row.reason}, {"feedback", row.feedback},
                    {"reward", row.reward}, {"gflops", row.gflops}, {"stage", row.stage},
                    {"episode", row.episode}, {"turn", row.turn},
                    {"device", row.device}, {"measured_as", row.measured_as},
                    {"measured_batch", row.measured_batch},
                    {"yardsticks", {{"openblas", row.openblas_gflops}, {"cublas", row.cublas_gflops},
                                    {"cublaslt", row.cublaslt_gflops}}}});
  return list;
}

std::variant<json, RequestError> prompts_json(const EndpointConfig &config, const std::string &problem,
                                              const std::string &stage,
                                              const std::map<std::string, std::string> &current_stages) {
  if (!config.prompts) return RequestError{404, "this coordinator serves no prompts"};
  const prompts::PromptMaker &maker = *config.prompts;
  std::vector<std::string> ids;
  if (!problem.empty()) {
    ids.push_back(problem);
  } else {
    const StageSpec *named = stage.empty() ? nullptr : maker.ladder().find(stage);
    if (!stage.empty() && !named)
      return RequestError{404, "no stage " + stage + " in the ladder; its stages: " + stage_names(maker.ladder())};
    for (const Problem &each : maker.catalog().problems)
      if ((!named || named->language == each.language) && !(config.refuse_problem && config.refuse_problem(each)))
        ids.push_back(each.id);
  }
  json list = json::array();
  for (const std::string &id : ids) {
    auto made = maker.make(id, stage, current_stages);
    if (const auto *refusal = std::get_if<prompts::PromptRefusal>(&made))
      return RequestError{refusal->not_found ? 404 : 400, refusal->message};
    list.push_back(std::get<prompts::Prompt>(made));
  }
  return json{{"prompts", std::move(list)}, {"reward_mode", config.reward_mode}};
}

json snapshot_json(const BatchSnapshot &snapshot) {
  json body = {{"batch_id", snapshot.batch_id}, {"state", to_string(snapshot.state)},
               {"done", snapshot.done}, {"total", snapshot.total}};
  if (snapshot.state == BatchState::done) body["results"] = results_json(snapshot.results);
  if (snapshot.state == BatchState::failed) body["error"] = snapshot.error;
  return body;
}

namespace {

// Plain HTTP, or HTTPS through cpp-httplib's SSLServer (OpenSSL) with the checked files.
std::unique_ptr<httplib::Server> make_server(const TlsFiles &tls) {
  if (!tls.enabled()) return std::make_unique<httplib::Server>();
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
  ERR_clear_error();
  auto server = std::make_unique<httplib::SSLServer>(tls.cert.c_str(), tls.key.c_str());
  if (!server->is_valid()) {
    char reason[256] = "no reason given";
    if (unsigned long code = ERR_get_error()) ERR_error_string_n(code, reason, sizeof reason);
    throw std::runtime_error("cannot serve HTTPS with --tls-cert " + tls.cert.string() + " and --tls-key " +
                             tls.key.string() + ": OpenSSL says " + reason);
  }
  SSL_CTX_set_min_proto_version(server->ssl_context(), TLS1_2_VERSION);  // whatever the node's openssl.cnf says
  return server;
#else
  throw std::runtime_error("this coordinator was built with a cpp-httplib without OpenSSL support, so it cannot "
                           "serve HTTPS: build against Debian's libcpp-httplib-dev (built with OpenSSL), or "
                           "leave out --tls-cert/--tls-key");
#endif
}

}  // namespace

HttpEndpoint::HttpEndpoint(BatchRegistry &registry, EndpointConfig config)
    : registry_(registry), config_(std::move(config)), server_(make_server(config_.tls)) {
  if (config_.token.empty()) throw std::invalid_argument("the endpoint needs a token");
  install_routes();
}

HttpEndpoint::~HttpEndpoint() { stop(); }

void HttpEndpoint::install_routes() {
  httplib::Server &server = *server_;
  const int threads = config_.threads;
  server.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  // httplib refuses larger bodies (413) before reading them.
  server.set_payload_max_length(config_.max_request_bytes);
  server.set_keep_alive_timeout(2);
  server.set_tcp_nodelay(true);
  // Remembers the listening socket (the last one created before the bind succeeds) for start().
  server.set_socket_options([this](socket_t sock) {
    httplib::default_socket_options(sock);
    listen_socket_ = sock;
  });  // small JSON answers: no Nagle delay on kept-alive connections

  server.set_pre_routing_handler([this](const httplib::Request &request, httplib::Response &response) {
    const std::string header = request.get_header_value("Authorization");
    const std::string prefix = "Bearer ";
    if (header.compare(0, prefix.size(), prefix) != 0) {
      response.set_header("WWW-Authenticate", "Bearer");
      send_error(response, 401,
                 "missing \"Authorization: Bearer <token>\"; the token is in the token_file named by "
                 "coordinator.json in the run directory");
      return httplib::Server::HandlerResponse::Handled;
    }
    const std::string given = header.substr(prefix.size());
    if (given.size() != config_.token.size() ||
        CRYPTO_memcmp(given.data(), config_.token.data(), given.size()) != 0) {
      send_error(response, 403, "wrong token; read it again from the token_file named by coordinator.json "
                                "(it changes each time the coordinator starts)");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });

  // A handler that throws is a bug here, not the client's: say what it was instead of "HTTP 500".
  server.set_exception_handler([](const httplib::Request &request, httplib::Response &response,
                                  std::exception_ptr thrown) {
    std::string what = "unknown exception";
    try {
      std::rethrow_exception(thrown);
    } catch (const std::exception &error) {
      what = error.what();
    } catch (...) {
    }
    send_error(response, 500, "internal error answering " + request.method + " " + request.path + ": " + what);
  });

  // Errors httplib raises itself (413 body too large, 404 no route, 500) get a JSON body too.
  server.set_error_handler(httplib::Server::HandlerWithResponse(
      [this](const httplib::Request &request, httplib::Response &response) {
    if (!response.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    std::string message = "HTTP " + std::to_string(response.status);
    if (response.status == 413)
      message = "the body is larger than " + std::to_string(config_.max_request_bytes) +
                " bytes (--max-request-bytes): split the batch";
    else if (response.status == 404)
      message = "no route " + request.method + " " + request.path +
                "; routes: POST /v1/batches, GET /v1/batches/{batch_id}, GET /v1/stages, GET /v1/problems, "
                "GET /v1/prompts, POST /get_reward";
    send_error(response, response.status, message);
    return httplib::Server::HandlerResponse::Handled;
  }));

  // Submits a parsed request and answers it: results (wait), or the batch's state.
  auto answer = [this](BatchRequest request, httplib::Response &response, bool rewards_only) {
    SubmitOutcome outcome = registry_.submit(request.batch_id, request.fingerprint, std::move(request.candidates));
    if (outcome.kind == SubmitOutcome::conflict) return send_error(response, 409, outcome.message);
    if (outcome.kind == SubmitOutcome::closed) return send_error(response, 503, outcome.message);
    std::optional<BatchSnapshot> snapshot =
        request.wait ? registry_.wait(request.batch_id) : registry_.snapshot(request.batch_id);
    if (!snapshot) return send_error(response, 500, "batch " + request.batch_id + " vanished");
    if (snapshot->state == BatchState::failed)  // 503: the client sends it again after the restart
      return send_error(response, snapshot->retry_later ? 503 : 500,
                        "scoring batch " + request.batch_id + " failed: " + snapshot->error);
    if (rewards_only) {
      json rewards = json::array();
      for (const RewardRow &row : snapshot->results) rewards.push_back(row.reward);
      return send_json(response, 200, {{"rewards", rewards}});
    }
    if (snapshot->state == BatchState::done)
      return send_json(response, 200,
                       {{"batch_id", snapshot->batch_id}, {"results", results_json(snapshot->results)},
                        {"stages", registry_.stages()}});
    send_json(response, 202, snapshot_json(*snapshot));
  };

  server.Post("/v1/batches", [this, answer](const httplib::Request &request, httplib::Response &response) {
    auto parsed = parse_batch_request(request.body, config_);
    if (auto *error = std::get_if<RequestError>(&parsed)) return send_error(response, error->status, error->message);
    answer(std::get<BatchRequest>(std::move(parsed)), response, false);
  });

  server.Post("/get_reward", [this, answer](const httplib::Request &request, httplib::Response &response) {
    auto parsed = parse_reward_request(request.body, config_);
    if (auto *error = std::get_if<RequestError>(&parsed)) return send_error(response, error->status, error->message);
    BatchRequest batch = std::get<BatchRequest>(std::move(parsed));
    if (batch.candidates.empty()) return send_json(response, 200, {{"rewards", json::array()}});
    answer(std::move(batch), response, true);
  });

  server.Get("/v1/stages", [this](const httplib::Request &, httplib::Response &response) {
    send_json(response, 200, {{"stages", registry_.stages()},
                              {"reward_mode", config_.reward_mode},
                              {"reward_of_ok", config_.reward_unit}});
  });

  server.Get("/v1/prompts", [this](const httplib::Request &request, httplib::Response &response) {
    auto answer = prompts_json(config_, request.get_param_value("problem"), request.get_param_value("stage"),
                               registry_.stages());
    if (auto *error = std::get_if<RequestError>(&answer)) return send_error(response, error->status, error->message);
    send_json(response, 200, std::get<json>(answer));
  });

  // The run's problem catalog, whole: what each problem id means (docs/problems.md).
  server.Get("/v1/problems", [](const httplib::Request &, httplib::Response &response) {
    const ProblemCatalog &catalog = installed_problem_catalog();
    send_json(response, 200,
              json{{"catalog", catalog.name}, {"source", catalog.source}, {"problems", json(catalog.problems)}});
  });

  server.Get(R"(/v1/batches/([^/]+))", [this](const httplib::Request &request, httplib::Response &response) {
    const std::string batch_id = request.matches[1];
    if (std::optional<BatchSnapshot> snapshot = registry_.snapshot(batch_id)) {
      json body = snapshot_json(*snapshot);
      if (snapshot->state == BatchState::done) body["stages"] = registry_.stages();
      return send_json(response, 200, body);
    }
    if (registry_.only_logged(batch_id))
      return send_error(response, 404,
                        "batch " + batch_id + " has its rows in the log only (from before the coordinator "
                        "restarted, or answered long ago); POST it again (same batch_id and candidates) to get "
                        "its results");
    send_error(response, 404, "no batch " + batch_id + "; POST /v1/batches submits one");
  });
}

int HttpEndpoint::start(const std::string &host, int port) {
  // Debian's cpp-httplib sends without MSG_NOSIGNAL: a trainer that gives up on a waiting
  // request and closes its connection would otherwise kill the coordinator with SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  int bound = port;
  if (port == 0) {
    bound = server_->bind_to_any_port(host);
    if (bound < 0) throw std::runtime_error("cannot listen on " + host + ":0");
  } else if (!server_->bind_to_port(host, port)) {
    throw std::runtime_error("cannot listen on " + host + ":" + std::to_string(port) +
                             " (in use?); --listen HOST:0 takes any free port");
  }
  // Debian's libcpp-httplib listens with a backlog of 5 (CPPHTTPLIB_LISTEN_BACKLOG, compiled
  // in): a burst of trainer connections overflowed it and a client got "connection reset by
  // peer" (docs/reports/endpoint.md). listen() again on the bound socket takes a larger one.
  if (listen_socket_ >= 0 && ::listen(listen_socket_, kListenBacklog) != 0)
    throw std::runtime_error(std::string("cannot set the listen backlog of ") + host + ":" + std::to_string(bound) +
                             ": " + std::strerror(errno));
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  return bound;
}

void HttpEndpoint::stop() {
  if (!thread_.joinable()) return;
  server_->stop();
  thread_.join();
}

}  // namespace hpcreward
