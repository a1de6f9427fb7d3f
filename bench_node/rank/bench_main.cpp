// hpcreward-bench: a benchmark rank. Says hello to the coordinator (rank 0), then scores
// every task it is sent until it is told to stop (or, with --null-measurement, answers each
// at once without scoring it). Waits back off into sleeps (mpi_channel),
// so an idle rank never spins a core that a timed candidate needs.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>

#include "bench_node/rank/bench_cli.hpp"
#include "bench_node/process/cpu_affinity.hpp"
#include "bench_node/rank/default_checks.hpp"
#include "bench_node/rank/job_abort.hpp"
#include "bench_node/process/environment.hpp"
#ifdef HPCREWARD_HAVE_CUDA
#include "bench_node/gpu/gpu_rank.hpp"
#endif
#include "bench_node/measure/blas_yardstick.hpp"
#include "bench_node/measure/openblas_kernel.hpp"
#include "bench_node/measure/peak_guard.hpp"
#include "bench_node/rank/rank_info.hpp"
#include "bench_node/rank/rank_placement.hpp"
#include "bench_node/rank/scorer.hpp"
#include "bench_node/process/work_dir.hpp"
#include "common/messages_binary.hpp"
#include "common/messages_json.hpp"
#include "common/mpi_channel.hpp"
#include "common/mpi_tags.hpp"
#include "common/number_text.hpp"
#include "common/private_memory.hpp"

namespace hpcreward {
namespace {

[[noreturn]] void abort_job(int rank, const std::string &message) { hpcreward::abort_job(rank, "", message); }

void report_progress(int rank, const BenchTask &task, const Measurement &m) {
  std::fprintf(stderr,
               "[bench %d] %s seq=%lld %s %.3f GFLOPS (compile %.2f s, verify %.2f s, time %.2f s)%s%s\n",
               rank, task.candidate_id.c_str(), static_cast<long long>(task.sequence),
               std::string(to_string(m.status)).c_str(), m.gflops, m.compile_s, m.verify_s,
               m.time_s, m.reason.empty() ? "" : ": ", m.reason.c_str());
}

// A task that does not decode is answered under its sequence (when its header has one) as a
// runtime_error, so the coordinator learns of it instead of waiting for the rank's deadline.
BenchResult malformed_task_result(std::string_view payload, const std::string &error, int rank,
                                  const std::string &host) {
  BenchResult result;
  result.rank = rank;
  result.host = host;
  result.sequence = peek_task_sequence(payload).value_or(0);
  result.measurement = failed_measurement(Status::runtime_error, "malformed task: " + error);
  return result;
}

BenchResult handle_task(std::string_view payload, Scorer &scorer, PeakGuard &guard, CpuYardsticks &yardsticks,
                        int rank, const std::string &host) {
  BenchTask task;
  try {
    task = decode_task(payload);
  } catch (const MessageDecodeError &error) {
    BenchResult result = malformed_task_result(payload, error.what(), rank, host);
    task.sequence = result.sequence;
    task.candidate_id = "(malformed task)";
    report_progress(rank, task, result.measurement);
    return result;
  }
  BenchResult result;
  result.rank = rank;
  result.host = host;
  result.sequence = task.sequence;
  const Yardsticks yardstick = yardsticks.of(task.problem);  // first: the candidate's process is not there yet
  result.measurement = guard.apply(scorer.score(task), task.problem.precision);
  result.measurement.yardsticks = yardstick;
  report_progress(rank, task, result.measurement);
  return result;
}

// --null-measurement: the answer to every task, at once. A failure status with a negative
// reward, so its rows can never pass for measurements or earn a reward; only the coordinator's
// own cost is real in such a run.
BenchResult null_result(std::string_view payload, int rank, const std::string &host) {
  BenchTask task;
  try {
    task = decode_task(payload);  // decoded whole, as a scoring rank would: its cost is part of the real one
  } catch (const MessageDecodeError &error) {
    return malformed_task_result(payload, error.what(), rank, host);
  }
  BenchResult result;
  result.rank = rank;
  result.host = host;
  result.sequence = task.sequence;
  result.measurement.status = Status::runtime_error;
  result.measurement.reason =
      "null measurement: hpcreward-bench --null-measurement answered without compiling or running the candidate "
      "(a coordinator benchmark, not a result)";
  return result;
}

// Answers every task with null_result until the coordinator says stop.
void serve_null_tasks(int rank, const std::string &host) {
  for (;;) {
    const Envelope envelope = mpi_receive(0, MPI_ANY_TAG);
    if (envelope.tag == kTagStop) break;
    if (envelope.tag != kTagTask) continue;
    mpi_send_bytes(encode_result(null_result(envelope.payload, rank, host)), 0, kTagResult);
  }
}

// Scores tasks from the coordinator until it says stop. The Scorer and its checks (which
// remove their private directories) end here.
void serve_tasks(const BenchOptions &options, const PeakGflops &peak, int cpus, int rank, const std::string &host) {
  Scorer scorer(options);
  PeakGuard guard(peak, options.peak_margin, [cpus] { return measure_fma_peak(cpus); });
  CpuYardsticks yardsticks(cpus, "[bench " + std::to_string(rank) + "] ");
  add_default_checks(scorer, options);
  for (;;) {
    const Envelope envelope = mpi_receive(0, MPI_ANY_TAG);
    if (envelope.tag == kTagStop) break;
    if (envelope.tag != kTagTask) {
      std::fprintf(stderr, "[bench %d] ignoring a message with tag %d\n", rank, envelope.tag);
      continue;
    }
    BenchResult result;
    try {
      result = handle_task(envelope.payload, scorer, guard, yardsticks, rank, host);
    } catch (const std::exception &error) {  // the rank survives every candidate
      result.rank = rank;
      result.host = host;
      result.sequence = peek_task_sequence(envelope.payload).value_or(0);
      result.measurement = Measurement{};
      result.measurement.status = Status::runtime_error;
      result.measurement.reason = std::string("internal error: ") + error.what();
    }
    mpi_send_bytes(encode_result(result), 0, kTagResult);
  }
}

int run(int argc, char **argv) {
  // A GPU rank's worker threads never call MPI; only this thread does.
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  BenchCommandLine command_line;
  try {
    command_line = parse_bench_command_line(argc, argv);
  } catch (const std::exception &error) {
    abort_job(rank, std::string(error.what()) + " (see --help)");
  }
  if (rank == 0) abort_job(rank, "rank 0 is the coordinator; start hpcreward-bench on ranks 1..N");
  BenchOptions &options = command_line.options;
#ifndef HPCREWARD_HAVE_CUDA
  if (options.gpu.enabled)
    abort_job(rank, "--gpu: this build has no GPU ranks (configure with the CUDA Toolkit installed, "
                    "HPCREWARD_CUDA=ON)");
#endif
  if (!find_executable(options.cc)) abort_job(rank, "compiler not found: " + options.cc);
  if (options.runner.empty()) options.runner = runner_next_to_executable().string();
  if (!find_executable(options.runner) || options.runner.find('/') == std::string::npos)
    abort_job(rank, "runner not found: " + options.runner + " (give --runner PATH)");
  const bool own_root = options.work_root.empty();
  if (own_root) {
    if (int removed = remove_stale_work_roots(); removed > 0)
      std::fprintf(stderr, "[bench %d] removed %d work directories of ranks that are gone\n", rank, removed);
    options.work_root = default_work_root(rank);
  }
  try {
    ensure_private_directory(options.work_root);
  } catch (const std::exception &error) {
    abort_job(rank, std::string("cannot create the work directory: ") + error.what());
  }

  // Collective over the benchmark ranks: before the hello, so `cores` is the rank's share.
  const Placement placement = place_bench_rank(options.placement, options.gpu.enabled, options.gpu.rank_cores);
  options.pin_threads = placement.exclusive;
  options.threads = placement.cores;
  for (const std::string &notice : placement_notices(placement))
    std::fprintf(stderr, "[bench %d] placement: %s\n", rank, notice.c_str());
#ifdef HPCREWARD_HAVE_CUDA
  if (options.gpu.enabled) {
    const int code = run_gpu_rank(options, placement, rank);  // the scorer removes its directories
    if (own_root && !options.keep_workdir) remove_tree(options.work_root);
    MPI_Finalize();
    return code;
  }
#endif
  RankInfo info = collect_rank_info(rank, options.cc, options.no_avx512);
  info.task_limit_s = task_time_limit_s(options);
  info.core_sharing_hidden = placement.hidden_core_sharing;
  info.blas_warning = openblas_kernel_here().warning();  // the log keeps it with the rank (provenance)
  info.null_measurement = options.null_measurement;
  PeakGflops peak;
  if ((options.peak_margin > 0 || options.time_limit_factor > 0) && !options.null_measurement) {
    const int cpus = static_cast<int>(placement.cpus.size());
    const PeakGflops measured = measure_blas_peak(cpus);
    // Scales run limits: the fastest the hardware computes f64 per core (the higher of
    // OpenBLAS and the FMA units, so a slow OpenBLAS build does not stretch every limit).
    options.reference_gflops_per_core = measured.ceiling(Precision::f64) / std::max(cpus, 1);
    if (options.peak_margin > 0) {
      peak = measured;
      info.peak_gflops_f64 = peak.f64;
      info.peak_gflops_f32 = peak.f32;
    }
  }
  mpi_send_json(nlohmann::json(info), 0, kTagHello);
  std::fprintf(stderr, "[bench %d] ready on %s (pid %ld, task limit %s s, run limits from %.1f GFLOPS per core): "
               "CPUs %s%s, %s, %s, peak %.1f/%.1f GFLOPS (f64/f32), %s\n",
               rank, info.host.c_str(), static_cast<long>(getpid()), number_text(info.task_limit_s).c_str(),
               options.reference_gflops_per_core,
               describe_cpus(placement.cpus).c_str(),
               placement.changed ? " (this rank's share of the node)"
               : placement.exclusive ? "" : " (shared with other ranks: timings will interfere)",
               info.compiler_version.c_str(), info.blas_version.c_str(), peak.f64, peak.f32,
               info.avx512              ? "AVX-512"
               : options.no_avx512      ? "AVX-512 not reported (--no-avx512)"
                                        : "no AVX-512");
  if (!info.blas_warning.empty()) std::fprintf(stderr, "[bench %d] WARNING: %s\n", rank, info.blas_warning.c_str());

  if (options.null_measurement) {
    std::fprintf(stderr, "[bench %d] NULL MEASUREMENT: every task is answered at once as runtime_error, nothing is "
                         "compiled, run or timed (--null-measurement: for measuring the coordinator only)\n", rank);
    serve_null_tasks(rank, info.host);
  } else {
    serve_tasks(options, peak, static_cast<int>(placement.cpus.size()), rank, info.host);  // the checks remove their directories as it ends
  }
  if (own_root && !options.keep_workdir) remove_tree(options.work_root);
  MPI_Finalize();
  return 0;
}

}  // namespace
}  // namespace hpcreward

int main(int argc, char **argv) {
  // srun forwards SIGUSR1 (Slurm's time-limit warning, meant for the coordinator, which stops
  // the run for a requeue) and SIGUSR2 (the job scripts' "the trainer is done", also the
  // coordinator's) to every task; their default action would kill this rank mid-task.
  // Before MPI_Init, so no window is left. Children keep them ignored (child_process.cpp).
  std::signal(SIGUSR1, SIG_IGN);
  std::signal(SIGUSR2, SIG_IGN);
  // Before MPI_Init: it turns off a transport MPI_Init would choose.
  if (!hpcreward::make_rank_memory_private()) std::perror("hpcreward-bench: cannot make its memory private");
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {  // without MPI, so it works outside mpirun
      std::cout << hpcreward::bench_usage();
      return 0;
    }
    if (arg == "--default-cpu-ranks") {  // for jobs/local.sh, before mpirun: N GPU ranks beside them
      const int gpu_ranks = i + 1 < argc ? std::atoi(argv[i + 1]) : 0;
      const hpcreward::DefaultRanks ranks = hpcreward::default_ranks_here(gpu_ranks);
      std::cout << ranks.cpu_ranks << "\n";
      std::cerr << ranks.text() << "\n";
      return 0;
    }
  }
  return hpcreward::run(argc, argv);
}
