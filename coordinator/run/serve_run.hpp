#pragma once
// Serve mode's phase of a run: the HTTP(S) endpoint on its own threads, the rendezvous that
// tells trainers where it is (OUT/coordinator.token, OUT/coordinator.json, removed when
// serving ends), and the main thread scoring the batches it takes (serve_loop.hpp) until
// SIGTERM/SIGINT, or SIGUSR1 for a requeue.
#include <string>
#include <vector>

#include "coordinator/serving/batch_registry.hpp"
#include "coordinator/run/console.hpp"
#include "coordinator/serving/http_endpoint.hpp"
#include "coordinator/run/options.hpp"
#include "coordinator/ranks/problem_support.hpp"
#include "coordinator/scoring/scoring_run.hpp"
#include "coordinator/serving/serve_loop.hpp"
#include "results/reward_log.hpp"

namespace hpcreward {

// The endpoint's settings: the request limits and candidate defaults, a fresh token, enough
// HTTP workers for a full coalesced group's callers to wait together (and some to spare),
// and the refusal (422) of problems no rank of the run can score.
EndpointConfig endpoint_config(const CoordinatorOptions &options, const CandidateDefaults &defaults,
                               const RunCapabilities &capabilities);

// The line saying how single-candidate requests are coalesced ("coalescing: off ..." or the window).
std::string coalescing_line(const CoordinatorOptions &options);

// How a served batch is scored and answered: its rows reach the log before its answer is given,
// a retried batch no longer in memory is answered from the log, the stage advances it earned
// are logged before its answer (ServeHooks).
ServeHooks serve_hooks(ScoringRun &scoring, RewardLogWriter &writer, const SqdState &sqd, Console &console,
                       std::size_t batches_in_flight = 0);

// What serving works with: the run's registry, scoring, log writer and ladder state.
struct ServeParts {
  BatchRegistry &registry;
  ScoringRun &scoring;
  RewardLogWriter &writer;
  const SqdState &sqd;
  Console &console;
};
// Serves until a stop; returns how serving ended. `logged_rows`: a resumed run's log rows.
// Its batches are answered from the log when they are sent again; the rows go once the
// registry and the repeat cache have what they need of them (a serve run lasts days).
// `ranks`: the benchmark ranks' hellos (the hardware GET /v1/prompts describes).
ServeEnd serve_batches(const CoordinatorOptions &options, const CandidateDefaults &defaults,
                       const RunCapabilities &capabilities, const std::vector<RankInfo> &ranks, ServeParts parts,
                       std::vector<RewardRow> &&logged_rows);

}  // namespace hpcreward
