// The endpoint through a real httplib client, against the server on a free port, with a
// fake scoring backend on a "main thread" of the test.
#include "coordinator/serving/http_endpoint.hpp"

#include <gtest/gtest.h>
#include <httplib.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <set>
#include <mutex>
#include <thread>

#include "coordinator/ranks/problem_support.hpp"
#include "coordinator/serving/serve_loop.hpp"
#include "coordinator/input/utf8_check.hpp"
#include "stages/builtin_ladder.hpp"
#include "tests/coordinator/test_certificates.hpp"
#include "tests/coordinator/served_rows.hpp"

namespace hpcreward {
namespace {

using nlohmann::json;

const char *kSource = "void matmul(const double *a, const double *b, double *c) {}";

class Endpoint : public ::testing::Test {
 protected:
  void SetUp() override { start({}); }

  void start(EndpointConfig config) {
    config.token = "0123abcd";
    config.defaults.problem = "dgemm-256";
    config.defaults.known_stages = {{"o0"}, {"o3"}, {"cuda-naive", Language::cuda}};
    config_ = config;
    endpoint_ = std::make_unique<HttpEndpoint>(registry_, config);
    port_ = endpoint_->start("127.0.0.1", 0);
    ServeHooks hooks;
    hooks.score = [this](QueuedBatch &batch) { return fake_score(batch); };
    hooks.stages = [this]() -> std::map<std::string, std::string> {
      return {{"dgemm-256", rows_scored_ >= 4 ? "o3" : "o0"}};
    };
    loop_ = std::thread([this, hooks] { run_serve_loop(registry_, hooks, [this] { return stop_.load(); }); });
  }

  void TearDown() override {
    release();
    stop_ = true;
    loop_.join();
    endpoint_->stop();
  }

  // One row per candidate: ok with reward 10 + its place, or its verdict.
  std::vector<RewardRow> fake_score(QueuedBatch &batch) {
    std::vector<RewardRow> rows;
    for (const PreparedCandidate &c : batch.candidates) {
      if (hold_ && !rows.empty()) {
        std::unique_lock lock(gate_mutex_);
        gate_.wait(lock, [this] { return !hold_; });
      }
      RewardRow row;
      row.candidate_id = c.id;
      row.batch_id = c.batch_id;
      row.problem = c.problem;
      row.stage = c.stage.empty() ? "o0" : c.stage;
      row.status = c.verdict.ok() ? "ok" : std::string(to_string(c.verdict.status));
      row.reason = c.verdict.reason;
      row.reward = c.verdict.ok() ? 10.0 + rows.size() : -100;
      row.gflops = c.verdict.ok() ? 10.0 + rows.size() : 0;
      rows.push_back(row);
      ++rows_scored_;
      registry_.row_written(c.batch_id);
    }
    return rows;
  }

  void release() {
    std::lock_guard lock(gate_mutex_);
    hold_ = false;
    gate_.notify_all();
  }

  httplib::Result post(const std::string &path, const std::string &body, const std::string &token = "0123abcd") {
    httplib::Client client("127.0.0.1", port_);
    httplib::Headers headers;
    if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
    return client.Post(path.c_str(), headers, body, "application/json");
  }
  httplib::Result get(const std::string &path) {
    httplib::Client client("127.0.0.1", port_);
    return client.Get(path.c_str(), {{"Authorization", "Bearer 0123abcd"}});
  }

  static json batch(const std::string &id, bool wait, json candidates = nullptr) {
    if (candidates.is_null())
      candidates = {{{"id", "a"}, {"problem", "dgemm-256"}, {"source", kSource}},
                    {{"id", "b"}, {"completion", std::string("Here:\n```c\n") + kSource + "\n```\n"}, {"stage", "o3"}},
                    {{"id", "c"}, {"source", kSource}, {"stage", "nope"}},
                    {{"id", "d"}, {"completion", "no code here"}}};
    return {{"batch_id", id}, {"candidates", candidates}, {"wait", wait}};
  }

  static std::string error_of(const httplib::Result &result) {
    return json::parse(result->body).at("error").get<std::string>();
  }

  BatchRegistry registry_;
  EndpointConfig config_;
  std::unique_ptr<HttpEndpoint> endpoint_;
  int port_ = 0;
  std::thread loop_;
  std::atomic<bool> stop_{false};
  std::atomic<int> rows_scored_{0};
  std::mutex gate_mutex_;
  std::condition_variable gate_;
  bool hold_ = false;
};

TEST_F(Endpoint, EveryRequestNeedsTheBearerToken) {
  auto missing = post("/v1/batches", batch("b1", true).dump(), "");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 401);
  EXPECT_NE(error_of(missing).find("Authorization: Bearer"), std::string::npos);
  EXPECT_EQ(missing->get_header_value("WWW-Authenticate"), "Bearer");
  auto wrong = post("/v1/batches", batch("b1", true).dump(), "0123abce");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 403);
  httplib::Client client("127.0.0.1", port_);
  auto unauthenticated_get = client.Get("/v1/batches/b1");
  ASSERT_TRUE(unauthenticated_get);
  EXPECT_EQ(unauthenticated_get->status, 401);
  EXPECT_EQ(rows_scored_, 0);
}

TEST_F(Endpoint, WaitAnswersResultsInOrderAndARetryIsNotScoredAgain) {
  auto result = post("/v1/batches", batch("b1", true).dump());
  ASSERT_TRUE(result);
  ASSERT_EQ(result->status, 200) << result->body;
  json body = json::parse(result->body);
  EXPECT_EQ(body["batch_id"], "b1");
  ASSERT_EQ(body["results"].size(), 4u);
  EXPECT_EQ(body["results"][0]["id"], "a");
  EXPECT_EQ(body["results"][0]["status"], "ok");
  EXPECT_EQ(body["results"][0]["reward"], 10.0);
  EXPECT_EQ(body["results"][1]["id"], "b");
  EXPECT_EQ(body["results"][1]["stage"], "o3");
  EXPECT_EQ(body["results"][2]["status"], "format_error");
  EXPECT_NE(body["results"][2]["reason"].get<std::string>().find("unknown stage"), std::string::npos);
  EXPECT_EQ(body["results"][3]["status"], "format_error");
  for (const char *key : {"id", "status", "reason", "reward", "gflops", "stage", "device", "measured_as",
                          "measured_batch", "yardsticks"})
    EXPECT_TRUE(body["results"][0].contains(key)) << key;
  for (const char *name : {"openblas", "cublas", "cublaslt"})
    EXPECT_TRUE(body["results"][0]["yardsticks"].contains(name)) << name;
  EXPECT_EQ(body["results"][0]["measured_as"], "") << "measured for itself";
  EXPECT_EQ(rows_scored_, 4);
  EXPECT_EQ(body["stages"]["dgemm-256"], "o3") << "the stage after this batch goes with its results";
  auto stages = get("/v1/stages");
  ASSERT_TRUE(stages);
  EXPECT_EQ(json::parse(stages->body)["stages"]["dgemm-256"], "o3");

  auto retry = post("/v1/batches", batch("b1", true).dump());
  ASSERT_TRUE(retry);
  EXPECT_EQ(retry->status, 200);
  EXPECT_EQ(json::parse(retry->body), body);
  auto retry_no_wait = post("/v1/batches", batch("b1", false).dump());
  EXPECT_EQ(retry_no_wait->status, 200) << "a finished batch is answered at once";
  EXPECT_EQ(json::parse(retry_no_wait->body)["results"], body["results"]);
  EXPECT_EQ(rows_scored_, 4) << "retries are never scored again";

  json other = batch("b1", true);
  other["candidates"][0]["source"] = std::string(kSource) + " ";
  auto conflict = post("/v1/batches", other.dump());
  EXPECT_EQ(conflict->status, 409);
  EXPECT_NE(error_of(conflict).find("new batch_id"), std::string::npos);
}

// The same endpoint with --tls-cert/--tls-key: HTTPS through cpp-httplib's SSLServer.
class HttpsEndpoint : public Endpoint {
 protected:
  void SetUp() override {
    if (!tls_test::have_openssl()) GTEST_SKIP() << "no openssl command to make a test certificate";
    dir_ = tls_test::certificate_dir("hpcreward-endpoint-tls");
    node_ = tls_test::make_certificate(dir_, "node");
    other_ = tls_test::make_certificate(dir_, "other");
    ASSERT_FALSE(node_.cert.empty() || other_.cert.empty()) << "openssl req failed";
    EndpointConfig config;
    config.tls = check_tls_files(node_.cert.string(), node_.key.string());
    start(config);
  }
  void TearDown() override {
    if (endpoint_) Endpoint::TearDown();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  std::filesystem::path dir_;
  tls_test::TestCertificate node_, other_;
};

TEST_F(HttpsEndpoint, ServesHttpsWithTheGivenCertificate) {
  const auto &node = node_;
  const auto &other = other_;
  const httplib::Headers auth = {{"Authorization", "Bearer 0123abcd"}};

  httplib::SSLClient trusting("127.0.0.1", port_);
  trusting.set_ca_cert_path(node.cert.c_str());
  trusting.enable_server_certificate_verification(true);
  auto answer = trusting.Post("/v1/batches", auth, batch("tls-1", true).dump(), "application/json");
  ASSERT_TRUE(answer) << httplib::to_string(answer.error());
  EXPECT_EQ(answer->status, 200);
  EXPECT_EQ(json::parse(answer->body)["results"].size(), 4u);

  httplib::SSLClient distrusting("127.0.0.1", port_);
  distrusting.set_ca_cert_path(other.cert.c_str());
  distrusting.enable_server_certificate_verification(true);
  auto refused = distrusting.Get("/v1/stages", auth);
  EXPECT_FALSE(refused) << "a client that trusts another certificate must not get through";
  EXPECT_EQ(refused.error(), httplib::Error::SSLServerVerification);

  httplib::Client plain("127.0.0.1", port_);
  auto cleartext = plain.Get("/v1/stages", auth);
  EXPECT_TRUE(!cleartext || cleartext->status != 200) << "plain HTTP to the HTTPS port must fail";
}

TEST_F(Endpoint, AcceptedBatchReportsProgressUntilDone) {
  hold_ = true;
  auto accepted = post("/v1/batches", batch("slow", false).dump());
  ASSERT_TRUE(accepted);
  ASSERT_EQ(accepted->status, 202) << accepted->body;
  json body = json::parse(accepted->body);
  EXPECT_EQ(body["total"], 4);
  EXPECT_TRUE(body["state"] == "queued" || body["state"] == "running");

  json progress;
  for (int i = 0; i < 200; ++i) {
    progress = json::parse(get("/v1/batches/slow")->body);
    if (progress["done"] == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(progress["state"], "running");
  EXPECT_EQ(progress["done"], 1);
  EXPECT_FALSE(progress.contains("results"));

  // A retry while it runs waits for the same scoring.
  std::thread retry([&] {
    auto waited = post("/v1/batches", batch("slow", true).dump());
    ASSERT_TRUE(waited);
    EXPECT_EQ(waited->status, 200);
    EXPECT_EQ(json::parse(waited->body)["results"].size(), 4u);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  release();
  retry.join();
  json done = json::parse(get("/v1/batches/slow")->body);
  EXPECT_EQ(done["state"], "done");
  EXPECT_EQ(done["done"], 4);
  EXPECT_EQ(done["results"].size(), 4u);
  EXPECT_EQ(rows_scored_, 4);

  auto unknown = get("/v1/batches/never");
  EXPECT_EQ(unknown->status, 404);
  EXPECT_NE(error_of(unknown).find("no batch never"), std::string::npos);
  auto no_route = get("/v2/nothing");
  EXPECT_EQ(no_route->status, 404);
  EXPECT_NE(error_of(no_route).find("routes:"), std::string::npos);
}

TEST_F(Endpoint, BadRequestsSayWhatToFix) {
  auto expect = [&](const std::string &body, int status, const std::string &message) {
    auto result = post("/v1/batches", body);
    ASSERT_TRUE(result);
    EXPECT_EQ(result->status, status) << body << " -> " << result->body;
    EXPECT_NE(error_of(result).find(message), std::string::npos) << result->body;
  };
  expect("{\"batch_id\": ", 400, "not valid JSON");
  expect("[1]", 400, "must be a JSON object");
  expect(R"({"candidates": []})", 400, "missing \"batch_id\"");
  expect(R"({"batch_id": 7, "candidates": []})", 400, "\"batch_id\" must be a string");
  expect(R"({"batch_id": "a/b", "candidates": []})", 400, "letters, digits");
  expect(R"({"batch_id": "x"})", 400, "missing \"candidates\"");
  expect(R"({"batch_id": "x", "candidates": {}})", 400, "must be a list");
  expect(R"({"batch_id": "x", "candidates": []})", 400, "is empty");
  expect(R"({"batch_id": "x", "candidates": [3]})", 400, "candidates[0] must be an object");
  expect(R"({"batch_id": "x", "candidates": [{"source": "x"}]})", 400, "has no \"id\"");
  expect(R"({"batch_id": "x", "candidates": [{"id": 1, "source": "x"}]})", 400, "must be a string");
  expect(R"({"batch_id": "x", "candidates": [{"id": "a"}]})", 400, "exactly one of");
  expect(R"({"batch_id": "x", "candidates": [{"id": "a", "source": "x", "problem": "zgemm-9"}]})", 400,
         "unknown problem \"zgemm-9\"; known: ");
  expect(R"({"batch_id": "x", "candidates": [{"id": "a", "source": "x"}, {"id": "a", "source": "y"}]})", 400,
         "appears twice");
  expect(R"({"batch_id": "x", "candidates": [{"id": "a", "source": "x"}], "wait": "yes"})", 400,
         "\"wait\" must be true or false");
  EXPECT_EQ(rows_scored_, 0);
  EXPECT_FALSE(registry_.snapshot("x"));
}

// Invalid UTF-8 anywhere in a request is the client's mistake: 400 naming where, never 500,
// and the answer itself is valid JSON (the bytes are not echoed raw).
class HttpEndpointUtf8Request : public Endpoint {};  // named so that ctest -R HttpEndpoint runs it

TEST_F(HttpEndpointUtf8Request, InvalidUtf8IsA400ThatSaysWhere) {
  auto expect = [&](const std::string &path, const std::string &body, const std::string &message) {
    auto result = post(path, body);
    ASSERT_TRUE(result);
    EXPECT_EQ(result->status, 400) << body << " -> " << result->body;
    ASSERT_TRUE(json::accept(result->body)) << result->body;
    EXPECT_NE(error_of(result).find(message), std::string::npos) << result->body;
  };
  const std::string bad = "\xff\xfe";
  expect("/v1/batches", "{\"batch_id\": \"x\", \"candidates\": [{\"id\": \"a\", \"source\": \"int " + bad + "\"}]}",
         "candidates[0].\"source\" is not valid UTF-8");
  expect("/v1/batches", "{\"batch_id\": \"x\", \"candidates\": [{\"id\": \"a\", \"source\": \"x\"}, {\"id\": \"b\", "
                        "\"completion\": \"```c\\n\xc3\x28\\n```\"}]}",
         "candidates[1].\"completion\" is not valid UTF-8");
  expect("/v1/batches", "{\"batch_id\": \"x" + bad + "\", \"candidates\": [{\"id\": \"a\", \"source\": \"x\"}]}",
         "\"batch_id\" is not valid UTF-8");
  expect("/v1/batches", "{\"batch_id\": \"x\", \"candidates\": [{\"id\": \"a\xe2\x82\", \"source\": \"x\"}]}",
         "candidates[0].\"id\" is not valid UTF-8");
  expect("/v1/batches", "{\"batch_id\": \"x\", \"" + bad + "\": 1, \"candidates\": []}", "a key");
  expect("/v1/batches", "{\"batch_id\": \"x\", " + bad + "}", "the body is not valid UTF-8 at byte 18");
  expect("/get_reward", "{\"query\": [\"ok\", \"int main() {" + bad + "}\"]}", "query[1] is not valid UTF-8");
  expect("/get_reward", "{\"query\": [\"ok\"], \"prompts\": [\"\xed\xa0\x80\"]}", "prompts[0] is not valid UTF-8");
  // An encoded surrogate half is not UTF-8 either (nlohmann's parser also refuses "\udc80").
  expect("/get_reward", R"({"query": ["\udc80"]})", "not valid JSON");
  EXPECT_EQ(rows_scored_, 0);
  EXPECT_EQ(registry_.batches(), 0u);

  auto no_batch = get("/v1/batches/x%FFy");
  ASSERT_TRUE(no_batch);
  EXPECT_EQ(no_batch->status, 404) << no_batch->body;
  EXPECT_TRUE(json::accept(no_batch->body)) << no_batch->body;
  auto no_route = get("/v1/n%C3%28pe");
  ASSERT_TRUE(no_route);
  EXPECT_EQ(no_route->status, 404) << no_route->body;
  EXPECT_TRUE(json::accept(no_route->body)) << no_route->body;
}

class PromptEndpoint : public Endpoint {
 protected:
  void SetUp() override {
    EndpointConfig config;
    config.prompts = std::make_shared<const prompts::PromptMaker>(
        load_problem_catalog("default"), parse_ladder_config(builtin_ladder_json(), "default_ladder.json"),
        prompts::PromptTemplate::parse("{{problem}} at {{stage}}: {{compiler_flags}}", "test template"),
        std::vector<RankInfo>{}, std::vector<prompts::NodeDescription>{}, "the measured GFLOPS");
    config.refuse_problem = [](const Problem &problem) -> std::optional<std::string> {
      if (problem.language == Language::cuda) return "no GPU rank";
      return std::nullopt;
    };
    start(config);
  }
};

// The prompts follow the run: once a batch moves dgemm-256 to o3, its prompt is o3's.
TEST_F(PromptEndpoint, PromptsAreTheCurrentStagesAndAnyStagesOnRequest) {
  auto before = get("/v1/prompts?problem=dgemm-256");
  ASSERT_TRUE(before);
  ASSERT_EQ(before->status, 200) << before->body;
  EXPECT_EQ(json::parse(before->body)["prompts"][0]["prompt"], "dgemm-256 at o0: -O0");
  ASSERT_EQ(post("/v1/batches", batch("b1", true).dump())->status, 200);
  json after = json::parse(get("/v1/prompts?problem=dgemm-256")->body);
  EXPECT_EQ(after["prompts"][0], json({{"problem", "dgemm-256"}, {"stage", "o3"}, {"current_stage", true},
                                       {"prompt", "dgemm-256 at o3: -O3"}}));
  EXPECT_EQ(after["reward_mode"], "gflops");
  json named = json::parse(get("/v1/prompts?problem=dgemm-256&stage=openmp")->body);
  EXPECT_EQ(named["prompts"][0]["prompt"], "dgemm-256 at openmp: -O3 -fopenmp");
  EXPECT_EQ(named["prompts"][0]["current_stage"], false);

  json every = json::parse(get("/v1/prompts")->body);
  EXPECT_EQ(every["prompts"].size(), 6u) << "the six C problems; the CUDA ones have no rank here";
  json of_stage = json::parse(get("/v1/prompts?stage=blocking")->body);
  EXPECT_EQ(of_stage["prompts"].size(), 6u);
  EXPECT_EQ(of_stage["prompts"][5]["prompt"], "sgemm-1024 at blocking: -O3 -fopenmp -mavx512f -mavx512dq -mavx512vl -mfma");

  auto unknown = get("/v1/prompts?problem=zgemm-9");
  EXPECT_EQ(unknown->status, 404);
  EXPECT_NE(error_of(unknown).find("dgemm-256, dgemm-512"), std::string::npos) << unknown->body;
  auto wrong_language = get("/v1/prompts?problem=dgemm-256&stage=cuda-smem");
  EXPECT_EQ(wrong_language->status, 400);
  EXPECT_NE(error_of(wrong_language).find("stage cuda-smem is for cuda problems"), std::string::npos);
  auto no_stage = get("/v1/prompts?stage=o9");
  EXPECT_EQ(no_stage->status, 404);
}

TEST_F(Endpoint, WithoutPromptsTheRouteSaysSo) {
  auto none = get("/v1/prompts?problem=dgemm-256");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 404);
  EXPECT_EQ(error_of(none), "this coordinator serves no prompts");
}

TEST_F(Endpoint, LimitsAreOptionsAndAnswered413) {
  TearDown();
  EndpointConfig config;
  config.max_request_bytes = 2000;
  config.max_batch_candidates = 2;
  stop_ = false;
  start(config);
  json big = batch("big", true, {{{"id", "a"}, {"source", std::string(5000, 'x')}}});
  auto oversize = post("/v1/batches", big.dump());
  ASSERT_TRUE(oversize);
  EXPECT_EQ(oversize->status, 413);
  EXPECT_NE(error_of(oversize).find("--max-request-bytes"), std::string::npos);
  auto too_many = post("/v1/batches", batch("many", true).dump());
  EXPECT_EQ(too_many->status, 413);
  EXPECT_NE(error_of(too_many).find("--max-batch-candidates"), std::string::npos);
  auto rewards = post("/get_reward", json{{"query", {"a", "b", "c"}}}.dump());
  EXPECT_EQ(rewards->status, 413);
}

TEST_F(Endpoint, GetRewardSpeaksOpenRlhf) {
  const std::string good = std::string("prompt...\n```c\n") + kSource + "\n```";
  json request = {{"query", {good, "no code", good}}, {"prompts", {"p", "p", "p"}},
                  {"labels", {"dgemm-256", "", nullptr}}};
  auto result = post("/get_reward", request.dump());
  ASSERT_TRUE(result);
  ASSERT_EQ(result->status, 200) << result->body;
  json body = json::parse(result->body);
  EXPECT_EQ(body["rewards"], json({10.0, -100.0, 12.0}));
  EXPECT_EQ(rows_scored_, 3);

  auto retry = post("/get_reward", request.dump());
  EXPECT_EQ(json::parse(retry->body), body);
  EXPECT_EQ(rows_scored_, 3) << "the same request body is the same batch";
  EXPECT_EQ(registry_.batches(), 1u);

  auto bad_label = post("/get_reward", json{{"query", {good}}, {"labels", {"the answer is 42"}}}.dump());
  EXPECT_EQ(bad_label->status, 400);
  EXPECT_NE(error_of(bad_label).find("not a problem id"), std::string::npos);
  auto short_labels = post("/get_reward", json{{"query", {good, good}}, {"labels", {"dgemm-256"}}}.dump());
  EXPECT_EQ(short_labels->status, 400);
  auto no_query = post("/get_reward", json{{"prompts", {"p"}}}.dump());
  EXPECT_EQ(no_query->status, 400);
  EXPECT_NE(error_of(no_query).find("missing \"query\""), std::string::npos);
  auto empty = post("/get_reward", json{{"query", json::array()}}.dump());
  EXPECT_EQ(json::parse(empty->body)["rewards"], json::array());
}

TEST_F(Endpoint, AClientThatResetsItsConnectionLeavesItsBatchToFinish) {
  hold_ = true;
  // A raw connection that sends a waiting request and resets itself (SO_LINGER 0) while
  // the batch runs: the batch still finishes and the server keeps answering (the server
  // ignores SIGPIPE; this test does not always provoke one).
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port_));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address), 0);
  const std::string body = batch("left", true).dump();
  const std::string request = "POST /v1/batches HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer 0123abcd\r\n"
                              "Content-Type: application/json\r\nContent-Length: " +
                              std::to_string(body.size()) + "\r\n\r\n" + body;
  ASSERT_EQ(send(fd, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));
  for (int i = 0; i < 200 && rows_scored_ < 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  linger reset = {1, 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
  close(fd);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  release();
  for (int i = 0; i < 100 && registry_.snapshot("left")->state != BatchState::done; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the answer goes to a reset socket
  auto after = get("/v1/batches/left");
  ASSERT_TRUE(after);
  EXPECT_EQ(json::parse(after->body)["state"], "done");
}

TEST_F(Endpoint, StoppingRefusesNewBatchesWith503) {
  ASSERT_EQ(post("/v1/batches", batch("before", true).dump())->status, 200);
  registry_.close();
  auto refused = post("/v1/batches", batch("after", true).dump());
  EXPECT_EQ(refused->status, 503);
  EXPECT_NE(error_of(refused).find("stopping"), std::string::npos);
  EXPECT_EQ(post("/v1/batches", batch("before", true).dump())->status, 200) << "known batches are still answered";
}

TEST_F(Endpoint, ProblemsThisRunCannotScoreAre422) {
  TearDown();
  EndpointConfig config;
  RunCapabilities cpu_only;
  cpu_only.ranks_by_kind = {{"cpu", 2}};
  config.refuse_problem = [cpu_only](const Problem &problem) { return problem_refusal(problem, cpu_only); };
  stop_ = false;
  start(config);
  auto refused = post("/v1/batches", json{{"batch_id", "g"}, {"wait", true},
                                          {"candidates", {{{"id", "a"}, {"source", kSource}},
                                                          {{"id", "b"}, {"source", kSource}, {"problem", "cuda-sgemm-4096"}}}}}
                                         .dump());
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 422) << refused->body;
  EXPECT_EQ(error_of(refused),
            "candidates[1]: this run cannot score problem cuda-sgemm-4096: cuda-sgemm-4096 needs a GPU rank: start "
            "with jobs/local.sh --gpus N (hpcreward-bench --gpu ranks in the MPI job); this run has 2 CPU ranks and no "
            "GPU rank");
  auto label = post("/get_reward", json{{"query", {"x"}}, {"labels", {"cuda-hgemm-1024"}}}.dump());
  EXPECT_EQ(label->status, 422);
  EXPECT_NE(error_of(label).find("cuda-hgemm-1024 needs a GPU rank"), std::string::npos);
  EXPECT_EQ(rows_scored_, 0);
  EXPECT_FALSE(registry_.snapshot("g")) << "a refused batch is not registered";
}

// Per-sample calls over HTTP (coordinator/README.md, "Coalescing per-sample requests"): two one-query
// /get_reward calls and one one-candidate batch are scored in one call; each gets its own row.
TEST(HttpEndpointCoalescing, SingleCandidateRequestsAreScoredTogetherAndAnsweredApart) {
  BatchRegistry registry(CoalescePolicy{std::chrono::seconds(60), 3});  // the cap sends it
  EndpointConfig config;
  config.token = "0123abcd";
  config.defaults.problem = "dgemm-256";
  config.defaults.known_stages = {{"o0"}};
  HttpEndpoint endpoint(registry, config);
  const int port = endpoint.start("127.0.0.1", 0);
  std::atomic<int> calls{0};
  std::atomic<bool> stop{false};
  ServeHooks hooks;
  hooks.score = [&](QueuedBatch &batch) {
    ++calls;
    std::vector<RewardRow> rows;
    for (const PreparedCandidate &c : batch.candidates)  // reward: its place in the scored batch
      rows.push_back(ok_row_for(c, 10.0 + static_cast<double>(rows.size())));
    return rows;
  };
  std::thread loop([&] { run_serve_loop(registry, hooks, [&] { return stop.load(); }); });
  auto post = [port](const std::string &path, const json &body) {
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(60);
    auto result = client.Post(path.c_str(), {{"Authorization", "Bearer 0123abcd"}}, body.dump(), "application/json");
    return result ? std::make_pair(result->status, json::parse(result->body)) : std::make_pair(0, json());
  };
  const std::string code = std::string("```c\n") + kSource + "\n```";
  auto first = std::async(std::launch::async, [&] { return post("/get_reward", {{"query", {code + "// 1"}}}); });
  auto second = std::async(std::launch::async, [&] { return post("/get_reward", {{"query", {code + "// 2"}}}); });
  auto third = std::async(std::launch::async, [&] {
    return post("/v1/batches", {{"batch_id", "sample-3"}, {"wait", true},
                                {"candidates", {{{"id", "q0"}, {"source", kSource}}}}});
  });
  std::set<double> rewards;
  for (auto *answer : {&first, &second}) {
    auto [status, body] = answer->get();
    ASSERT_EQ(status, 200) << body;
    ASSERT_EQ(body["rewards"].size(), 1u) << body;
    rewards.insert(body["rewards"][0].get<double>());
  }
  auto [status, body] = third.get();
  ASSERT_EQ(status, 200) << body;
  EXPECT_EQ(body["batch_id"], "sample-3");
  ASSERT_EQ(body["results"].size(), 1u);
  EXPECT_EQ(body["results"][0]["id"], "q0");
  rewards.insert(body["results"][0]["reward"].get<double>());
  EXPECT_EQ(calls, 1) << "one scoring call for the three requests";
  EXPECT_EQ(rewards, (std::set<double>{10, 11, 12})) << "each request got its own row";
  httplib::Client client("127.0.0.1", port);
  auto progress = client.Get("/v1/batches/sample-3", {{"Authorization", "Bearer 0123abcd"}});
  ASSERT_TRUE(progress);
  EXPECT_EQ(json::parse(progress->body)["state"], "done");
  stop = true;
  loop.join();
  endpoint.stop();
}

TEST(HttpEndpointUtf8, FindsTheFirstIllFormedByte) {
  EXPECT_EQ(first_invalid_utf8("plain \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), std::nullopt);
  EXPECT_EQ(first_invalid_utf8("ab\xff"), 2u);
  EXPECT_EQ(first_invalid_utf8("a\xc0\xaf"), 1u) << "overlong";
  EXPECT_EQ(first_invalid_utf8("a\xed\xa0\x80"), 1u) << "surrogate";
  EXPECT_EQ(first_invalid_utf8("a\xf4\x90\x80\x80"), 1u) << "past U+10FFFF";
  EXPECT_EQ(first_invalid_utf8("abc\xe2\x82"), 3u) << "cut short";
  EXPECT_EQ(printable_utf8("a\xff" "b"), "a\xef\xbf\xbd" "b");
  EXPECT_NE(describe_invalid_utf8("{\"a\": [\"x\", {\"b\": \"\xff\"}]}", 19).find("a[1].\"b\" is not valid UTF-8"),
            std::string::npos);
}

TEST(ParseRequests, RewardBatchIdComesFromTheBody) {
  EndpointConfig config;
  config.defaults.problem = "dgemm-256";
  const std::string body = R"({"query": ["x"]})";
  auto parsed = parse_reward_request(body, config);
  ASSERT_TRUE(std::holds_alternative<BatchRequest>(parsed));
  const BatchRequest &request = std::get<BatchRequest>(parsed);
  EXPECT_EQ(request.batch_id.rfind("openrlhf-", 0), 0u);
  EXPECT_EQ(request.batch_id.size(), 9u + 16u);
  EXPECT_TRUE(request.wait);
  EXPECT_EQ(request.candidates.at(0).id, "q0");
  EXPECT_EQ(request.candidates.at(0).problem, "dgemm-256");
  EXPECT_EQ(request.candidates.at(0).verdict.status, Status::format_error);
  auto other = parse_reward_request(R"({"query": ["x"] })", config);
  EXPECT_NE(std::get<BatchRequest>(other).batch_id, request.batch_id);
  EXPECT_EQ(std::get<BatchRequest>(other).fingerprint, request.fingerprint);
}

TEST(ParseRequests, RewardQueriesLoseTheirPrompt) {
  EndpointConfig config;
  config.defaults.problem = "dgemm-256";
  const std::string code = "void matmul(int m, int n, int k, const double *A, const double *B, double *C) {}";
  const json prompt = "Make this faster:\n```c\n" + code + "\n```\n";
  const json query = prompt.get<std::string>() + "Here:\n```c\n" + code + " /* v2 */\n```\n";
  auto parsed = parse_reward_request(json{{"query", {query}}, {"prompts", {prompt}}}.dump(), config);
  ASSERT_TRUE(std::holds_alternative<BatchRequest>(parsed));
  const PreparedCandidate &candidate = std::get<BatchRequest>(parsed).candidates.at(0);
  EXPECT_TRUE(candidate.verdict.ok()) << candidate.verdict.reason;
  EXPECT_NE(candidate.code.find("/* v2 */"), std::string::npos);
  // Without the prompts, both blocks are in the query: the extraction refuses to guess.
  auto unstripped = parse_reward_request(json{{"query", {query}}}.dump(), config);
  EXPECT_EQ(std::get<BatchRequest>(unstripped).candidates.at(0).verdict.status, Status::format_error);
}

}  // namespace
}  // namespace hpcreward
