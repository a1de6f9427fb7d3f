// hpcreward-fidelity: does the pipeline measure what a careful standalone benchmark measures?
//
// For honest candidates of different speeds (the shipped samples), it interleaves rounds of
//   pipeline:   Scorer::score, the rank's real path (compile, sandboxed runner, checks), and
//   standalone: the same source compiled with the same flags, loaded into this process and
//               timed with a plain loop (warm-up, then the median of repeated calls),
// and reports their GFLOPS side by side; then it scores one candidate repeatedly and reports
// the coefficient of variation of the rewards. Targets: within 5%, CV under 3%.
// A report, not a test: speed depends on the machine.
#include <dlfcn.h>
#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <numeric>
#include <sstream>
#include <thread>
#include <vector>

#include <boost/program_options.hpp>

#include "bench_node/checks/compiler.hpp"
#include "bench_node/rank/default_checks.hpp"
#include "bench_node/cpu/guarded_buffer.hpp"
#include "bench_node/cpu/harness.hpp"
#include "bench_node/process/monotonic_clock.hpp"
#include "bench_node/measure/random_fill.hpp"
#include "bench_node/rank/scorer.hpp"
#include "bench_node/measure/statistics.hpp"
#include "bench_node/process/work_dir.hpp"
#include "common/cpu_model.hpp"
#include "common/problem_catalog.hpp"

namespace hpcreward {
namespace {

struct Sample {
  std::string file;
  std::vector<std::string> flags;
};

const std::vector<Sample> kSamples = {
    {"naive_ijk.c", {"-O0"}}, {"naive_ijk.c", {"-O3"}}, {"ikj.c", {"-O3"}},
    {"blocked.c", {"-O3"}},   {"ikj_restrict.c", {"-O3"}},
};

std::string read_file(const std::filesystem::path &path) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot read " + path.string());
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string join(const std::vector<std::string> &words) {
  std::string text;
  for (const auto &word : words) text += (text.empty() ? "" : " ") + word;
  return text;
}

// The standalone measurement: how one would time the kernel by hand.
// `refill`: new input values before every call (outside the clock), as the pipeline's harness
// does; the inputs are then fresh in cache when the call starts. Without it the calls rotate
// over fixed inputs, each set last touched eight calls earlier.
double standalone_gflops(const std::string &source, const std::vector<std::string> &flags,
                         const std::filesystem::path &directory, const Shape &shape, int calls, bool refill) {
  GccCompiler compiler(GccOptions{});
  std::filesystem::create_directories(directory);
  CompileOutcome compiled = compiler.compile({source, flags, directory});
  if (!compiled.verdict.ok()) throw std::runtime_error("standalone compile: " + compiled.verdict.reason);
  // Pinned like the runner's thread (OMP_PROC_BIND=close binds it to the first CPU of its
  // set): an unpinned loop migrates between cores and loses its cache now and then.
  cpu_set_t allowed, first;
  sched_getaffinity(0, sizeof allowed, &allowed);
  CPU_ZERO(&first);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &allowed)) {
      CPU_SET(cpu, &first);
      break;
    }
  sched_setaffinity(0, sizeof first, &first);
  void *handle = dlopen(compiled.object.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw std::runtime_error(std::string("dlopen: ") + dlerror());
  using Matmul = void (*)(int, int, int, const double *, const double *, double *);
  auto matmul = reinterpret_cast<Matmul>(dlsym(handle, "matmul"));
  // The harness's allocator and, like the harness, a ring of buffer sets: one fixed
  // allocation is bimodal here (ikj_restrict.c: 17.5 or 11.7 GFLOPS depending on where its
  // pages land physically, L2 set conflicts), so a single-allocation timing measures luck.
  struct Set {
    GuardedBuffer a, b, c;
  };
  std::vector<Set> ring;
  HeapOperandMemory memory;
  Rng rng(7);
  for (int i = 0; i < kTimingRingSize; ++i) {
    ring.push_back({GuardedBuffer(sizeof(double) * shape.m * shape.k, memory),
                    GuardedBuffer(sizeof(double) * shape.k * shape.n, memory),
                    GuardedBuffer(sizeof(double) * shape.m * shape.n, memory)});
    fill_uniform(ring.back().a.as<double>(), rng);
    fill_uniform(ring.back().b.as<double>(), rng);
  }
  auto prepare = [&](int i) -> Set & {
    Set &set = ring[static_cast<std::size_t>(i) % ring.size()];
    if (refill) {
      fill_uniform(set.a.as<double>(), rng);
      fill_uniform(set.b.as<double>(), rng);
    }
    return set;
  };
  auto call = [&](Set &set) {
    matmul(shape.m, shape.n, shape.k, set.a.as<double>().data(), set.b.as<double>().data(),
           set.c.as<double>().data());
  };
  const double warmup_end = monotonic_seconds() + 0.2;
  int warmup = 0;
  do call(prepare(warmup++));
  while (monotonic_seconds() < warmup_end);
  std::vector<double> seconds;
  for (int i = 0; i < calls; ++i) {
    Set &set = prepare(i);
    const double start = monotonic_seconds();
    call(set);
    seconds.push_back(monotonic_seconds() - start);
  }
  dlclose(handle);
  sched_setaffinity(0, sizeof allowed, &allowed);
  return shape.flops() / summarize(seconds).median / 1e9;
}

double median_of(std::vector<double> values) { return summarize(values).median; }

// "AMD EPYC, 2 CPUs": what the numbers were measured on.
std::string machine_description() {
  const std::string model = cpu_model();
  return (model.empty() ? std::string("unknown CPU") : model) + ", " +
         std::to_string(std::thread::hardware_concurrency()) + " CPUs";
}

int run(int argc, char **argv) {
  namespace po = boost::program_options;
  std::string samples_dir = HPCREWARD_SAMPLES_DIR, runner = HPCREWARD_RUNNER_PATH, report_path;
  int rounds = 3, repeats = 10, standalone_calls = 50;
  bool standalone_refill = false;
  TimingOptions timing;
  int threads = 0;
  po::options_description description("hpcreward-fidelity options");
  description.add_options()("help,h", "print this help")
      ("samples", po::value(&samples_dir)->default_value(samples_dir), "folder of sample C candidates")
      ("runner", po::value(&runner)->default_value(runner), "the hpcreward-runner executable")
      ("rounds", po::value(&rounds)->default_value(rounds), "interleaved pipeline/standalone rounds per candidate")
      ("repeats", po::value(&repeats)->default_value(repeats), "scorings of one candidate for the repeatability figure")
      ("report", po::value(&report_path), "also write the report (markdown) to this file")
      // The pipeline's timing rule, as hpcreward-bench takes it: to compare rules on one machine.
      ("warmup-s", po::value(&timing.warmup_s)->default_value(timing.warmup_s), "pipeline: warm-up upper bound (s)")
      ("warmup-settle", po::value(&timing.warmup_settle)->default_value(timing.warmup_settle),
       "pipeline: warm-up ends when the last calls agree within this fraction (0: always warmup-s)")
      ("min-reps", po::value(&timing.min_reps)->default_value(timing.min_reps), "pipeline: fewest timed calls")
      ("max-reps", po::value(&timing.max_reps)->default_value(timing.max_reps), "pipeline: most timed calls")
      ("target-rse", po::value(&timing.target_rse)->default_value(timing.target_rse),
       "pipeline: timing stops once the median's relative standard error is below this")
      ("standalone-refill", po::bool_switch(&standalone_refill),
       "standalone: new input values before every call, as the pipeline does (default: the ring's fixed inputs)")
      ("threads", po::value(&threads)->default_value(threads),
       "pipeline: OpenMP/OpenBLAS threads of the candidate's process (0: one per CPU)");
  po::variables_map values;
  po::store(po::parse_command_line(argc, argv, description), values);
  po::notify(values);
  if (values.count("help")) {
    std::cout << description;
    return 0;
  }
  if (rounds < 0 || repeats < 2) throw std::runtime_error("--rounds must be at least 0 (0: skip the comparison) and --repeats at least 2");
  if (timing.min_reps < 1 || timing.max_reps < timing.min_reps || !(timing.target_rse > 0))
    throw std::runtime_error("--min-reps must be at least 1, --max-reps at least --min-reps, --target-rse positive");

  const Problem &problem = *find_problem("dgemm-256");
  BenchOptions options;
  options.runner = runner;
  options.timing = timing;
  options.threads = threads;
  options.work_root = default_work_root(0);
  ensure_private_directory(options.work_root);
  Scorer scorer(options);
  add_default_checks(scorer, options);
  std::ostringstream report;
  report << "# Measurement fidelity (" << problem.id << ")\n\n"
         << "Machine: " << machine_description() << ". Command: `hpcreward-fidelity --rounds "
         << rounds << " --repeats " << repeats << " --warmup-s " << timing.warmup_s << " --warmup-settle "
         << timing.warmup_settle << " --min-reps " << timing.min_reps << " --max-reps " << timing.max_reps
         << " --target-rse " << timing.target_rse << " --threads " << threads
         << (standalone_refill ? " --standalone-refill" : "") << "`.\n\n"
         << "Pipeline: Scorer::score (compile, sandboxed runner, every output checked). "
         << "Standalone: the same object loaded in-process on one pinned CPU, 0.2 s warm-up, median of "
         << standalone_calls << " calls rotating over " << kTimingRingSize << " buffer sets of "
         << (standalone_refill ? "inputs refilled before each call (--standalone-refill)" : "fixed inputs")
         << ". Median over " << rounds
         << " interleaved rounds.\n\n"
         << "| candidate | flags | pipeline GFLOPS | standalone GFLOPS | pipeline / standalone |\n"
         << "| --- | --- | ---: | ---: | ---: |\n";
  std::int64_t sequence = 0;
  auto measure = [&](const std::string &source, const Sample &sample) {
    BenchTask task{sequence++, sample.file, problem, "fidelity", sample.flags, {"openmp", "avx512", "blocking"}, {}, {}, source, 42};
    Measurement m = scorer.score(task);
    if (m.status != Status::ok)
      throw std::runtime_error(sample.file + " was not ok: " + m.reason);
    return m;
  };
  auto score = [&](const std::string &source, const Sample &sample) { return measure(source, sample).gflops; };
  double worst_ratio_error = 0;
  for (const Sample &sample : rounds > 0 ? kSamples : std::vector<Sample>{}) {
    const std::string source = read_file(std::filesystem::path(samples_dir) / sample.file);
    std::vector<double> pipeline, standalone;
    for (int round = 0; round < rounds; ++round) {
      pipeline.push_back(score(source, sample));
      standalone.push_back(standalone_gflops(source, sample.flags,
                                             options.work_root / ("standalone-" + std::to_string(sequence)),
                                             problem.nominal, standalone_calls, standalone_refill));
    }
    const double p = median_of(pipeline), s = median_of(standalone);
    worst_ratio_error = std::max(worst_ratio_error, std::abs(p / s - 1));
    char line[256];
    std::snprintf(line, sizeof line, "| %s | %s | %.2f | %.2f | %.3f |\n", sample.file.c_str(),
                  join(sample.flags).c_str(), p, s, p / s);
    report << line;
    std::cerr << line << std::flush;
  }
  const Sample repeated = kSamples[2];
  const std::string source = read_file(std::filesystem::path(samples_dir) / repeated.file);
  // What the timing rule spends for its precision: the timed calls and seconds of each scoring,
  // and the precision each scoring claimed (the median's relative standard error, from its own
  // calls) beside the spread the scorings actually show.
  std::vector<double> rewards, reps, time_s, claimed_rse;
  for (int i = 0; i < repeats; ++i) {
    const Measurement m = measure(source, repeated);
    rewards.push_back(m.gflops);
    reps.push_back(m.reps);
    time_s.push_back(m.time_s);
    SampleSummary claimed;  // what median_rse needs: count, median and the IQR
    claimed.count = m.reps;
    claimed.median = m.median_s;
    claimed.q3 = m.iqr_s;
    claimed_rse.push_back(claimed.median_rse());
  }
  const SampleSummary spread = summarize(rewards);
  char difference[128] = "\nPipeline/standalone comparison not run (--rounds 0).\n\n";
  if (rounds > 0)
    std::snprintf(difference, sizeof difference,
                  "\nLargest pipeline/standalone difference: %.1f%% (target: within 5%%).\n\n",
                  100 * worst_ratio_error);
  char tail[512];
  std::snprintf(tail, sizeof tail,
                "%sRepeatability: %d scorings of %s %s: mean %.2f GFLOPS, min %.2f, max %.2f, "
                "CV %.2f%% (target: under 3%%).\n",
                difference, repeats, repeated.file.c_str(), join(repeated.flags).c_str(),
                spread.mean, spread.min, spread.max, 100 * spread.cv());
  report << tail << "\nThe " << repeats << " rewards in order:";
  for (double reward : rewards) {
    char value[16];
    std::snprintf(value, sizeof value, " %.2f", reward);
    report << value;
  }
  report << "\n";
  char cost[384];
  std::snprintf(cost, sizeof cost,
                "\nTiming per scoring: median %.0f timed calls, median %.3f s of warm-up and timing; "
                "median claimed RSE of the median %.2f%% (what one scoring's own calls say; the CV above is "
                "what the scorings show).\n",
                summarize(reps).median, summarize(time_s).median, 100 * summarize(claimed_rse).median);
  report << cost;
  std::cout << report.str();
  if (!report_path.empty()) std::ofstream(report_path) << report.str();
  remove_tree(options.work_root);
  return 0;
}

}  // namespace
}  // namespace hpcreward

int main(int argc, char **argv) {
  try {
    return hpcreward::run(argc, argv);
  } catch (const std::exception &error) {
    std::fprintf(stderr, "hpcreward-fidelity: %s\n", error.what());
    return 1;
  }
}
