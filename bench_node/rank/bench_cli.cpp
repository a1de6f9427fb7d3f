#include "bench_node/rank/bench_cli.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include <boost/program_options.hpp>

#include "common/number_text.hpp"

namespace hpcreward {

namespace po = boost::program_options;

namespace {

po::options_description bench_options(BenchOptions &o) {
  po::options_description options("Options");
  options.add_options()
      ("help,h", "print this help and exit")
      ("cc", po::value(&o.cc)->default_value(o.cc),
       "C compiler, a name on PATH or a path; run as CC -std=gnu11 -shared -fPIC <stage flags> "
       "-Wl,-z,defs -o cand.so cand.c -lm")
      ("workdir", po::value<std::string>(),
       "work root; every candidate gets a private directory in it, removed when it is scored "
       "(default: $TMPDIR/hpcreward-bench-<rank>-<pid>, removed at exit)")
      ("runner", po::value(&o.runner),
       "the hpcreward-runner executable (default: next to this executable)")
      ("compile-timeout", po::value(&o.compile_timeout_s)->default_value(o.compile_timeout_s, number_text(o.compile_timeout_s)),
       "seconds of wall clock for the compiler; then its process group is killed (compile_error)")
      ("run-timeout", po::value(&o.run_timeout_s)->default_value(o.run_timeout_s, number_text(o.run_timeout_s)),
       "most seconds of wall clock for verifying and timing one candidate; then its process "
       "group is killed (timeout). Each run's own limit scales with its problem, up to this: "
       "see --time-limit-factor")
      ("time-limit-factor", po::value(&o.time_limit_factor)->default_value(o.time_limit_factor, number_text(o.time_limit_factor)),
       "a run's wall-clock limit is 1 s (start) + --warmup-s + --time-cap-s + (this + 1) x the "
       "time of the calls the harness makes outside its time-bounded loops (2 full checks per "
       "shape, 2 calls past the loops' bounds) at the rank's per-core f64 peak (the higher of "
       "OpenBLAS and the FMA units, measured at start); then at least --time-limit-floor-s and "
       "at most --run-timeout. Raise it if honest slow code times out. 0: every run gets "
       "--run-timeout")
      ("time-limit-floor-s", po::value(&o.time_limit_floor_s)->default_value(o.time_limit_floor_s, number_text(o.time_limit_floor_s)),
       "the least wall-clock limit of a run, seconds")
      ("memory-limit-mb", po::value(&o.memory_limit_mb)->default_value(o.memory_limit_mb),
       "address-space limit (RLIMIT_AS) of the candidate's process, MiB")
      ("warmup-s", po::value(&o.timing.warmup_s)->default_value(o.timing.warmup_s, number_text(o.timing.warmup_s)),
       "most seconds of untimed (but checked) warm-up calls, beyond the call that crosses it; "
       "the warm-up ends earlier once call times settle (--warmup-calls); GPU ranks: --gpu-warmup-s")
      ("warmup-min-s", po::value(&o.timing.warmup_min_s)->default_value(o.timing.warmup_min_s, number_text(o.timing.warmup_min_s)),
       "least seconds of warm-up before settled call times may end it")
      ("warmup-calls", po::value(&o.timing.warmup_calls)->default_value(o.timing.warmup_calls),
       "the warm-up ends once this many consecutive calls (and at least --warmup-min-s) agree "
       "within --warmup-settle")
      ("warmup-settle", po::value(&o.timing.warmup_settle)->default_value(o.timing.warmup_settle, number_text(o.timing.warmup_settle)),
       "those calls agree when (slowest - fastest) / fastest is at most this; 0: always warm "
       "up for --warmup-s")
      ("min-reps", po::value(&o.timing.min_reps)->default_value(o.timing.min_reps),
       "timed calls before the relative standard error may stop timing")
      ("min-time-s", po::value(&o.timing.min_time_s)->default_value(o.timing.min_time_s, number_text(o.timing.min_time_s)),
       "least seconds of timed calls before the relative standard error may stop timing "
       "(GPU ranks: --gpu-min-time-s)")
      ("max-reps", po::value(&o.timing.max_reps)->default_value(o.timing.max_reps),
       "most timed calls")
      ("target-rse", po::value(&o.timing.target_rse)->default_value(o.timing.target_rse, number_text(o.timing.target_rse)),
       "stop timing once the relative standard error of the median is below this")
      ("time-cap-s", po::value(&o.timing.time_cap_s)->default_value(o.timing.time_cap_s, number_text(o.timing.time_cap_s)),
       "stop timing after this many seconds of timed calls")
      ("placement", po::value<std::string>()->default_value("auto"),
       "auto: when the benchmark ranks of a node were given CPUs on common physical cores "
       "(mpirun --bind-to none), each rank takes a disjoint share of whole cores (SMT siblings "
       "included, read with hwloc), so timed runs never share cores; none: keep the CPUs the "
       "launcher gave")
      ("peak-margin", po::value(&o.peak_margin)->default_value(o.peak_margin, number_text(o.peak_margin)),
       "an ok result above this many times the rank's measured OpenBLAS peak (measured at "
       "start) is forbidden; 0 turns the check off")
      ("no-avx512", po::bool_switch(&o.no_avx512),
       "treat this rank as lacking AVX-512 (run the ladder as on a host without it)")
      ("keep-workdir", po::bool_switch(&o.keep_workdir),
       "keep every candidate's directory (source, object) for debugging")
      ("null-measurement", po::bool_switch(&o.null_measurement),
       "measure the coordinator only: answer every task at once, without compiling or running "
       "it, as runtime_error \"null measurement\" (the runtime_error penalty; never a real result). "
       "The coordinator announces null ranks at start and in the log's provenance (hosts)");
  po::options_description gpu("GPU rank (CUDA problems; bench_node/gpu/README.md)");
  GpuRankOptions &g = o.gpu;
  gpu.add_options()
      ("gpu", po::bool_switch(&g.enabled), "be a GPU rank: score CUDA problems on one GPU")
      ("gpu-device", po::value(&g.device)->default_value(g.device),
       "auto: this rank's index among the GPU ranks of its node, counted within "
       "CUDA_VISIBLE_DEVICES when set; or a device number")
      ("nvcc", po::value(&g.nvcc), "the CUDA compiler (default: the one this build found)")
      ("cuobjdump", po::value(&g.cuobjdump), "cuobjdump, for SASS technique detection (default: the one this build found)")
      ("gpu-runner", po::value(&g.runner), "the hpcreward-gpu-runner executable (default: next to this executable)")
      ("gpu-arch", po::value(&g.arch), "nvcc target such as sm_90a (default: the probed GPU's)")
      ("cute-include", po::value(&g.cute_include),
       "the directory holding cute/ and cutlass/ of the pinned nvidia-cutlass release, for stages that "
       "allow CuTe (default: where this build found them; none: without)")
      ("gpu-compile-timeout", po::value(&g.compile_timeout_s)->default_value(g.compile_timeout_s, number_text(g.compile_timeout_s)),
       "seconds of wall clock for nvcc")
      ("gpu-run-timeout", po::value(&g.run_timeout_s)->default_value(g.run_timeout_s, number_text(g.run_timeout_s)),
       "seconds of wall clock for verifying and timing one CUDA candidate (timeout)")
      ("gpu-ring-mb", po::value(&g.ring_mb)->default_value(g.ring_mb),
       "device memory for the timing ring's buffer sets, MiB (2 to 8 sets)")
      ("gpu-host-memory-mb", po::value(&g.host_memory_mb)->default_value(g.host_memory_mb),
       "host memory each CUDA candidate's child may take (heap and private mappings: "
       "RLIMIT_DATA), MiB; more is runtime_error \"out of host memory\"")
      ("gpu-rank-cores", po::value(&g.rank_cores)->default_value(g.rank_cores),
       "physical cores this GPU rank takes when the node's benchmark ranks split their CPUs (mpirun "
       "--bind-to none, as jobs/local.sh starts them), for its compile workers and measurers; the CPU "
       "ranks share the rest evenly, each keeping one at least. 0: 8, at most half the node's cores "
       "among its GPU ranks, never less than an even share")
      ("compile-workers", po::value(&g.compile_workers)->default_value(g.compile_workers),
       "threads compiling and checking the next candidates while the GPU times one; 0: one per CPU the "
       "rank is placed on, less two, at least 2")
      ("gpu-slots", po::value(&g.slots)->default_value(g.slots),
       "tasks the coordinator may hand this rank at once; 0: --compile-workers + 2")
      ("ceiling-size", po::value(&g.ceiling_size)->default_value(g.ceiling_size),
       "cuBLAS at this size^3 sets the GPU's ceilings for the peak guard")
      ("gpu-prepare-ahead", po::value(&g.prepare_ahead)->default_value(g.prepare_ahead),
       "set the next CUDA candidate's processes and contexts up while the current one verifies "
       "(1), or only once it has ended (0)")
      ("gpu-serving-measurers", po::value(&g.serving_measurers)->default_value(g.serving_measurers),
       "with --gpu-prepare-ahead: measurers serve one CUDA candidate after another, keeping their CUDA "
       "context, cuBLAS and the checks' GPU code (1), or one measurer per candidate (0)")
      ("gpu-setup-turns", po::value(&g.setup_turns)->default_value(g.setup_turns),
       "the GPU ranks of a node take turns creating a candidate's CUDA contexts (1): made at once on two "
       "GPUs they slow each other, and the set-up is on each rank's critical path; 0: each at once (with "
       "four GPU ranks the turns themselves became the bound); auto: 1 while the node has at most two "
       "GPU ranks, 0 with more")
      ("gpu-connections", po::value(&g.connections)->default_value(g.connections),
       "CUDA_DEVICE_MAX_CONNECTIONS (1 to 32) of every process the rank starts on the GPU: the work "
       "queues a candidate's streams share. Fewer make each candidate's executor context quicker to "
       "create and tear down (on an H200: 4 queues 94 ms and 48 ms, CUDA's 8 159 ms and 79 ms); a "
       "candidate with more streams than queues may find work on them waiting on each other")
      ("gpu-warmup-s", po::value(&g.warmup_s)->default_value(g.warmup_s, number_text(g.warmup_s)),
       "a GPU run's most warm-up, in place of --warmup-s: checked calls until they settle "
       "(--warmup-calls, --warmup-settle), once the next candidate is set up, or this long")
      ("gpu-min-time-s", po::value(&g.min_time_s)->default_value(g.min_time_s, number_text(g.min_time_s)),
       "a GPU run's least time of timed calls, in place of --min-time-s (at most --time-cap-s): a short "
       "kernel's median then spans as much of the GPU's clock state as a long one's");
  options.add(gpu);
  return options;
}

void require(bool condition, const std::string &message) {
  if (!condition) throw std::invalid_argument(message);
}

}  // namespace

void resolve_gpu_parallelism(GpuRankOptions &gpu, std::size_t rank_cpus) {
  if (gpu.compile_workers == 0)
    gpu.compile_workers = std::max(2, static_cast<int>(std::min<std::size_t>(rank_cpus, 66)) - 2);
  if (gpu.slots == 0) gpu.slots = std::min(64, gpu.compile_workers + 2);
}

BenchCommandLine parse_bench_command_line(int argc, const char *const *argv) {
  BenchCommandLine command_line;
  BenchOptions &o = command_line.options;
  po::variables_map values;
  po::store(po::parse_command_line(argc, argv, bench_options(o)), values);
  po::notify(values);
  command_line.help = values.count("help") > 0;
  if (values.count("workdir")) o.work_root = values["workdir"].as<std::string>();
  const std::string placement = values["placement"].as<std::string>();
  require(placement == "auto" || placement == "none", "--placement must be auto or none");
  o.placement = placement == "auto";
  require(!o.cc.empty(), "--cc must name a compiler");
  require(o.gpu.rank_cores >= 0, "--gpu-rank-cores must be 0 (the default share) or more");
  require(o.gpu.warmup_s >= 0, "--gpu-warmup-s must not be negative");
  require(o.gpu.min_time_s >= 0, "--gpu-min-time-s must not be negative");
  require(o.gpu.connections >= 1 && o.gpu.connections <= 32, "--gpu-connections must be 1 to 32 (CUDA's range)");
  require(o.gpu.setup_turns == "auto" || o.gpu.setup_turns == "1" || o.gpu.setup_turns == "0",
          "--gpu-setup-turns must be auto, 1 or 0, not '" + o.gpu.setup_turns + "'");
  require(o.gpu.compile_workers >= 0, "--compile-workers must be 0 (one per CPU of the rank, less two) or more");
  require(o.gpu.slots >= 0 && o.gpu.slots <= 64, "--gpu-slots must be 0 (automatic) to 64");
  require(o.gpu.device == "auto" || (!o.gpu.device.empty() &&
                                     o.gpu.device.find_first_not_of("0123456789") == std::string::npos),
          "--gpu-device must be auto or a device number, not '" + o.gpu.device + "'");
  require(o.compile_timeout_s > 0, "--compile-timeout must be positive");
  require(o.run_timeout_s > 0, "--run-timeout must be positive");
  require(o.peak_margin == 0 || o.peak_margin >= 1, "--peak-margin must be 0 (off) or at least 1");
  require(o.memory_limit_mb >= 64, "--memory-limit-mb must be at least 64");
  // A CUDA context and a cuBLAS handle alone take about 300 MiB of it.
  require(o.gpu.host_memory_mb >= 1024, "--gpu-host-memory-mb must be at least 1024");
  require(o.timing.warmup_s >= 0, "--warmup-s must not be negative");
  require(o.timing.warmup_min_s >= 0, "--warmup-min-s must not be negative");
  require(o.timing.warmup_calls >= 1 && o.timing.warmup_calls <= 1000, "--warmup-calls must be 1 to 1000");
  require(o.timing.warmup_settle >= 0, "--warmup-settle must not be negative (0: warm up for --warmup-s)");
  require(o.time_limit_factor == 0 || o.time_limit_factor >= 10,
          "--time-limit-factor must be 0 (always --run-timeout) or at least 10");
  require(o.time_limit_floor_s > 0, "--time-limit-floor-s must be positive");
  require(o.timing.min_reps >= 1, "--min-reps must be at least 1");
  require(o.timing.max_reps >= o.timing.min_reps, "--max-reps must be at least --min-reps");
  require(o.timing.target_rse > 0, "--target-rse must be positive");
  require(o.timing.min_time_s >= 0 && o.timing.min_time_s <= o.timing.time_cap_s,
          "--min-time-s must lie between 0 and --time-cap-s");
  require(o.timing.time_cap_s > 0, "--time-cap-s must be positive");
  require(!(o.null_measurement && o.gpu.enabled), "--null-measurement stands in for a CPU rank; drop --gpu");
  return command_line;
}

std::string bench_usage() {
  BenchOptions defaults;
  std::ostringstream text;
  text << "Usage: mpirun ... hpcreward-bench [options]\n\n"
          "A benchmark rank of hpcreward (any rank but 0, which runs the coordinator). It sends\n"
          "the coordinator a hello (host, cores, compiler, BLAS, AVX-512), then compiles,\n"
          "checks, verifies and times every candidate it is sent, each in a sandboxed child\n"
          "process, and answers with the measurement, until it is told to stop.\n\n"
          "  hpcreward-bench --default-cpu-ranks G   (without mpirun) prints how many CPU ranks\n"
          "  give each a physical core of this host beside G GPU ranks with their default cores,\n"
          "  and on stderr what that rests on; jobs/local.sh starts that many without --np.\n\n"
       << bench_options(defaults);
  return text.str();
}

double task_time_limit_s(const BenchOptions &options) {
  if (options.gpu.enabled) return options.gpu.compile_timeout_s + options.gpu.run_timeout_s;
  return options.compile_timeout_s + options.run_timeout_s + kTaskCheckAllowanceS;
}

std::filesystem::path runner_next_to_executable(const std::string &name) {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return name;
  return self.parent_path() / name;
}

}  // namespace hpcreward
