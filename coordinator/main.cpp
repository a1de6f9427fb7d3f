// hpcreward-coordinator: rank 0. Reads candidates (a file, or with --serve batches that
// trainers send over HTTP), scores them batch by batch on the benchmark ranks (every other
// rank of the MPI world runs hpcreward-bench), moves each problem up the stage ladder and
// writes OUT/rewards.h5 (or goes on with it: --resume). Ranks that stop answering are
// quarantined (rank_watch.hpp); SIGUSR1 stops the run for a requeue (exit 75); every exit
// writes OUT/coordinator.outcome.json (run_outcome.hpp).
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "coordinator/batch_registry.hpp"
#include "coordinator/candidate_file.hpp"
#include "coordinator/flush_before_wait.hpp"
#include "coordinator/http_endpoint.hpp"
#include "coordinator/log_sink.hpp"
#include "coordinator/mpi_transport.hpp"
#include "coordinator/options.hpp"
#include "coordinator/problem_support.hpp"
#include "coordinator/provenance_builder.hpp"
#include "coordinator/rendezvous.hpp"
#include "coordinator/run_outcome.hpp"
#include "coordinator/run_report.hpp"
#include "coordinator/run_start.hpp"
#include "coordinator/scoring_run.hpp"
#include "coordinator/serve_loop.hpp"
#include "coordinator/stop_signals.hpp"
#include "results/summary.hpp"

namespace hpcreward {
namespace {

void print_line(const std::string &line) {
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

// A row's progress line waits in stdout's buffer (flushed by the next print_line, before
// rank 0 waits for results, and before a served batch is answered): one write per burst of
// rows, not one per row.
void print_progress_line(const std::string &line) { std::printf("%s\n", line.c_str()); }

// What a resumed run's log already holds.
struct LoggedRun {
  std::vector<RewardRow> rows;
  std::vector<StageEventRecord> events;
  std::vector<ArchiveRecord> archive;
  Provenance provenance;
};

LoggedRun read_logged_run(const std::filesystem::path &log_path) {
  LoggedRun logged;
  logged.provenance = read_provenance(log_path);
  logged.rows = read_rewards(log_path);
  logged.events = read_stage_events(log_path);
  logged.archive = read_archive(log_path);
  return logged;
}

// Under the `refuse` policy a ladder this host cannot fully run stops the run here.
void check_host_support(const SqdState &state) {
  for (const UnsupportedStage &stage : state.unsupported()) {
    if (state.config().avx512_unsupported == UnsupportedPolicy::refuse)
      throw std::runtime_error(stage.reason + "; the ladder says \"avx512_unsupported\": \"refuse\". "
                               "Run on ranks with AVX-512, or set it to \"skip\"");
    print_line("note: " + stage.reason + "; problems skip it (avx512_unsupported: skip)");
  }
}

// Serve mode: the endpoint on its own threads, scoring here until SIGTERM/SIGINT (or a
// requeue: SIGUSR1). Returns how serving ended.
ServeEnd serve(const CoordinatorOptions &options, const CandidateDefaults &defaults, const RunCapabilities &run,
           BatchRegistry &registry, ScoringRun &scoring, RewardLogWriter &writer, const SqdState &sqd,
           std::vector<RewardRow> &&logged) {
  if (options.resume) {
    // Needed once: the registry keeps only each row's identity, the repeat cache its bounded
    // share; the rows go when this block ends (a serve run lasts days).
    const std::vector<RewardRow> rows = std::move(logged);
    const std::size_t batches = restore_logged_batches(registry, rows);
    scoring.continue_log(rows);  // also recalls its measurements for identical candidates
    print_line("resume: " + std::to_string(batches) +
               " logged batches are answered from the log when they are sent again");
  }
  EndpointConfig config;
  config.token = random_token();
  config.max_request_bytes = options.max_request_bytes;
  config.max_batch_candidates = options.max_batch_candidates;
  config.defaults = defaults;
  // A waiting request holds an HTTP worker: enough of them for a full coalesced group's
  // callers to wait together, and some to spare for others.
  config.threads = static_cast<int>(std::max<std::size_t>(64, options.coalesce_max + 16));
  config.refuse_problem = [run](const Problem &problem) { return problem_refusal(problem, run); };
  config.tls = options.tls;
  const std::filesystem::path token_file = std::filesystem::absolute(options.out / "coordinator.token");
  const std::filesystem::path rendezvous = options.out / "coordinator.json";
  std::filesystem::remove(rendezvous);  // a stale one would send trainers to a dead endpoint
  write_token_file(token_file, config.token);

  HttpEndpoint endpoint(registry, config);
  install_stop_signals();
  const int port = endpoint.start(options.listen_host, options.listen_port);
  const std::string url = endpoint_url(options.listen_host, port, options.tls.enabled());
  if (options.tls.enabled())
    if (std::optional<std::string> warning = certificate_host_warning(options.tls.cert, url_host(url)))
      print_line(*warning);
  write_rendezvous(options.out, url, token_file, static_cast<long>(getpid()), options.tls.cert);
  // However serving ends, the rendezvous no longer points at a live endpoint.
  struct RemoveOnExit {
    std::filesystem::path path;
    ~RemoveOnExit() {
      std::error_code ignored;
      std::filesystem::remove(path, ignored);
    }
  } remove_rendezvous{rendezvous};
  print_line(options.coalesce_window_ms > 0 && options.coalesce_max > 1
                 ? "coalescing: single-candidate requests within " + std::to_string(options.coalesce_window_ms) +
                       " ms of the first (at most " + std::to_string(options.coalesce_max) +
                       ") are scored as one batch"
                 : std::string("coalescing: off (each request is its own batch)"));
  print_line("serving " + url + " (token in " + token_file.string() +
             (options.tls.enabled() ? ", certificate " + options.tls.cert.string() : "") + ", rendezvous " +
             rendezvous.string() + "); SIGTERM or SIGINT stops it");

  ServeHooks hooks;
  // The batch's rows are flushed to the log before its answer is given: a trainer never
  // holds an answer whose row a crash could lose (a resume would score it again).
  hooks.score = [&](QueuedBatch &batch) {
    std::vector<RewardRow> rows = scoring.score_one_batch(std::move(batch.candidates), batch.logged);
    writer.flush();
    std::fflush(stdout);
    return rows;
  };
  // A retried batch the registry no longer holds in memory is answered from these.
  hooks.logged_rows = [&](const std::string &batch_id, LogRowRange range) {
    return writer.rows_of_batch(batch_id, range.first, range.end);
  };
  hooks.rows_in_log = [&] { return static_cast<std::uint64_t>(scoring.rows_in_log()); };
  hooks.drained = [&](const std::vector<std::string> &problems) { scoring.finish(problems); };
  hooks.stages = [&] { return sqd.stages(); };
  hooks.note = print_line;
  hooks.cut_short = [&] { return scoring.cut_short(); };
  const ServeEnd end = run_serve_loop(registry, hooks, finish_requested, requeue_requested);
  endpoint.stop();
  print_line("stopped: " + std::to_string(registry.batches()) + " batches answered");
  return end;
}

int run(CoordinatorOptions options, int world_size, RunOutcome &outcome) {
  if (world_size < 2)
    throw std::runtime_error("no benchmark ranks: start hpcreward-bench beside the coordinator "
                             "(jobs/local.sh does this)");
  const std::filesystem::path log_path = checked_log_path(options);
  LoggedRun logged;
  if (options.resume) {
    logged = read_logged_run(log_path);
    // The same seed again: a candidate scored now gets the inputs it would have got before.
    options.seed = std::stoull(logged.provenance.seed);
    outcome.rows_in_log = logged.rows.size();
  }
  std::filesystem::create_directories(options.out);
  std::ofstream(options.out / "coordinator.pid") << getpid() << "\n";

  CandidateDefaults defaults;
  defaults.problem = options.problem;
  defaults.stage = options.stage;
  defaults.batch_id = options.batch_id;
  defaults.max_source_bytes = options.max_source_bytes;
  for (const StageSpec &stage : options.ladder.stages) defaults.known_stages.push_back({stage.name, stage.language});
  std::vector<PreparedCandidate> candidates;
  if (!options.serve) candidates = read_candidate_file(options.candidates, defaults);
  std::vector<RankInfo> ranks =
      gather_rank_info(world_size, std::chrono::seconds(options.rank_start_timeout_s));
  const std::size_t nulls = check_ranks(ranks, options.rewards);
  const bool host_has_avx512 = cpu_ranks_have_avx512(ranks);
  // A problem no rank can score is refused now, before the log exists, not left queued.
  const RunCapabilities run = run_capabilities(ranks, &options.ladder, options.ladder_source);
  const std::optional<std::string> refusal =
      options.serve ? default_problem_refusal(options.problem, run)
                    : candidates_refusal(candidates, match_logged(candidates, logged.rows), run);
  if (refusal) throw std::invalid_argument(*refusal);

  ScoringContext context = scoring_context(options, ranks, this_host());

  std::vector<ArchiveRecord> missing_archive;
  SqdState sqd = options.resume
      ? SqdState::rebuild(options.ladder, host_has_avx512, logged.rows, logged.events, logged.archive,
                          [&](const RewardRow &row) { return rank_blas_gflops(context.rank_info, row.rank, row.problem); },
                          missing_archive)
      : SqdState(options.ladder, host_has_avx512);
  check_host_support(sqd);

  std::unique_ptr<RewardLogWriter> writer =
      options.resume ? std::make_unique<RewardLogWriter>(log_path, RewardLogWriter::Resume{})
                     : std::make_unique<RewardLogWriter>(log_path, build_provenance(options, ranks));
  for (const ArchiveRecord &record : missing_archive) writer->append_archive(record);
  // Rows are written in bursts (results/README.md "When rows reach the file"): flushed when
  // rank 0 is about to wait, before a served batch is answered, and at the end.
  writer->set_flush_policy(LogFlushPolicy::batched());
  LogSink sink(*writer);
  MpiTransport mpi;
  FlushBeforeWait transport(mpi, [&sink] {
    sink.flush();
    std::fflush(stdout);
  });

  const std::string rank_kinds = format_rank_kinds(run);
  if (options.serve)
    std::printf("hpcreward: %s on %zu benchmark ranks (%s), ladder %s -> %s\n",
                options.resume ? "serving (resumed)" : "serving", ranks.size(), rank_kinds.c_str(),
                options.ladder_source.c_str(), log_path.c_str());
  else
    std::printf("hpcreward: %s %zu candidates on %zu benchmark ranks (%s), ladder %s -> %s\n",
                options.resume ? "resuming" : "scoring", candidates.size(), ranks.size(), rank_kinds.c_str(),
                options.ladder_source.c_str(), log_path.c_str());
  if (nulls > 0)
    print_line("NULL MEASUREMENT: " + std::to_string(nulls) + " of " + std::to_string(ranks.size()) +
               " benchmark ranks run hpcreward-bench --null-measurement: they answer every candidate at once with "
               "runtime_error \"null measurement\" and measure nothing. This run measures the coordinator only; the "
               "log's provenance (hosts) marks those ranks null_measurement");
  if (options.resume)
    std::printf("resume: the log holds %zu rows, %zu stage events; their candidates are not scored again\n%s",
                logged.rows.size(), logged.events.size(), format_sqd_state(sqd).c_str());
  BatchRegistry registry(CoalescePolicy{std::chrono::milliseconds(options.coalesce_window_ms),
                                        options.coalesce_max});  // serve mode only
  if (options.serve)  // SIGTERM/SIGINT finish the accepted batches; SIGUSR1 stops for a requeue
    context.stop_requested = [&registry] {
      if (!requeue_requested()) return false;
      close_for_requeue(registry);  // new requests hear 503 at once, not after the grace
      return true;
    };
  else
    context.stop_requested = [] { return requeue_requested() || finish_requested(); };
  // The end-of-run table, tallied as rows are written (a long run keeps no rows for it).
  RunSummary summary;
  for (const RewardRow &row : logged.rows) summary.add(row);
  const std::size_t rows_before = logged.rows.size();
  // What the run prints as it goes, and what it keeps for the outcome and the summary.
  class ConsoleObserver : public ScoringObserver {
   public:
    ConsoleObserver(bool serve, BatchRegistry &registry, RunSummary &summary, RunOutcome &outcome,
                    std::size_t rows_before)
        : serve_(serve), registry_(registry), summary_(summary), outcome_(outcome), rows_before_(rows_before) {}
    void row_written(const RewardRow &row, std::size_t done, std::size_t total) override {
      if (serve_) registry_.row_written(row.batch_id);
      summary_.add(row);
      ++outcome_.rows_written;
      outcome_.rows_in_log = rows_before_ + outcome_.rows_written;
      print_progress_line(format_progress_line(row, done, total));
    }
    void stage_advanced(const StageEvent &event) override { print_line(format_stage_event(event)); }
    void rank_lost(const RankEventRecord &event) override {
      outcome_.lost_ranks.push_back(event);
      print_line("quarantined: rank " + std::to_string(event.rank) + " on " + event.host + ": " + event.reason);
    }
    void note(const std::string &line) override { print_line(line); }

   private:
    bool serve_;
    BatchRegistry &registry_;
    RunSummary &summary_;
    RunOutcome &outcome_;
    std::size_t rows_before_;
  };
  ConsoleObserver console(options.serve, registry, summary, outcome, rows_before);
  ScoringRun scoring(transport, sink, options.rewards, sqd, context, &console);
  for (const std::string &line : format_rank_deadlines(ranks, options.rank_deadline_margin_s)) print_line(line);
  bool stopped = false;
  if (options.serve) {
    // The rows move in: serve lets them go once start-up needs them no more.
    stopped = serve(options, defaults, run, registry, scoring, *writer, sqd, std::move(logged.rows)) ==
              ServeEnd::requeue;
    outcome.unanswered_at_stop = scoring.unanswered_at_stop();
  } else {
    const std::vector<const RewardRow *> matched = match_logged(candidates, logged.rows);
    const std::size_t to_score =
        candidates.size() - static_cast<std::size_t>(std::count_if(matched.begin(), matched.end(),
                                                                   [](const RewardRow *row) { return row != nullptr; }));
    scoring.score(std::move(candidates), logged.rows);
    stopped = scoring.cut_short();
    outcome.unanswered_at_stop = scoring.unanswered_at_stop();
    if (stopped)
      outcome.message = std::string("stopped by ") + first_stop_signal() + " before the end: " +
                        std::to_string(to_score - outcome.rows_written) + " of " + std::to_string(to_score) +
                        " candidates to score have no row; requeue the job or rerun with --resume";
  }
  writer->flush();
  stop_bench_ranks(world_size);

  std::printf("\n%s\n%s", summary.format().c_str(), format_sqd_state(sqd).c_str());
  if (!outcome.lost_ranks.empty()) std::printf("\n%s", format_rank_events(outcome.lost_ranks).c_str());
  std::printf("reward log: %s (%zu rows, %zu written now)\n", log_path.c_str(), writer->rows(), outcome.rows_written);
  outcome.rows_in_log = writer->rows();
  if (stopped) {
    if (outcome.message.empty())
      outcome.message = std::string("stopped by ") + first_stop_signal() +
                        " for a requeue: batches not done were failed with \"retry\"; rerun with --resume";
    print_line(outcome.message);
    return kExitStopped;
  }
  outcome.message = options.serve ? std::string("serve mode stopped by ") + first_stop_signal() + ": " +
                                        std::to_string(registry.batches()) + " batches answered"
                                  : "every candidate has a row";
  return kExitComplete;
}

}  // namespace
}  // namespace hpcreward

int main(int argc, char **argv) {
  // Before any output: progress lines are buffered (print_progress_line); 64 KiB holds a
  // burst of several hundred.
  static char stdout_buffer[1 << 16];
  std::setvbuf(stdout, stdout_buffer, _IOFBF, sizeof stdout_buffer);
  // First: SIGUSR1's default action would kill the coordinator and lose the stop for a requeue;
  // again after MPI_Init, in case an MPI library replaces a handler there.
  hpcreward::install_stop_signals();
  MPI_Init(&argc, &argv);
  hpcreward::install_stop_signals();
  int rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (rank != 0) {
    std::fprintf(stderr, "hpcreward-coordinator must be rank 0 (it is rank %d)\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  hpcreward::RunOutcome outcome;
  std::optional<std::filesystem::path> out_dir = hpcreward::out_directory_argument(argc, argv);
  bool help = false;
  try {
    auto options = hpcreward::parse_coordinator_options(argc, argv);
    help = !options;
    if (options) {
      out_dir = options->out;
      hpcreward::remove_outcome_file(*out_dir);  // a stale one would tell the job script a past run's end
      outcome.exit_code = hpcreward::run(std::move(*options), world_size, outcome);
    } else {
      outcome.exit_code = hpcreward::kExitComplete;
    }
  } catch (const hpcreward::NoRanksLeft &error) {
    std::fprintf(stderr, "hpcreward-coordinator: %s\n", error.what());
    outcome.exit_code = hpcreward::kExitNoRanks;
    outcome.message = error.what();
  } catch (const std::invalid_argument &error) {
    std::fprintf(stderr, "hpcreward-coordinator: %s\n", error.what());
    outcome.exit_code = hpcreward::kExitConfigError;
    outcome.message = error.what();
  } catch (const std::exception &error) {
    std::fprintf(stderr, "hpcreward-coordinator: error: %s\n", error.what());
    outcome.exit_code = hpcreward::kExitError;
    outcome.message = error.what();
  }
  // run() has closed the log (its writer is gone, however run() ended).
  if (out_dir && !help)
    if (const std::string failed = hpcreward::write_outcome_file(*out_dir, outcome); !failed.empty())
      std::fprintf(stderr, "hpcreward-coordinator: cannot write %s: %s\n", hpcreward::kOutcomeFileName, failed.c_str());
  // Benchmark ranks wait for work until told to stop, whatever happened here.
  hpcreward::stop_bench_ranks(world_size);
  // MPI_Finalize waits for every rank: forever for a quarantined one, and up to their task
  // limit for ranks still busy with tasks a stop's grace did not cover (past a Slurm warning).
  std::string why_abort;
  if (!outcome.lost_ranks.empty()) {
    std::string ranks;
    for (const auto &event : outcome.lost_ranks) ranks += (ranks.empty() ? "" : ", ") + std::to_string(event.rank);
    why_abort = "MPI_Finalize would wait forever for quarantined rank" +
                std::string(outcome.lost_ranks.size() == 1 ? " " : "s ") + ranks;
  } else if (outcome.exit_code == hpcreward::kExitStopped && outcome.unanswered_at_stop > 0) {
    why_abort = "MPI_Finalize would wait for ranks still busy with " + std::to_string(outcome.unanswered_at_stop) +
                " task(s) the stop's grace did not cover";
  }
  if (!why_abort.empty()) {
    std::fprintf(stderr, "hpcreward-coordinator: ending the job with MPI_Abort(%d), not MPI_Finalize: %s (the log is "
                         "closed, %s written)\n",
                 outcome.exit_code, why_abort.c_str(), hpcreward::kOutcomeFileName);
    std::fflush(stdout);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, outcome.exit_code);
  }
  MPI_Finalize();
  return outcome.exit_code;
}
