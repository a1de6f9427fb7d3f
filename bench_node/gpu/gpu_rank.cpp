#include "bench_node/gpu/gpu_rank.hpp"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>

#include "bench_node/rank/bench_cli.hpp"
#include "bench_node/rank/job_abort.hpp"
#include "bench_node/process/cpu_affinity.hpp"
#include "bench_node/process/environment.hpp"
#include "bench_node/gpu/gpu_child.hpp"
#include "bench_node/gpu/yardstick_queue.hpp"
#include "bench_node/cuda/cuda_checks.hpp"
#include "bench_node/process/child_process.hpp"
#include "bench_node/gpu/gpu_task_pipeline.hpp"
#include "bench_node/process/monotonic_clock.hpp"
#include "bench_node/rank/rank_info.hpp"
#include "bench_node/cuda/cute_headers.hpp"
#include "bench_node/rank/scorer.hpp"
#include "common/messages_binary.hpp"
#include "common/messages_json.hpp"
#include "common/mpi_channel.hpp"
#include "common/mpi_tags.hpp"
#include "common/number_text.hpp"

namespace hpcreward {

namespace {

[[noreturn]] void abort_job(int rank, const std::string &message) { hpcreward::abort_job(rank, " (GPU)", message); }

// Ends that may leave the GPU in a bad state (a deadline, a signal, a CUDA error, a write out
// of bounds) get the canary; telling them apart by their reasons would be a second, weaker
// classification next to classify.cpp's, and a canary costs well under a second.
bool may_have_hurt_the_gpu(const Measurement &measurement) {
  return measurement.status == Status::timeout || measurement.status == Status::runtime_error;
}

// "Cuda compilation tools, release 13.0, V13.0.88" from nvcc --version.
std::string nvcc_version(const std::string &nvcc) {
  ChildSpec spec;
  spec.program = find_executable(nvcc).value_or(nvcc);
  spec.arguments = {"--version"};
  spec.environment = inherited_environment();
  spec.deadline_s = 30;
  const ChildOutcome outcome = run_child(spec);
  const std::size_t at = outcome.output.find("release");
  if (at == std::string::npos) return first_line(outcome.output);
  const std::size_t line_start = outcome.output.rfind('\n', at);
  return first_line(outcome.output.substr(line_start == std::string::npos ? 0 : line_start + 1));
}

void report_progress(int rank, const std::string &candidate_id, std::int64_t sequence, const Measurement &m) {
  std::fprintf(stderr,
               "[gpu %d] %s seq=%lld %s %.1f GFLOPS (compile %.2f s, verify %.2f s, time %.2f s)%s%s\n", rank,
               candidate_id.c_str(), static_cast<long long>(sequence),
               std::string(to_string(m.status)).c_str(), m.gflops, m.compile_s, m.verify_s, m.time_s,
               m.reason.empty() ? "" : ": ", m.reason.c_str());
}

}  // namespace

int run_gpu_rank(BenchOptions options, const Placement &placement, int rank) {
  GpuRankOptions &gpu = options.gpu;
  resolve_gpu_parallelism(gpu, placement.cpus.empty() ? std::thread::hardware_concurrency() : placement.cpus.size());
  if (gpu.runner.empty()) gpu.runner = runner_next_to_executable("hpcreward-gpu-runner").string();
  if (!find_executable(gpu.runner) || gpu.runner.find('/') == std::string::npos)
    abort_job(rank, "GPU runner not found: " + gpu.runner + " (build with the CUDA Toolkit, or give --gpu-runner PATH)");
  if (gpu.nvcc.empty()) gpu.nvcc = default_nvcc_path();
  if (!find_executable(gpu.nvcc)) abort_job(rank, "nvcc not found: '" + gpu.nvcc + "' (give --nvcc PATH)");
  if (gpu.cuobjdump.empty()) gpu.cuobjdump = default_cuobjdump_path();
  if (!find_executable(gpu.cuobjdump))
    abort_job(rank, "cuobjdump not found: '" + gpu.cuobjdump + "' (give --cuobjdump PATH; jobs/install-deps.sh installs it)");
  if (gpu.cute_include.empty()) gpu.cute_include = default_cute_include();
  if (gpu.cute_include == "none") gpu.cute_include.clear();
  const std::string cute = cute_version(gpu.cute_include);
  if (!gpu.cute_include.empty() && cute.empty())
    abort_job(rank, "--cute-include " + gpu.cute_include + " holds no CuTe headers (cute/tensor.hpp and "
                    "cutlass/version.h); give the include directory of the nvidia-cutlass release, or none");

  GpuChildOptions child;
  child.runner = gpu.runner;
  try {
    const int index = gpu.device == "auto" ? placement.kind_index : std::stoi(gpu.device);
    child.visible_device = visible_device_for(index, std::getenv("CUDA_VISIBLE_DEVICES"));
  } catch (const std::exception &error) {
    abort_job(rank, error.what());
  }
  child.timeout_s = gpu.run_timeout_s;
  child.timing = options.timing;
  child.timing.warmup_s = gpu.warmup_s;
  // Five calls of a short kernel span tens of ms, and its scorings spread with the GPU's clock
  // state (docs/reports/gpu-harness.md, "a floor on the timed calls").
  child.timing.min_time_s = std::min(gpu.min_time_s, child.timing.time_cap_s);
  child.ring_bytes = gpu.ring_mb << 20;
  child.host_memory_bytes = gpu.host_memory_mb << 20;
  child.serving_measurers = gpu.serving_measurers;
  child.connections = gpu.connections;

  GpuProbe probe;
  try {
    probe = probe_gpu(child, gpu.ceiling_size);
  } catch (const std::exception &error) {
    abort_job(rank, "cannot use GPU " + child.visible_device + ": " + std::string(error.what()) +
                        " (check nvidia-smi on " + host_name() + ", the driver, and CUDA_VISIBLE_DEVICES)");
  }
  child.l2_bytes = probe.gpu.l2_bytes;
  if (gpu.arch.empty()) gpu.arch = probe.gpu.arch;
  probe.gpu.ordinal = std::atoi(child.visible_device.c_str());
  probe.gpu.connections = gpu.connections;

  RankInfo info = collect_rank_info(rank, gpu.nvcc, true);
  info.kind = "gpu";
  info.slots = gpu.slots;
  info.task_limit_s = task_time_limit_s(options);
  info.compiler_version = nvcc_version(gpu.nvcc);
  info.blas_version = "cuBLAS (CUDA " + probe.gpu.runtime_version + ")";
  info.peak_gflops_f64 = probe.ceilings.f64;
  info.peak_gflops_f32 = probe.ceilings.f32;
  info.peak_gflops_f16 = probe.ceilings.f16;
  info.peak_gflops_bf16 = probe.ceilings.bf16;
  info.sgemm_fp32_gflops = probe.ceilings.f32_fp32;
  info.gpu = probe.gpu;
  info.cute = cute;
  mpi_send_json(nlohmann::json(info), 0, kTagHello);
  const std::string device = "cuda:" + child.visible_device + " " + probe.gpu.name;
  std::fprintf(stderr,
               "[gpu %d] ready on %s (pid %ld, task limit %s s): %s (%s, cc %s, %s, %.0f GiB, L2 %.0f MiB), CPUs %s, ceilings %.0f/%.0f/%.0f/%.0f "
               "GFLOPS (cuBLAS f64/f32/f16/bf16 at %d^3), %d work queues, %d compile workers, %d slots, CuTe %s\n",
               rank, info.host.c_str(), static_cast<long>(getpid()), number_text(info.task_limit_s).c_str(), device.c_str(), probe.gpu.uuid.c_str(), probe.gpu.compute_capability.c_str(),
               gpu.arch.c_str(), probe.gpu.memory_bytes / 1073741824.0, probe.gpu.l2_bytes / 1048576.0,
               describe_cpus(placement.cpus).c_str(), probe.ceilings.f64, probe.ceilings.f32, probe.ceilings.f16,
               probe.ceilings.bf16, gpu.ceiling_size, gpu.connections, gpu.compile_workers, gpu.slots,
               cute.empty() ? "none (stages that allow it are refused)" : cute.c_str());

  CudaCheckOptions checks;
  checks.compiler.nvcc = gpu.nvcc;
  checks.compiler.arch = gpu.arch;
  checks.compiler.timeout_s = gpu.compile_timeout_s;
  checks.compiler.memory_bytes = gpu.compile_memory_limit_mb << 20;
  checks.compiler.cute_include = cute.empty() ? "" : gpu.cute_include;
  checks.cuobjdump = gpu.cuobjdump;
  checks.work_root = options.work_root;
  std::unique_ptr<Scorer> scorer_holder;
  try {
    scorer_holder = std::make_unique<Scorer>(options, make_cuda_compiler(checks), std::make_unique<GpuSandboxedRunner>(child));
    add_cuda_checks(*scorer_holder, checks);
  } catch (const std::exception &error) {
    abort_job(rank, std::string("cannot set up the CUDA checks: ") + error.what());
  }
  Scorer &scorer = *scorer_holder;
  const double margin = options.peak_margin;
  auto finish = [&](const BenchTask &task, Measurement measurement) {
    BenchResult result;
    result.sequence = task.sequence;
    result.rank = rank;
    result.host = info.host;
    result.device = device;
    result.measurement = std::move(measurement);
    return result;
  };
  // What the peak guard and the progress line need of a task, from its submission to its result:
  // both run on this thread once the result has its problem's yardsticks (the guard's limit is
  // the larger of the ceiling and the libraries at the problem's shape).
  struct Submitted {
    std::string candidate_id;
    Precision precision;
    Accumulation accumulation;
  };
  std::map<std::int64_t, Submitted> submitted;
  auto guard_and_report = [&](BenchResult &result, const Yardsticks &at_shape) {
    const auto found = submitted.find(result.sequence);
    if (found == submitted.end()) return;
    result.measurement = apply_gpu_peak_guard(std::move(result.measurement), found->second.precision, probe.ceilings,
                                              margin, gpu.ceiling_size, found->second.accumulation, at_shape);
    report_progress(rank, found->second.candidate_id, result.sequence, result.measurement);
    submitted.erase(found);
  };
  auto after_run = [&](const BenchTask &task, const Measurement &measurement) {
    if (!may_have_hurt_the_gpu(measurement)) return true;
    for (int attempt = 1; attempt <= 3; ++attempt) {
      const std::string canary = check_gpu(child);
      if (canary.empty()) {
        std::fprintf(stderr, "[gpu %d] GPU checked after %s (%s): canary ok\n", rank, task.candidate_id.c_str(),
                     std::string(to_string(measurement.status)).c_str());
        return true;
      }
      std::fprintf(stderr, "[gpu %d] canary %d of 3 failed after %s: %s\n", rank, attempt, task.candidate_id.c_str(),
                   canary.c_str());
      std::this_thread::sleep_for(std::chrono::seconds(2 * attempt));
    }
    return false;
  };

  const double start = monotonic_seconds();
  {
    GpuSandboxedRunner staged_runner(child);
    GpuTaskPipeline::StartRun start_run;
    if (gpu.prepare_ahead)
      start_run = [&](PreparedTask &prepared) {
        return staged_runner.start({prepared.object, prepared.directory->path(), &prepared.task});
      };
    const SetupTurns turns(setup_turns_wanted(gpu.setup_turns, placement.kind_count) && gpu.prepare_ahead
                               ? default_setup_turns_name()
                               : std::string(),
                           "[gpu " + std::to_string(rank) + "] ");
    std::fprintf(stderr, "[gpu %d] set-up turns %s (--gpu-setup-turns %s, %d GPU rank(s) on this node)\n", rank,
                 turns.active() ? "on" : "off", gpu.setup_turns.c_str(), placement.kind_count);
    GpuTaskPipeline pipeline(scorer, gpu.compile_workers, finish, after_run, start_run, &turns);
    // Each problem's yardsticks, measured at its first task while the GPU is idle, and again
    // once they are old: at an idle moment, or by holding a task once very old (yardstick_queue.hpp).
    gpu::YardstickQueue queue(
        [&](const Problem &problem, bool again) {
          const double began = monotonic_seconds();
          const GpuYardsticks measured = measure_gpu_yardsticks(child, problem);
          std::fprintf(stderr,
                       "[gpu %d] yardsticks of %s (%s, %s)%s: cuBLAS %.1f GFLOPS (median of %d calls, interquartile "
                       "range %.1f%%), cuBLASLt %.1f GFLOPS (%d calls, %.1f%%), measured in %.1f s\n",
                       rank, problem.id.c_str(), to_string(problem.nominal).c_str(), to_string(problem.layout).c_str(),
                       again ? " again" : "", measured.cublas.gflops, measured.cublas.calls, 100 * measured.cublas.iqr,
                       measured.cublaslt.gflops, measured.cublaslt.calls, 100 * measured.cublaslt.iqr,
                       monotonic_seconds() - began);
          return measured.figures();
        },
        [&](const Problem &problem, const std::string &why) {
          std::fprintf(stderr, "[gpu %d] no yardsticks for %s: %s\n", rank, problem.id.c_str(), why.c_str());
        });
    auto submit_ready = [&] {
      for (BenchTask &task : queue.take_ready()) {
        submitted[task.sequence] = {task.candidate_id, task.problem.precision, task.problem.accumulation};
        pipeline.submit(std::move(task));
      }
    };
    bool stopping = false;
    // One message from the coordinator within `timeout`, if one comes: false when none did.
    const auto receive = [&](std::chrono::milliseconds timeout) {
      auto envelope = mpi_receive(0, MPI_ANY_TAG, timeout);
      if (!envelope) return false;
      if (envelope->tag == kTagStop) {
        stopping = true;
      } else if (envelope->tag == kTagTask) {
        try {
          queue.arrive(decode_task(envelope->payload));
          submit_ready();
        } catch (const std::exception &error) {  // a task that does not decode
          BenchResult result;
          result.sequence = peek_task_sequence(envelope->payload).value_or(0);
          result.rank = rank;
          result.host = info.host;
          result.device = device;
          result.measurement = failed_measurement(Status::runtime_error, std::string("malformed task: ") + error.what());
          mpi_send_bytes(encode_result(result), 0, kTagResult);
        }
      }
      return true;
    };
    while (!stopping || !pipeline.idle() || queue.waiting()) {
      if (queue.waiting() && pipeline.idle()) {
        // The tasks sent with the one that waits join it first, so that one drained pipeline
        // measures every problem due among them (a drain costs the GPU about a set-up).
        while (!stopping && receive(std::chrono::milliseconds(5))) {
        }
        queue.measure_waiting();
      } else if (!stopping && pipeline.idle()) {
        queue.refresh_idle();
      }
      submit_ready();
      if (!stopping)
        receive(std::chrono::milliseconds(2));
      else
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      for (BenchResult &result : pipeline.take_results()) {
        guard_and_report(result, queue.stamp(result));
        mpi_send_bytes(encode_result(result), 0, kTagResult);
      }
      if (pipeline.gpu_lost())
        abort_job(rank, "GPU " + device + " failed its canary check three times; the job stops here. Check the GPU "
                        "(nvidia-smi), then resume the run with --resume: every logged candidate is kept");
    }
    const double wall = monotonic_seconds() - start;
    std::fprintf(stderr, "[gpu %d] done: the GPU ran candidates %.1f s of %.1f s (%.0f%%)\n", rank,
                 pipeline.gpu_busy_s(), wall, wall > 0 ? 100 * pipeline.gpu_busy_s() / wall : 0.0);
    if (const GpuTaskPipeline::PhaseSummary phases = pipeline.phase_summary(); !phases.medians.empty()) {
      std::fprintf(stderr, "[gpu %d] per candidate, medians: %s\n", rank, phases.medians.c_str());
      std::fprintf(stderr, "[gpu %d] per candidate, means: %s\n", rank, phases.means.c_str());
      std::fprintf(stderr, "[gpu %d] per candidate, 90th percentiles: %s\n", rank, phases.p90s.c_str());
    }
    if (const int again = pipeline.setups_made_again(); again > 0)
      std::fprintf(stderr,
                   "[gpu %d] %d run(s) whose set-up failed beside another candidate were set up again once it "
                   "had ended\n",
                   rank, again);
  }
  return 0;
}

}  // namespace hpcreward
