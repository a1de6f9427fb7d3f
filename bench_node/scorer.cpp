#include "bench_node/scorer.hpp"

#include <chrono>
#include <new>

#include "bench_node/monotonic_clock.hpp"
#include "bench_node/work_dir.hpp"

namespace hpcreward {

namespace {

std::unique_ptr<Compiler> default_compiler(const BenchOptions &options) {
  return std::make_unique<GccCompiler>(gcc_options(options));
}

std::unique_ptr<CandidateRunner> default_runner(const BenchOptions &options) {
  return std::make_unique<SandboxedRunner>(
      SandboxOptions{options.runner, options.run_timeout_s, options.memory_limit_mb << 20,
                     options.timing, options.pin_threads});
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

Measurement Scorer::score(const BenchTask &task) {
  try {
    return score_unguarded(task);
  } catch (const std::bad_alloc &) {
    return failed_measurement({Status::runtime_error, "internal error while scoring: out of memory"});
  } catch (const std::exception &error) {
    return failed_measurement({Status::runtime_error, std::string("internal error while scoring: ") + error.what()});
  } catch (...) {
    return failed_measurement({Status::runtime_error, "internal error while scoring"});
  }
}

Measurement Scorer::score_unguarded(const BenchTask &task) {
  // compile_s covers the whole build phase: static checks, compiler, object audit,
  // technique detection.
  const double build_start = monotonic_seconds();
  auto refused = [&](const Verdict &verdict) {
    Measurement measurement = failed_measurement(verdict);
    measurement.compile_s = monotonic_seconds() - build_start;
    return measurement;
  };
  for (const auto &check : checks_)
    if (Verdict verdict = check->check_source(task); !verdict.ok()) return refused(verdict);

  WorkDir directory(options_.work_root, "cand-" + std::to_string(task.sequence));
  if (options_.keep_workdir) directory.keep();

  const CompileOutcome compiled =
      compiler_->compile({task.source, task.compiler_flags, directory.path()});
  if (!compiled.verdict.ok()) {
    if (technique_step_)
      if (std::optional<Verdict> verdict = technique_step_->explain_compile_failure(task)) return refused(*verdict);
    return refused(compiled.verdict);
  }
  for (const auto &check : checks_)
    if (Verdict verdict = check->check_object(task, compiled.object); !verdict.ok())
      return refused(verdict);
  TechniqueAssessment techniques;
  if (technique_step_) {
    techniques = technique_step_->assess(task, compiled.object);
    if (!techniques.verdict.ok()) {
      Measurement measurement = refused(techniques.verdict);
      measurement.techniques = std::move(techniques.summary);
      return measurement;
    }
  }

  const double compile_s = monotonic_seconds() - build_start;
  Measurement measurement = runner_->run({compiled.object, directory.path(), &task});
  measurement.compile_s = compile_s;
  measurement.techniques = std::move(techniques.summary);
  return measurement;
}

Measurement score_task(const BenchTask &task, const BenchOptions &options) {
  Scorer scorer(options);
  return scorer.score(task);
}

}  // namespace hpcreward
