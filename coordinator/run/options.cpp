#include "coordinator/run/options.hpp"

#include <boost/program_options.hpp>

#include <fstream>
#include <iostream>
#include <random>
#include <tuple>

#include "common/problem_catalog.hpp"
#include "coordinator/serving/batch_registry.hpp"
#include "coordinator/input/code_extraction.hpp"
#include "coordinator/serving/http_endpoint.hpp"
#include "coordinator/scoring/measurement_cache.hpp"
#include "coordinator/serving/rendezvous.hpp"
#include "stages/builtin_ladder.hpp"

namespace hpcreward {
namespace po = boost::program_options;

namespace {

po::options_description describe_options() {
  po::options_description general("Coordinator options (also accepted in a --config file, key = value)");
  general.add_options()
      ("help,h", "print this help and exit")
      ("config", po::value<std::string>(), "read options from this INI file; the command line wins")
      ("candidates", po::value<std::string>(),
       "JSON Lines file, one candidate per line: id, problem, source or completion, optional stage and batch_id")
      ("serve", po::bool_switch(),
       "take batches from trainers over HTTP/JSON instead of --candidates (coordinator/README.md); "
       "writes OUT/coordinator.json and a token file, stops on SIGTERM/SIGINT")
      ("listen", po::value<std::string>()->default_value("0.0.0.0:0"),
       "serve mode: HOST:PORT to listen on (port 0: any free port; the URL is in OUT/coordinator.json)")
      ("max-request-bytes", po::value<std::size_t>()->default_value(kDefaultMaxRequestBytes),
       "serve mode: larger request bodies are refused (413)")
      ("max-batch-candidates", po::value<std::size_t>()->default_value(kDefaultMaxBatchCandidates),
       "serve mode: larger batches are refused (413)")
      ("coalesce-window-ms", po::value<std::size_t>()->default_value(
           static_cast<std::size_t>(kDefaultCoalesceWindow.count())),
       "serve mode: single-candidate requests (POST /get_reward with one query, POST /v1/batches with one "
       "candidate: per-sample reward calls) that arrive within this many ms of the first are scored as one "
       "batch, in one stage; each is still answered and logged under its own batch id. 0: off "
       "(coordinator/README.md, \"Coalescing per-sample requests\")")
      ("coalesce-max", po::value<std::size_t>()->default_value(kDefaultCoalesceMax),
       "serve mode: a coalesced batch of this many single-candidate requests is scored at once, before the "
       "window ends (1: no coalescing)")
      ("batches-in-flight", po::value<std::size_t>()->default_value(0),
       "serve mode: batches scored at once (a coalesced group counts as one); their candidates go to the "
       "ranks in order of arrival and each batch is answered when its own are done. 0: every accepted batch "
       "(no limit); 1: one batch at a time, each admitted once the one before it was answered")
      ("tls-cert", po::value<std::string>(),
       "serve mode: serve HTTPS with this PEM certificate (chain); needs --tls-key. Its subjectAltName "
       "must name the host in the URL (coordinator/README.md, \"HTTPS\")")
      ("tls-key", po::value<std::string>(), "serve mode: the certificate's PEM private key (unencrypted; keep it mode 0600)")
      ("out", po::value<std::string>(), "run directory; receives rewards.h5 and coordinator.pid")
      ("ladder", po::value<std::string>(),
       "stage ladder (JSON, see stages/default_ladder.json; default: that file, built in)")
      ("prompt-template", po::value<std::string>(),
       "serve mode: the template GET /v1/prompts fills (prompts/README.md lists its {{fields}}; default: the "
       "built-in prompts/default_prompt.txt)")
      ("stage", po::value<std::string>(),
       "score lines that name no stage in this stage (default: their problem's current ladder stage; a line's own stage wins)")
      ("resume", po::bool_switch(),
       "go on with an existing OUT/rewards.h5: candidates it already holds are skipped, stages and archive are rebuilt from it")
      ("problems", po::value<std::string>()->default_value("default"),
       ("the run's problem catalog: a built-in one (" + builtin_catalog_list() +
        ") or a JSON file (docs/problems.md)").c_str())
      ("problem", po::value<std::string>(),
       "problem of lines that name none (default: the catalog's first, dgemm-256 in \"default\")")
      ("batch-id", po::value<std::string>(), "batch id of lines that name none (default: the input file's name without extension)")
      ("seed", po::value<std::uint64_t>(), "run seed for the benchmark inputs (default: random, recorded in the log)")
      ("max-source-bytes", po::value<std::size_t>()->default_value(kDefaultMaxSourceBytes),
       "larger sources are format_error")
      ("rank-start-timeout", po::value<int>()->default_value(120),
       "seconds to wait for every benchmark rank to start")
      ("rank-deadline-margin-s", po::value<double>()->default_value(60),
       "a benchmark rank that holds tasks and has not answered for its task limit (its compile and run "
       "timeouts, from its hello) plus this many seconds is quarantined: no more work this run, its "
       "tasks go to other ranks, its late answers are discarded, the event goes to /rank_events")
      ("stop-grace-s", po::value<double>()->default_value(60),
       "on SIGUSR1 (file mode also SIGTERM/SIGINT) no new task is sent and the ranks get this many "
       "seconds to answer what they hold; then the log is closed and the coordinator exits 75")
      ("repeat-cache-entries", po::value<std::size_t>()->default_value(kDefaultRepeatCacheEntries),
       "an identical candidate (same code, problem, stage and stage rules) is answered from an earlier "
       "measurement, its row naming that one (measured_as); rank 0 keeps this many measurements (1-2 KB "
       "each), evicting the least recently used. In one batch identical candidates are always measured once. "
       "0: off, every candidate is measured (coordinator/README.md, \"Identical candidates\")");
  po::options_description rewards(
      "Rewards (docs/design.md, docs/problems.md); `ok` earns what --reward-mode says, a failure its penalty "
      "(in the fraction and speedup modes the defaults below times 0.01, unless given)");
  rewards.add_options()("reward-mode", po::value<std::string>()->default_value("gflops"),
                        "the reward of `ok`: gflops (the measured GFLOPS), fraction (GFLOPS over the best of the "
                        "scoring rank's yardsticks for the problem: OpenBLAS, cuBLAS, cuBLASLt at its shape), or "
                        "speedup:NAME (GFLOPS over yardstick NAME: openblas, cublas, cublaslt)");
  RewardTable defaults;
  for (Status status : kAllStatuses) {
    if (status == Status::ok) continue;
    const std::string key = "reward." + std::string(to_string(status));
    rewards.add_options()(key.c_str(), po::value<double>()->default_value(defaults.penalty(status)),
                          ("reward of " + std::string(to_string(status))).c_str());
  }
  general.add(rewards);
  return general;
}

std::string required(const po::variables_map &values, const char *key) {
  if (!values.count(key))
    throw std::invalid_argument(std::string("--") + key + " is required (see --help)");
  return values[key].as<std::string>();
}

constexpr const char *kExitCodesHelp =
    "Exit codes (also in OUT/coordinator.outcome.json: exit_code, outcome, message, rows_in_log,\n"
    "rows_written, lost_ranks, time; written atomically before every exit once OUT is known):\n"
    "  0   complete: file mode, every candidate has a row; serve mode, stopped by SIGTERM/SIGINT\n"
    "  1   error while running (outcome \"error\"); the log keeps every row written\n"
    "  2   configuration error (\"config_error\"): options, config file, ladder, --resume vs the log\n"
    "  3   no benchmark rank left (\"no_ranks\"): every rank of a kind with work left was quarantined\n"
    "  75  stopped before the end (\"stopped\"): SIGUSR1 (Slurm's time-limit warning or preemption),\n"
    "      in file mode also SIGTERM/SIGINT; requeue the job, or rerun with --resume\n"
    "When a rank was quarantined (or a stop's grace ended with tasks still out on ranks) the\n"
    "coordinator ends the job with MPI_Abort(exit code) after the log is closed and the outcome\n"
    "file written: MPI_Finalize would wait for those ranks (forever, or up to their task limit).\n";

}  // namespace

std::optional<std::filesystem::path> out_directory_argument(int argc, const char *const *argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument == "--out" && i + 1 < argc) return std::filesystem::path(argv[i + 1]);
    if (argument.rfind("--out=", 0) == 0 && argument.size() > 6) return std::filesystem::path(argument.substr(6));
  }
  return std::nullopt;
}

std::optional<CoordinatorOptions> parse_coordinator_options(int argc, const char *const *argv) {
  const po::options_description description = describe_options();
  po::variables_map values;
  try {
    po::store(po::parse_command_line(argc, argv, description), values);
    if (values.count("config")) {
      const std::string path = values["config"].as<std::string>();
      std::ifstream file(path);
      if (!file) throw std::invalid_argument("cannot read --config file " + path);
      po::store(po::parse_config_file(file, description), values);
    }
    po::notify(values);
  } catch (const po::error &error) {
    throw std::invalid_argument(std::string(error.what()) + " (see --help)");
  }
  if (values.count("help")) {
    std::cout << "hpcreward-coordinator: rank 0 of an hpcreward run. Scores every candidate (of a\n"
                 "--candidates file, or sent by trainers with --serve) on the benchmark ranks of the\n"
                 "MPI world and writes OUT/rewards.h5.\n\n"
              << description << "\n" << kExitCodesHelp;
    return std::nullopt;
  }

  CoordinatorOptions options;
  options.serve = values["serve"].as<bool>();
  if (options.serve && values.count("candidates"))
    throw std::invalid_argument("--serve takes its batches over HTTP: drop --candidates (or drop --serve)");
  if (!options.serve) options.candidates = required(values, "candidates");
  std::tie(options.listen_host, options.listen_port) = parse_listen_address(values["listen"].as<std::string>());
  options.max_request_bytes = values["max-request-bytes"].as<std::size_t>();
  options.max_batch_candidates = values["max-batch-candidates"].as<std::size_t>();
  if (options.max_request_bytes == 0) throw std::invalid_argument("--max-request-bytes must be positive");
  if (options.max_batch_candidates == 0) throw std::invalid_argument("--max-batch-candidates must be positive");
  options.coalesce_window_ms = values["coalesce-window-ms"].as<std::size_t>();
  options.coalesce_max = values["coalesce-max"].as<std::size_t>();
  options.batches_in_flight = values["batches-in-flight"].as<std::size_t>();
  if (options.coalesce_max == 0)
    throw std::invalid_argument("--coalesce-max must be positive (1, or --coalesce-window-ms 0, turns coalescing off)");
  if (options.coalesce_window_ms > 60000)
    throw std::invalid_argument("--coalesce-window-ms " + std::to_string(options.coalesce_window_ms) +
                                " is over a minute: every per-sample request would wait that long; use at most 60000");
  auto optional_string = [&](const char *key) {
    return values.count(key) ? std::optional<std::string>(values[key].as<std::string>()) : std::nullopt;
  };
  if (!options.serve && (values.count("tls-cert") || values.count("tls-key")))
    throw std::invalid_argument("--tls-cert and --tls-key are for --serve (HTTPS to trainers); a --candidates run "
                                "has no endpoint: drop them");
  options.tls = check_tls_files(optional_string("tls-cert"), optional_string("tls-key"));
  options.out = required(values, "out");
  if (values.count("ladder")) {
    options.ladder_source = values["ladder"].as<std::string>();
    std::ifstream file(options.ladder_source);
    if (!file) throw std::invalid_argument("cannot read --ladder file " + options.ladder_source);
    options.ladder_json.assign(std::istreambuf_iterator<char>(file), {});
  } else {
    options.ladder_source = std::string(kBuiltinLadderName);
    options.ladder_json = std::string(builtin_ladder_json());
  }
  options.ladder = parse_ladder_config(options.ladder_json, options.ladder_source);
  if (values.count("prompt-template")) {
    if (!options.serve)
      throw std::invalid_argument("--prompt-template is for --serve (GET /v1/prompts); a --candidates run serves no "
                                  "prompts: drop it, or print them with hpcreward-prompts --template");
    options.prompt_template = prompts::PromptTemplate::load(values["prompt-template"].as<std::string>());
  }
  options.stage = values.count("stage") ? values["stage"].as<std::string>() : "";
  if (!options.stage.empty() && !options.ladder.find(options.stage))
    throw std::invalid_argument("--stage " + options.stage + " is not a stage of " + options.ladder_source +
                                "; known: " + stage_names(options.ladder));
  options.resume = values["resume"].as<bool>();
  options.problems = load_problem_catalog(values["problems"].as<std::string>());
  options.problem = values.count("problem") ? values["problem"].as<std::string>() : options.problems.problems.front().id;
  if (!options.problems.find(options.problem))
    throw std::invalid_argument("--problem " + options.problem + " is not a problem of " + options.problems.source +
                                "; known: " + options.problems.ids());
  options.batch_id = values.count("batch-id") ? values["batch-id"].as<std::string>()
                                              : options.serve ? "" : options.candidates.stem().string();
  options.seed = values.count("seed") ? values["seed"].as<std::uint64_t>()
                                      : (std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
  options.max_source_bytes = values["max-source-bytes"].as<std::size_t>();
  options.rank_start_timeout_s = values["rank-start-timeout"].as<int>();
  if (options.rank_start_timeout_s <= 0) throw std::invalid_argument("--rank-start-timeout must be positive");
  options.rank_deadline_margin_s = values["rank-deadline-margin-s"].as<double>();
  if (!(options.rank_deadline_margin_s > 0))
    throw std::invalid_argument("--rank-deadline-margin-s must be positive");
  options.stop_grace_s = values["stop-grace-s"].as<double>();
  options.repeat_cache_entries = values["repeat-cache-entries"].as<std::size_t>();
  if (options.repeat_cache_entries > kMaxRepeatCacheEntries)  // also "-1", which wraps around
    throw std::invalid_argument("--repeat-cache-entries " + std::to_string(options.repeat_cache_entries) +
                                " is too many (an entry is about 1 KB of rank 0's memory): use at most " +
                                std::to_string(kMaxRepeatCacheEntries) + ", or 0 to measure every candidate");
  if (!(options.stop_grace_s >= 0)) throw std::invalid_argument("--stop-grace-s must not be negative");

  options.rewards.set_mode(RewardMode::parse(values["reward-mode"].as<std::string>()));
  const bool ratio_rewards = options.rewards.mode().kind() != RewardMode::Kind::gflops;
  nlohmann::json rewards = nlohmann::json::object();
  for (Status status : kAllStatuses) {
    if (status == Status::ok) continue;
    const std::string key = "reward." + std::string(to_string(status));
    const bool scaled = ratio_rewards && values[key].defaulted();
    const double penalty = values[key].as<double>() * (scaled ? RewardTable::kRatioPenaltyScale : 1.0);
    options.rewards.set_penalty(status, penalty);
    rewards[std::string(to_string(status))] = penalty;
  }
  rewards["ok"] = options.rewards.mode().unit();
  options.as_json = {{"candidates", options.candidates.string()}, {"out", options.out.string()},
                     {"stage", options.stage},       {"problem", options.problem},
                     {"ladder", options.ladder_source}, {"resume", options.resume},
                     {"batch_id", options.batch_id}, {"seed", std::to_string(options.seed)},
                     {"max_source_bytes", options.max_source_bytes},
                     {"rewards", rewards},
                     {"reward_mode", options.rewards.mode().text()},
                     {"serve", options.serve},
                     {"listen", values["listen"].as<std::string>()},
                     {"max_request_bytes", options.max_request_bytes},
                     {"max_batch_candidates", options.max_batch_candidates},
                     {"coalesce_window_ms", options.coalesce_window_ms},
                     {"coalesce_max", options.coalesce_max},
                     {"batches_in_flight", options.batches_in_flight},
                     {"tls_cert", options.tls.cert.string()}, {"tls_key", options.tls.key.string()},
                     {"rank_deadline_margin_s", options.rank_deadline_margin_s},
                     {"stop_grace_s", options.stop_grace_s},
                     {"repeat_cache_entries", options.repeat_cache_entries},
                     {"ladder_config", nlohmann::json::parse(options.ladder_json)},
                     {"problems", options.problems.source},
                     {"problem_catalog", nlohmann::json::parse(options.problems.json)},
                     {"prompt_template", options.prompt_template ? options.prompt_template->source() : ""}};
  return options;
}

}  // namespace hpcreward
