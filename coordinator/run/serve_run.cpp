#include "coordinator/run/serve_run.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <system_error>

#include "coordinator/serving/rendezvous.hpp"
#include "coordinator/run/stop_signals.hpp"
#include "coordinator/serving/tls_files.hpp"

namespace hpcreward {
namespace {

// However serving ends, the rendezvous no longer points at a live endpoint.
struct RemoveOnExit {
  std::filesystem::path path;
  ~RemoveOnExit() {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
  }
};

}  // namespace

EndpointConfig endpoint_config(const CoordinatorOptions &options, const CandidateDefaults &defaults,
                               const RunCapabilities &capabilities) {
  EndpointConfig config;
  config.token = random_token();
  config.max_request_bytes = options.max_request_bytes;
  config.max_batch_candidates = options.max_batch_candidates;
  config.defaults = defaults;
  // A waiting request holds an HTTP worker.
  config.threads = static_cast<int>(std::max<std::size_t>(64, options.coalesce_max + 16));
  config.refuse_problem = [capabilities](const Problem &problem) { return problem_refusal(problem, capabilities); };
  config.tls = options.tls;
  config.reward_mode = options.rewards.mode().text();
  config.reward_unit = options.rewards.mode().unit();
  return config;
}

std::string coalescing_line(const CoordinatorOptions &options) {
  if (options.coalesce_window_ms == 0 || options.coalesce_max <= 1)
    return "coalescing: off (each request is its own batch)";
  return "coalescing: single-candidate requests within " + std::to_string(options.coalesce_window_ms) +
         " ms of the first (at most " + std::to_string(options.coalesce_max) + ") are scored as one batch";
}

namespace {

// The scoring run as the serve loop's scorer: batches in flight together.
class ScoringRunScorer : public BatchScorer {
 public:
  explicit ScoringRunScorer(ScoringRun &scoring) : scoring_(scoring) {}
  std::uint64_t admit(QueuedBatch &batch) override {
    return scoring_.admit(std::move(batch.candidates), batch.logged);
  }
  std::vector<Done> progress(std::chrono::milliseconds wait) override {
    std::vector<Done> done;
    for (ScoringRun::DoneBatch &batch : scoring_.progress(wait))
      done.push_back({batch.token, std::move(batch.rows), batch.cut_short});
    return done;
  }

 private:
  ScoringRun &scoring_;
};

}  // namespace

ServeHooks serve_hooks(ScoringRun &scoring, RewardLogWriter &writer, const SqdState &sqd, Console &console,
                       std::size_t batches_in_flight) {
  ServeHooks hooks;
  hooks.scorer = std::make_shared<ScoringRunScorer>(scoring);
  hooks.batches_in_flight = batches_in_flight;
  // The rows are flushed to the log before any answer is given: a trainer never holds an
  // answer whose row a crash could lose (a resume would score it again).
  hooks.flush = [&writer, &console] {
    writer.flush();
    console.flush();
  };
  hooks.logged_rows = [&writer](const std::string &batch_id, LogRowRange range) {
    return writer.rows_of_batch(batch_id, range.first, range.end);
  };
  hooks.rows_in_log = [&scoring] { return static_cast<std::uint64_t>(scoring.rows_in_log()); };
  hooks.drained = [&scoring](const std::vector<std::string> &problems) { scoring.finish(problems); };
  hooks.stages = [&sqd] { return sqd.stages(); };
  hooks.note = [&console](const std::string &line) { console.line(line); };
  return hooks;
}

ServeEnd serve_batches(const CoordinatorOptions &options, const CandidateDefaults &defaults,
                       const RunCapabilities &capabilities, const std::vector<RankInfo> &ranks, ServeParts parts,
                       std::vector<RewardRow> &&logged_rows) {
  if (options.resume) {
    const std::vector<RewardRow> rows = std::move(logged_rows);  // gone when this block ends
    const std::size_t batches = restore_logged_batches(parts.registry, rows);
    parts.scoring.continue_log(rows);  // also recalls its measurements for identical candidates
    parts.console.line("resume: " + std::to_string(batches) +
                       " logged batches are answered from the log when they are sent again");
  }
  EndpointConfig config = endpoint_config(options, defaults, capabilities);
  config.prompts = std::make_shared<const prompts::PromptMaker>(
      options.problems, options.ladder, options.prompt_template.value_or(prompts::PromptTemplate::builtin()), ranks,
      std::vector<prompts::NodeDescription>{}, config.reward_unit);
  const std::filesystem::path token_file = std::filesystem::absolute(options.out / "coordinator.token");
  const std::filesystem::path rendezvous = options.out / "coordinator.json";
  std::filesystem::remove(rendezvous);  // a stale one would send trainers to a dead endpoint
  write_token_file(token_file, config.token);

  HttpEndpoint endpoint(parts.registry, config);
  install_stop_signals();
  const int port = endpoint.start(options.listen_host, options.listen_port);
  const std::string url = endpoint_url(options.listen_host, port, options.tls.enabled());
  if (options.tls.enabled())
    if (std::optional<std::string> warning = certificate_host_warning(options.tls.cert, url_host(url)))
      parts.console.line(*warning);
  write_rendezvous(options.out, url, token_file, static_cast<long>(getpid()), options.tls.cert);
  const RemoveOnExit remove_rendezvous{rendezvous};
  parts.console.line(coalescing_line(options));
  parts.console.line(options.batches_in_flight == 1
                         ? "batches in flight: one at a time (--batches-in-flight 1)"
                         : "batches in flight: " +
                               (options.batches_in_flight == 0 ? std::string("every accepted batch")
                                                               : "up to " + std::to_string(options.batches_in_flight)) +
                               ", their candidates sent to the ranks in order of arrival");
  parts.console.line("serving " + url + " (token in " + token_file.string() +
                     (options.tls.enabled() ? ", certificate " + options.tls.cert.string() : "") + ", rendezvous " +
                     rendezvous.string() + "); SIGTERM or SIGINT stops it");

  const ServeEnd end =
      run_serve_loop(parts.registry,
                     serve_hooks(parts.scoring, parts.writer, parts.sqd, parts.console, options.batches_in_flight),
                     finish_requested, requeue_requested);
  endpoint.stop();
  parts.console.line("stopped: " + std::to_string(parts.registry.batches()) + " batches answered");
  return end;
}

}  // namespace hpcreward
