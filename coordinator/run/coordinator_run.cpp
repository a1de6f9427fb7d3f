#include "coordinator/run/coordinator_run.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>

#include "common/node_name.hpp"
#include "common/problem_catalog.hpp"
#include "coordinator/serving/batch_registry.hpp"
#include "coordinator/input/candidate_file.hpp"
#include "coordinator/run/console_observer.hpp"
#include "coordinator/scoring/flush_before_wait.hpp"
#include "coordinator/scoring/log_sink.hpp"
#include "coordinator/ranks/rank_quarantine.hpp"
#include "coordinator/run/run_log.hpp"
#include "coordinator/run/run_report.hpp"
#include "coordinator/run/run_start.hpp"
#include "coordinator/scoring/scoring_run.hpp"
#include "coordinator/run/serve_run.hpp"
#include "coordinator/run/stop_signals.hpp"

namespace hpcreward {
namespace {

// With --resume: what the log holds; the run goes on with its seed, so a candidate scored
// now gets the inputs it would have got before.
LoggedRun open_or_resume(CoordinatorOptions &options, const std::filesystem::path &log_path, RunOutcome &outcome) {
  if (!options.resume) return {};
  LoggedRun logged = read_logged_run(log_path);
  check_resumed_problems(logged, options.problems);
  check_resumed_reward_mode(logged, options.rewards.mode());
  options.seed = logged_seed(logged);
  outcome.rows_in_log = logged.rows.size();
  return logged;
}

// OUT/coordinator.pid: the process a job script signals.
void write_pid_file(const std::filesystem::path &out) {
  std::filesystem::create_directories(out);
  std::ofstream(out / "coordinator.pid") << getpid() << "\n";
}

// What scoring asks before each batch and between waits. File mode: every stop signal stops
// it. Serve mode: only a requeue (SIGUSR1), which also closes the registry at once (new
// requests hear 503 now, not after the grace); SIGTERM/SIGINT finish the accepted batches
// (serve_loop.hpp).
std::function<bool()> stop_check(bool serve, BatchRegistry &registry) {
  if (!serve) return [] { return requeue_requested() || finish_requested(); };
  return [&registry] {
    if (!requeue_requested()) return false;
    close_for_requeue(registry);
    return true;
  };
}

// File mode: scores the candidates the log does not hold yet.
ScoringEnd score_file(ScoringRun &scoring, std::vector<PreparedCandidate> candidates,
                      const std::vector<RewardRow> &logged_rows) {
  const std::vector<const RewardRow *> matched = match_logged(candidates, logged_rows);
  ScoringEnd end;
  end.to_score = static_cast<std::size_t>(std::count(matched.begin(), matched.end(), nullptr));
  scoring.score(std::move(candidates), logged_rows);
  end.stopped = scoring.cut_short();
  return end;
}

}  // namespace

int run_coordinator(CoordinatorOptions options, BenchWorld &world, Console &console, RunOutcome &outcome) {
  // Before any thread that looks a problem up (the HTTP endpoint, the scoring run).
  install_problem_catalog(options.problems);
  if (world.bench_ranks() < 1)
    throw std::runtime_error("no benchmark ranks: start hpcreward-bench beside the coordinator "
                             "(jobs/local.sh does this)");
  // Open the log, or resume it.
  const std::filesystem::path log_path = checked_log_path(options);
  LoggedRun logged = open_or_resume(options, log_path, outcome);
  write_pid_file(options.out);

  // The candidates and the ranks: a problem no rank can score is refused now, before the log
  // is created or extended.
  const CandidateDefaults defaults = candidate_defaults(options);
  std::vector<PreparedCandidate> candidates;
  if (!options.serve) candidates = read_candidate_file(options.candidates, defaults);
  const StartedRanks ranks = start_ranks(world, options);
  refuse_unscorable(options, candidates, logged.rows, ranks.capabilities);

  // The ladder's state, rebuilt from the log on a resume, and the log's writer.
  ScoringContext context = scoring_context(options, ranks.ranks, node_name());
  std::vector<ArchiveRecord> missing_archive;
  SqdState sqd = ladder_state(options.ladder, ranks.support, logged, context.rank_info, missing_archive);
  for (const std::string &note : host_support_notes(sqd)) console.line(note);
  const std::unique_ptr<RewardLogWriter> writer = open_log_writer(
      log_path, options.resume ? std::nullopt : std::optional(world.new_log_provenance(options, ranks.ranks)),
      missing_archive);
  console.text(format_run_start(options, candidates.size(), ranks, log_path, logged, sqd));

  // The scoring: rows and progress lines wait in buffers while answers keep coming, and are
  // flushed when rank 0 is about to wait (flush_before_wait.hpp).
  LogSink sink(*writer);
  FlushBeforeWait transport(world.transport(), [&sink, &console] {
    sink.flush();
    console.flush();
  });
  BatchRegistry registry(CoalescePolicy{std::chrono::milliseconds(options.coalesce_window_ms),
                                        options.coalesce_max});  // serve mode only
  context.stop_requested = stop_check(options.serve, registry);
  ConsoleObserver observer(console, outcome, options.serve ? &registry : nullptr);
  observer.count_logged(logged.rows);
  ScoringRun scoring(transport, sink, options.rewards, sqd, std::move(context), &observer);

  // Serve batches, or score the file.
  ScoringEnd end;
  if (options.serve) {
    // The rows move in: serving lets them go once start-up needs them no more.
    end.stopped = serve_batches(options, defaults, ranks.capabilities, ranks.ranks,
                                {registry, scoring, *writer, sqd, console}, std::move(logged.rows)) == ServeEnd::requeue;
    end.serve = true;
    end.batches = registry.batches();
  } else {
    end = score_file(scoring, std::move(candidates), logged.rows);
  }
  end.signal = first_stop_signal();
  outcome.unanswered_at_stop = scoring.unanswered_at_stop();

  // Finish: the log flushed, the ranks told to stop, the summary and how the run ended.
  writer->flush();
  world.stop_ranks();
  console.text(format_run_end(observer.summary(), sqd, outcome.lost_ranks, log_path, writer->rows(),
                              outcome.rows_written));
  outcome.rows_in_log = writer->rows();
  const int exit_code = conclude(outcome, end);
  if (end.stopped) console.line(outcome.message);
  return exit_code;
}

void run_to_outcome(RunOutcome &outcome, std::FILE *errors, const std::function<int()> &run) {
  try {
    outcome.exit_code = run();
  } catch (const NoRanksLeft &error) {
    std::fprintf(errors, "hpcreward-coordinator: %s\n", error.what());
    outcome.exit_code = kExitNoRanks;
    outcome.message = error.what();
  } catch (const std::invalid_argument &error) {
    std::fprintf(errors, "hpcreward-coordinator: %s\n", error.what());
    outcome.exit_code = kExitConfigError;
    outcome.message = error.what();
  } catch (const std::exception &error) {
    std::fprintf(errors, "hpcreward-coordinator: error: %s\n", error.what());
    outcome.exit_code = kExitError;
    outcome.message = error.what();
  }
}

}  // namespace hpcreward
