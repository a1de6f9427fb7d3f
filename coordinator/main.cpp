// hpcreward-coordinator: rank 0. Reads candidates, scores them on the benchmark ranks
// (every other rank of the MPI world runs hpcreward-bench) and writes OUT/rewards.h5.
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "coordinator/candidate_file.hpp"
#include "coordinator/log_sink.hpp"
#include "coordinator/mpi_transport.hpp"
#include "coordinator/options.hpp"
#include "coordinator/provenance_builder.hpp"
#include "coordinator/scoring_run.hpp"
#include "results/summary.hpp"

namespace hpcreward {
namespace {

void print_progress(const RewardRow &row, std::size_t done, std::size_t total) {
  std::printf("[%zu/%zu] %-24s %-8s %-6s %-20s reward %9.2f", done, total, row.candidate_id.c_str(),
              row.problem.c_str(), row.stage.c_str(), row.status.c_str(), row.reward);
  if (row.status == "ok")
    std::printf("  %.2f GFLOPS (median %.3f ms, cv %.3f, rank %d)", row.gflops, row.median_s * 1e3,
                row.cv, row.rank);
  else
    std::printf("  %s", row.reason.substr(0, 100).c_str());
  std::printf("\n");
  std::fflush(stdout);
}

int run(const CoordinatorOptions &options, int world_size) {
  if (world_size < 2)
    throw std::runtime_error("no benchmark ranks: start hpcreward-bench beside the coordinator "
                             "(jobs/local.sh does this)");
  std::filesystem::create_directories(options.out);
  std::ofstream(options.out / "coordinator.pid") << getpid() << "\n";

  CandidateDefaults defaults{options.problem, options.stage, options.batch_id, options.max_source_bytes};
  std::vector<PreparedCandidate> candidates = read_candidate_file(options.candidates, defaults);
  std::vector<RankInfo> ranks =
      gather_rank_info(world_size, std::chrono::seconds(options.rank_start_timeout_s));

  const std::filesystem::path log_path = options.out / "rewards.h5";
  RewardLogWriter writer(log_path, build_provenance(options, ranks));
  LogSink sink(writer);
  MpiTransport transport;
  ScoringContext context;
  for (const RankInfo &info : ranks) context.ranks.push_back(info.rank);
  context.host = this_host();
  context.seed = options.seed;

  std::printf("hpcreward: scoring %zu candidates on %zu benchmark ranks -> %s\n", candidates.size(),
              ranks.size(), log_path.c_str());
  ScoringRun scoring(transport, sink, options.rewards, context, print_progress);
  std::vector<RewardRow> rows = scoring.score(std::move(candidates));
  stop_bench_ranks(world_size);
  std::printf("\n%s", format_summary(rows).c_str());
  std::printf("reward log: %s (%zu rows)\n", log_path.c_str(), writer.rows());
  return 0;
}

}  // namespace
}  // namespace hpcreward

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  int exit_code = 0;
  if (rank != 0) {
    std::fprintf(stderr, "hpcreward-coordinator must be rank 0 (it is rank %d)\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  try {
    auto options = hpcreward::parse_coordinator_options(argc, argv);
    if (options) exit_code = hpcreward::run(*options, world_size);
  } catch (const std::invalid_argument &error) {
    std::fprintf(stderr, "hpcreward-coordinator: %s\n", error.what());
    exit_code = 2;
  } catch (const std::exception &error) {
    std::fprintf(stderr, "hpcreward-coordinator: error: %s\n", error.what());
    exit_code = 1;
  }
  // Benchmark ranks wait for work until told to stop, whatever happened here.
  hpcreward::stop_bench_ranks(world_size);
  MPI_Finalize();
  return exit_code;
}
