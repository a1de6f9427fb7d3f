#include "coordinator/run/options.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/coordinator/test_certificates.hpp"

namespace hpcreward {
namespace {

std::optional<CoordinatorOptions> parse(std::vector<const char *> arguments) {
  arguments.insert(arguments.begin(), "hpcreward-coordinator");
  return parse_coordinator_options(static_cast<int>(arguments.size()), arguments.data());
}

TEST(CoordinatorOptions, DefaultsAndDerivedBatchId) {
  auto options = parse({"--candidates", "/data/run7.jsonl", "--out", "/tmp/x", "--seed", "9"});
  ASSERT_TRUE(options);
  EXPECT_EQ(options->stage, "") << "lines without a stage follow the ladder";
  EXPECT_EQ(options->ladder_source, "built-in stages/default_ladder.json");
  EXPECT_EQ(options->ladder.ladder.front(), "o0");
  EXPECT_FALSE(options->resume);
  EXPECT_EQ(options->as_json["ladder_config"]["ladder"][1], "o3");
  EXPECT_EQ(options->problem, "dgemm-256");
  EXPECT_EQ(options->batch_id, "run7");
  EXPECT_EQ(options->seed, 9u);
  EXPECT_EQ(options->rewards.penalty(Status::timeout), -10);
  EXPECT_EQ(options->as_json["seed"], "9");
}

TEST(CoordinatorOptions, ConfigFileSetsRewardsAndCommandLineWins) {
  const auto path = std::filesystem::temp_directory_path() / "hpcreward_options_test.ini";
  std::ofstream(path) << "stage = open\nproblem = sgemm-512\n[reward]\ntimeout = -5\n";
  auto options = parse({"--candidates", "c.jsonl", "--out", "o", "--config", path.c_str(), "--stage", "o3"});
  std::filesystem::remove(path);
  ASSERT_TRUE(options);
  EXPECT_EQ(options->stage, "o3");
  EXPECT_EQ(options->problem, "sgemm-512");
  EXPECT_EQ(options->rewards.penalty(Status::timeout), -5);
  EXPECT_EQ(options->as_json["rewards"]["timeout"], -5);
}

TEST(CoordinatorOptions, ARatioRewardModeScalesTheDefaultPenaltiesOnly) {
  auto gflops = parse({"--candidates", "c.jsonl", "--out", "o"});
  ASSERT_TRUE(gflops);
  EXPECT_EQ(gflops->rewards.mode().text(), "gflops");
  EXPECT_EQ(gflops->as_json["reward_mode"], "gflops");
  auto fraction = parse({"--candidates", "c.jsonl", "--out", "o", "--reward-mode", "fraction", "--reward.timeout", "-3"});
  ASSERT_TRUE(fraction);
  EXPECT_EQ(fraction->rewards.mode().kind(), RewardMode::Kind::fraction);
  EXPECT_DOUBLE_EQ(fraction->rewards.penalty(Status::forbidden), -1);
  EXPECT_DOUBLE_EQ(fraction->rewards.penalty(Status::format_error), -0.1);
  EXPECT_DOUBLE_EQ(fraction->rewards.penalty(Status::wrong_answer), -0.1);
  EXPECT_EQ(fraction->rewards.penalty(Status::timeout), -3) << "a penalty given stays as given";
  EXPECT_EQ(fraction->as_json["reward_mode"], "fraction");
  EXPECT_DOUBLE_EQ(fraction->as_json["rewards"]["wrong_answer"].get<double>(), -0.1);
  EXPECT_THROW(parse({"--candidates", "c.jsonl", "--out", "o", "--reward-mode", "speedup:mkl"}), std::invalid_argument);
}

TEST(CoordinatorOptions, ErrorsSayWhatToFix) {
  auto message = [](std::vector<const char *> arguments) {
    try {
      parse(arguments);
    } catch (const std::invalid_argument &error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({"--out", "o"}).find("--candidates is required"), std::string::npos);
  EXPECT_NE(message({"--candidates", "c", "--out", "o", "--stage", "x"}).find("known: o0, o3, openmp, avx512, blocking, open"),
            std::string::npos);
  EXPECT_NE(message({"--candidates", "c", "--out", "o", "--problem", "x"}).find("dgemm-256"), std::string::npos);
  EXPECT_NE(message({"--candidates", "c", "--out", "o", "--config", "/nonexistent.ini"}).find("cannot read"),
            std::string::npos);
  EXPECT_NE(message({"--bogus"}).find("--help"), std::string::npos);
  EXPECT_NE(message({"--candidates", "c", "--out", "o", "--prompt-template", "p.txt"}).find("is for --serve"),
            std::string::npos);
  EXPECT_NE(message({"--serve", "--out", "o", "--prompt-template", "/nonexistent/p.txt"})
                .find("cannot read the prompt template /nonexistent/p.txt"),
            std::string::npos);
  EXPECT_NE(message({"--candidates", "c", "--out", "o", "--ladder", "/nonexistent.json"}).find("cannot read --ladder"),
            std::string::npos);
}

TEST(CoordinatorOptions, LadderFileReplacesTheBuiltInOne) {
  const auto path = std::filesystem::temp_directory_path() / "hpcreward_options_ladder.json";
  std::ofstream(path) << R"({"ladder": ["fast"], "stages": [{"name": "fast", "flags": ["-O2"],
                          "allows": [], "requires": [], "advance": []}]})";
  auto options = parse({"--candidates", "c.jsonl", "--out", "o", "--ladder", path.c_str(), "--stage", "fast",
                        "--resume"});
  ASSERT_TRUE(options);
  EXPECT_EQ(options->ladder.ladder, std::vector<std::string>{"fast"});
  EXPECT_EQ(options->stage, "fast");
  EXPECT_TRUE(options->resume);
  std::ofstream(path) << R"({"ladder": ["fast"], "stages": []})";
  EXPECT_THROW(parse({"--candidates", "c.jsonl", "--out", "o", "--ladder", path.c_str()}), std::invalid_argument);
  std::filesystem::remove(path);
}

TEST(CoordinatorOptions, ProblemsNameACatalogAndTheDefaultProblemIsItsFirst) {
  auto options = parse({"--candidates", "c.jsonl", "--out", "o", "--problems", "kernelbench-level1"});
  ASSERT_TRUE(options);
  EXPECT_EQ(options->problems.name, "kernelbench-level1");
  EXPECT_EQ(options->problem, "kb1-1-square");
  EXPECT_EQ(options->as_json["problems"], "built-in kernelbench-level1");
  EXPECT_EQ(options->as_json["problem_catalog"]["problems"][7]["id"], "kb1-9-tall-skinny");
  try {
    parse({"--candidates", "c.jsonl", "--out", "o", "--problems", "kernelbench-level1", "--problem", "dgemm-256"});
    ADD_FAILURE() << "accepted a problem of another catalog";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what()).find("not a problem of built-in kernelbench-level1; known: kb1-1-square"),
              std::string::npos)
        << error.what();
  }
  EXPECT_EQ(parse({"--candidates", "c.jsonl", "--out", "o"})->problems.name, "default");
}

TEST(CoordinatorOptions, ServeModeTakesNoCandidateFile) {
  auto options = parse({"--serve", "--out", "o"});
  ASSERT_TRUE(options);
  EXPECT_TRUE(options->serve);
  EXPECT_TRUE(options->candidates.empty());
  EXPECT_EQ(options->batch_id, "");
  EXPECT_EQ(options->listen_host, "0.0.0.0");
  EXPECT_EQ(options->listen_port, 0);
  EXPECT_EQ(options->max_request_bytes, 16u * 1024 * 1024);
  EXPECT_EQ(options->max_batch_candidates, 1024u);
  EXPECT_EQ(options->as_json["serve"], true);

  options = parse({"--serve", "--out", "o", "--listen", "127.0.0.1:8731", "--max-request-bytes", "1000",
                   "--max-batch-candidates", "8"});
  ASSERT_TRUE(options);
  EXPECT_EQ(options->listen_host, "127.0.0.1");
  EXPECT_EQ(options->listen_port, 8731);
  EXPECT_EQ(options->max_request_bytes, 1000u);
  EXPECT_EQ(options->max_batch_candidates, 8u);

  auto message = [](std::vector<const char *> arguments) {
    try {
      parse(arguments);
    } catch (const std::invalid_argument &error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({"--serve", "--out", "o", "--candidates", "c.jsonl"}).find("drop --candidates"), std::string::npos);
  EXPECT_NE(message({"--serve", "--out", "o", "--listen", "8080"}).find("HOST:PORT"), std::string::npos);
  EXPECT_NE(message({"--serve", "--out", "o", "--max-batch-candidates", "0"}).find("must be positive"),
            std::string::npos);
}

std::string error_of(std::vector<const char *> arguments) {
  try {
    parse(arguments);
  } catch (const std::invalid_argument &error) {
    return error.what();
  }
  return "no error";
}

TEST(CoordinatorOptions, TlsCertAndKeyGoTogetherAndMustBeUsable) {
  const auto none = parse({"--serve", "--out", "o"});
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->tls.enabled()) << "plain HTTP unless asked";
  EXPECT_EQ(none->as_json["tls_cert"], "");
  EXPECT_NE(error_of({"--serve", "--out", "o", "--tls-cert", "/no/such/cert.pem"}).find("--tls-cert without --tls-key"),
            std::string::npos);
  EXPECT_NE(error_of({"--serve", "--out", "o", "--tls-key", "/no/such/node.key"}).find("--tls-key without --tls-cert"),
            std::string::npos);
  EXPECT_NE(error_of({"--serve", "--out", "o", "--tls-cert", "/no/such/cert.pem", "--tls-key", "/no/such/node.key"})
                .find("--tls-cert /no/such/cert.pem: no such file"),
            std::string::npos);
  EXPECT_NE(error_of({"--candidates", "c.jsonl", "--out", "o", "--tls-cert", "a", "--tls-key", "b"}).find("for --serve"),
            std::string::npos);
}

TEST(CoordinatorOptions, TlsFilesFromTheConfigFile) {
  if (!tls_test::have_openssl()) GTEST_SKIP() << "no openssl command to make a test certificate";
  const auto dir = tls_test::certificate_dir("hpcreward-options-tls");
  const auto made = tls_test::make_certificate(dir, "node");
  ASSERT_FALSE(made.cert.empty());
  const auto config = dir / "serve.ini";
  std::ofstream(config) << "serve = true\ntls-cert = " << made.cert.string() << "\ntls-key = " << made.key.string()
                        << "\n";
  const auto options = parse({"--out", "o", "--config", config.c_str()});
  ASSERT_TRUE(options);
  EXPECT_TRUE(options->tls.enabled());
  EXPECT_EQ(options->tls.cert, made.cert);
  EXPECT_EQ(options->tls.key, made.key);
  EXPECT_EQ(options->as_json["tls_cert"], made.cert.string());
  std::ofstream(config) << "serve = true\ntls-cert = " << made.cert.string() << "\n";
  EXPECT_NE(error_of({"--out", "o", "--config", config.c_str()}).find("--tls-cert without --tls-key"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(CoordinatorOptions, HelpReturnsNothing) {
  testing::internal::CaptureStdout();
  EXPECT_FALSE(parse({"--help"}));
  EXPECT_NE(testing::internal::GetCapturedStdout().find("--reward.timeout"), std::string::npos);
}

TEST(CoordinatorOptions, RankDeadlineMarginAndStopGrace) {
  auto defaults = parse({"--candidates", "c.jsonl", "--out", "o"});
  ASSERT_TRUE(defaults);
  EXPECT_EQ(defaults->rank_deadline_margin_s, 60);
  EXPECT_EQ(defaults->stop_grace_s, 60);
  EXPECT_EQ(defaults->as_json["rank_deadline_margin_s"], 60.0);
  EXPECT_EQ(defaults->as_json["stop_grace_s"], 60.0);

  const auto path = std::filesystem::temp_directory_path() / "hpcreward_options_fault_test.ini";
  std::ofstream(path) << "rank-deadline-margin-s = 3\nstop-grace-s = 20\n";
  auto options = parse({"--candidates", "c.jsonl", "--out", "o", "--config", path.c_str(), "--stop-grace-s", "0"});
  std::filesystem::remove(path);
  ASSERT_TRUE(options);
  EXPECT_EQ(options->rank_deadline_margin_s, 3) << "from the INI file";
  EXPECT_EQ(options->stop_grace_s, 0) << "the command line wins";

  EXPECT_THROW(parse({"--candidates", "c", "--out", "o", "--rank-deadline-margin-s", "0"}), std::invalid_argument);
  EXPECT_THROW(parse({"--candidates", "c", "--out", "o", "--stop-grace-s", "-1"}), std::invalid_argument);
}

TEST(CoordinatorOptions, CoalescingWindowAndCap) {
  auto defaults = parse({"--serve", "--out", "o"});
  ASSERT_TRUE(defaults);
  EXPECT_EQ(defaults->coalesce_window_ms, 200u);
  EXPECT_EQ(defaults->coalesce_max, 256u);
  EXPECT_EQ(defaults->as_json["coalesce_window_ms"], 200);
  EXPECT_EQ(defaults->as_json["coalesce_max"], 256);

  const auto path = std::filesystem::temp_directory_path() / "hpcreward_options_coalesce_test.ini";
  std::ofstream(path) << "coalesce-window-ms = 50\ncoalesce-max = 16\n";
  auto options = parse({"--serve", "--out", "o", "--config", path.c_str(), "--coalesce-max", "8"});
  std::filesystem::remove(path);
  ASSERT_TRUE(options);
  EXPECT_EQ(options->coalesce_window_ms, 50u) << "from the INI file";
  EXPECT_EQ(options->coalesce_max, 8u) << "the command line wins";
  auto off = parse({"--serve", "--out", "o", "--coalesce-window-ms", "0"});
  ASSERT_TRUE(off);
  EXPECT_EQ(off->coalesce_window_ms, 0u);

  EXPECT_THROW(parse({"--serve", "--out", "o", "--coalesce-max", "0"}), std::invalid_argument);
  EXPECT_THROW(parse({"--serve", "--out", "o", "--coalesce-window-ms", "600000"}), std::invalid_argument);
  testing::internal::CaptureStdout();
  parse({"--help"});
  const std::string help = testing::internal::GetCapturedStdout();
  for (const char *text : {"--coalesce-window-ms", "--coalesce-max"})
    EXPECT_NE(help.find(text), std::string::npos) << text;
}

TEST(CoordinatorOptions, FindsTheRunDirectoryWithoutParsingTheRest) {
  const char *spaced[] = {"c", "--bogus", "--out", "/runs/a"};
  EXPECT_EQ(out_directory_argument(4, spaced), std::filesystem::path("/runs/a"));
  const char *joined[] = {"c", "--out=/runs/b", "--problem", "nonsense"};
  EXPECT_EQ(out_directory_argument(4, joined), std::filesystem::path("/runs/b"));
  const char *none[] = {"c", "--candidates", "x", "--out"};
  EXPECT_FALSE(out_directory_argument(4, none));
}

TEST(CoordinatorOptions, HelpNamesTheExitCodesAndTheOutcomeFile) {
  testing::internal::CaptureStdout();
  parse({"--help"});
  const std::string help = testing::internal::GetCapturedStdout();
  for (const char *text : {"--rank-deadline-margin-s", "--stop-grace-s", "coordinator.outcome.json", "75  stopped",
                           "3   no benchmark rank left", "MPI_Abort", "SIGUSR1"})
    EXPECT_NE(help.find(text), std::string::npos) << text;
}

}  // namespace
}  // namespace hpcreward
