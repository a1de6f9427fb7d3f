#include "bench_node/rank/scorer.hpp"

#include <chrono>
#include <new>

#include "bench_node/process/monotonic_clock.hpp"
#include "bench_node/process/work_dir.hpp"

namespace hpcreward {

namespace {

std::unique_ptr<Compiler> default_compiler(const BenchOptions &options) {
  return std::make_unique<GccCompiler>(gcc_options(options));
}

std::unique_ptr<CandidateRunner> default_runner(const BenchOptions &options) {
  return std::make_unique<SandboxedRunner>(SandboxOptions{
      options.runner, options.run_timeout_s, options.memory_limit_mb << 20, options.timing,
      options.pin_threads, options.threads,
      {options.time_limit_factor, options.time_limit_floor_s, options.run_timeout_s,
       options.reference_gflops_per_core}});
}

}  // namespace

GccOptions gcc_options(const BenchOptions &options) {
  return GccOptions{options.cc, options.compile_timeout_s, options.compile_memory_limit_mb << 20,
                    options.compile_file_size_mb << 20};
}

Scorer::Scorer(BenchOptions options, std::unique_ptr<Compiler> compiler,
               std::unique_ptr<CandidateRunner> runner)
    : options_(std::move(options)), compiler_(std::move(compiler)), runner_(std::move(runner)) {
  if (options_.work_root.empty()) options_.work_root = default_work_root(0);
  // The runner works inside the candidate's directory: paths handed to it must be absolute.
  options_.work_root = std::filesystem::absolute(options_.work_root);
}

Scorer::Scorer(const BenchOptions &options)
    : Scorer(options, default_compiler(options), default_runner(options)) {}

void Scorer::add_check(std::unique_ptr<CandidateCheck> check) { checks_.push_back(std::move(check)); }

void Scorer::set_technique_step(std::unique_ptr<TechniqueStep> step) {
  technique_step_ = std::move(step);
}

namespace {

Measurement internal_error(const char *what) {
  return failed_measurement({Status::runtime_error, std::string("internal error while scoring") + what});
}

}  // namespace

Measurement Scorer::score(const BenchTask &task) {
  PreparedTask prepared = prepare(task);
  return run(prepared);
}

PreparedTask Scorer::prepare(const BenchTask &task) {
  PreparedTask prepared;
  prepared.task = task;
  try {
    prepare_unguarded(prepared);
  } catch (const std::bad_alloc &) {
    prepared.refused = internal_error(": out of memory");
  } catch (const std::exception &error) {
    prepared.refused = internal_error((std::string(": ") + error.what()).c_str());
  } catch (...) {
    prepared.refused = internal_error("");
  }
  if (prepared.refused) prepared.directory.reset();
  return prepared;
}

void Scorer::prepare_unguarded(PreparedTask &prepared) {
  const BenchTask &task = prepared.task;
  // compile_s covers the whole build phase: static checks, compiler, object audit,
  // technique detection.
  const double build_start = monotonic_seconds();
  auto refuse = [&](const Verdict &verdict) {
    Measurement measurement = failed_measurement(verdict);
    measurement.compile_s = monotonic_seconds() - build_start;
    prepared.refused = std::move(measurement);
  };
  for (const auto &check : checks_)
    if (Verdict verdict = check->check_source(task); !verdict.ok()) return refuse(verdict);

  prepared.directory = std::make_unique<WorkDir>(options_.work_root, "cand-" + std::to_string(task.sequence));
  if (options_.keep_workdir) prepared.directory->keep();

  const CompileOutcome compiled =
      compiler_->compile({task.source, task.compiler_flags, prepared.directory->path(), task.libraries});
  if (!compiled.verdict.ok()) {
    if (technique_step_)
      if (std::optional<Verdict> verdict = technique_step_->explain_compile_failure(task)) return refuse(*verdict);
    return refuse(compiled.verdict);
  }
  for (const auto &check : checks_)
    if (Verdict verdict = check->check_object(task, compiled.object); !verdict.ok()) return refuse(verdict);
  if (technique_step_) {
    TechniqueAssessment techniques = technique_step_->assess(task, compiled.object);
    prepared.techniques = std::move(techniques.summary);
    if (!techniques.verdict.ok()) {
      refuse(techniques.verdict);
      prepared.refused->techniques = prepared.techniques;
      return;
    }
  }
  prepared.object = compiled.object;
  prepared.compile_s = monotonic_seconds() - build_start;
}

Measurement Scorer::run(PreparedTask &prepared) {
  if (prepared.refused) return *prepared.refused;
  Measurement measurement;
  try {
    measurement = runner_->run({prepared.object, prepared.directory->path(), &prepared.task});
  } catch (const std::bad_alloc &) {
    measurement = internal_error(": out of memory");
  } catch (const std::exception &error) {
    measurement = internal_error((std::string(": ") + error.what()).c_str());
  }
  return complete(prepared, std::move(measurement));
}

Measurement Scorer::complete(PreparedTask &prepared, Measurement measurement) {
  measurement.compile_s = prepared.compile_s;
  measurement.techniques = prepared.techniques;
  prepared.directory.reset();  // the candidate's directory goes as soon as it has run
  return measurement;
}

Measurement score_task(const BenchTask &task, const BenchOptions &options) {
  Scorer scorer(options);
  return scorer.score(task);
}

}  // namespace hpcreward
