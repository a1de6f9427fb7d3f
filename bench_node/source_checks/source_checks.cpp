#include "bench_node/source_checks/source_checks.hpp"

#include <algorithm>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string_view>

#include <nlohmann/json.hpp>

#include "bench_node/source_checks/ast_audit.hpp"
#include "bench_node/source_checks/c_lexer.hpp"
#include "bench_node/source_checks/conditional_rules.hpp"
#include "bench_node/source_checks/diagnostic_rules.hpp"
#include "bench_node/source_checks/directives.hpp"
#include "bench_node/source_checks/entry_point.hpp"
#include "bench_node/source_checks/finding.hpp"
#include "bench_node/source_checks/lex_options.hpp"
#include "bench_node/source_checks/omp_header.hpp"
#include "bench_node/source_checks/c_preprocessor_policy.hpp"
#include "bench_node/process/work_dir.hpp"
#include "c_analysis/clang_parse.hpp"
#include "c_analysis/parse_arguments.hpp"
#include "c_analysis/preamble_cache.hpp"
#include "common/node_failure.hpp"
#include "common/number_text.hpp"
#include "techniques/source_techniques.hpp"
#include "techniques/technique_json.hpp"

namespace hpcreward {

namespace sc = source_checks;
namespace ca = c_analysis;
namespace tq = techniques;

namespace {

constexpr std::string_view kRootPrefix = "hpcreward-source-checks-";

std::filesystem::path default_root() {
  static std::atomic<int> checks{0};
  return std::filesystem::temp_directory_path() /
         (std::string(kRootPrefix) + std::to_string(::getpid()) + "-" + std::to_string(checks++));
}

// Default roots of processes that are gone (a rank killed before its destructors ran): each
// may hold a few precompiled preambles of megabytes.
void remove_stale_roots() {
  std::error_code error;
  for (const auto &entry :
       std::filesystem::directory_iterator(std::filesystem::temp_directory_path(), error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kRootPrefix, 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + kRootPrefix.size(), nullptr, 10);
    struct stat info {};
    if (pid <= 0 || ::lstat(entry.path().c_str(), &info) != 0 || info.st_uid != ::geteuid() ||
        !S_ISDIR(info.st_mode))
      continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) remove_tree(entry.path());
  }
}

constexpr std::size_t kRememberedTasks = 64;

std::string one_line(std::string text) {
  for (char &c : text)
    if (c == '\n') c = ' ';
  return text;
}

// The child's answer, in two parts: "status\nreason\nclang's first error\n" (the last may
// be empty), then, when it read techniques, their JSON on one more line.
std::string encode(const Verdict &verdict, const std::string &parser_error = {}) {
  return std::string(to_string(verdict.status)) + "\n" + one_line(verdict.reason) + "\n" +
         one_line(parser_error) + "\n";
}

struct Answer {
  Verdict verdict;
  std::string parser_error;
  std::string techniques;  // the second part, as sent ("" when none came)
};

// nullopt when the first part did not arrive whole.
std::optional<Answer> decode(const std::string &text) {
  const std::size_t first = text.find('\n');
  const std::size_t second = first == std::string::npos ? first : text.find('\n', first + 1);
  const std::size_t third = second == std::string::npos ? second : text.find('\n', second + 1);
  if (third == std::string::npos) return std::nullopt;
  const auto status = parse_status(text.substr(0, first));
  if (!status) return std::nullopt;
  return Answer{{*status, text.substr(first + 1, second - first - 1)},
                text.substr(second + 1, third - second - 1),
                text.substr(third + 1)};
}

std::string task_key(const BenchTask &task) {
  return std::to_string(task.sequence) + ":" +
         std::to_string(std::hash<std::string>{}(task.source));
}

Verdict parse_timed_out(double limit_s) {
  return {Status::compile_error, std::string(node_failure::kParserTimedOut) + " its " + seconds_text(limit_s) +
                                     " limit (a macro expansion bomb?)"};
}

// What the techniques' reading came to, from the whole outcome: the JSON line when the
// child finished, otherwise why it did not (TechniqueCheck's wording for its own failures).
sc::SourceTechniqueFindings technique_findings(const sc::ForkOutcome &parsed,
                                               const std::string &sent, double timeout_s,
                                               std::uint64_t memory_bytes) {
  sc::SourceTechniqueFindings findings;
  switch (parsed.end) {
    case sc::ForkOutcome::End::returned:
      try {
        findings.found = tq::source_techniques_from_json(nlohmann::json::parse(sent));
      } catch (const std::exception &) {
        findings.failure = "its answer was unreadable";
      }
      break;
    case sc::ForkOutcome::End::timed_out:
      findings.failure = "it ran past its " + seconds_text(timeout_s) + " limit";
      break;
    case sc::ForkOutcome::End::out_of_memory:
      findings.failure = "it ran out of memory (" + std::to_string(memory_bytes >> 20) + " MiB)";
      break;
    case sc::ForkOutcome::End::crashed:
    case sc::ForkOutcome::End::not_started:
      findings.failure = "it crashed (" + parsed.detail + ")";
      break;
  }
  return findings;
}

}  // namespace

SourceChecks::SourceChecks(const SourceCheckOptions &options)
    : options_(options),
      owned_root_(options.work_root.empty() ? default_root() : std::filesystem::path()),
      root_(options.work_root.empty() ? owned_root_ : options.work_root),
      // Declarations of a precompiled preamble are the headers': never visited.
      index_(clang_createIndex(/*excludeDeclarationsFromPCH=*/1, /*displayDiagnostics=*/0)) {
  if (!index_) throw std::runtime_error("source checks: libclang could not create an index");
  if (!owned_root_.empty()) remove_stale_roots();
  ensure_private_directory(root_);
  if (sc::install_compiler_omp_header(options_.cc, root_ / "include"))
    include_dir_ = root_ / "include";
}

SourceChecks::~SourceChecks() {
  if (!owned_root_.empty()) remove_tree(owned_root_);
}

Verdict SourceChecks::check_source(const BenchTask &task) {
  if (task.source.find('\0') != std::string::npos)
    return {Status::format_error, "the source contains a NUL byte (it must be C text)"};
  const std::vector<sc::Token> tokens =
      sc::lex_c(task.source, sc::lex_options(task.compiler_flags));
  std::vector<sc::Finding> findings = sc::preprocessor_findings(tokens, sc::c_preprocessor_table());
  for (sc::Finding &finding : sc::conditional_findings(tokens))
    findings.push_back(std::move(finding));
  if (!findings.empty()) return sc::verdict_for(std::move(findings));

  // The verdict must come within the parse's limit, as it always had to (a macro bomb holds
  // the rank no longer); the techniques' budget comes after it.
  const double deadline_s =
      options_.parse_timeout_s + (options_.technique_memo ? options_.technique_timeout_s : 0);
  const sc::ForkOutcome parsed = sc::run_forked_in_parts(
      [&](const sc::Send &send) { parse_and_audit(task, tokens, send); },
      {deadline_s, options_.parse_memory_bytes, options_.parse_timeout_s});
  return judge(task, parsed);
}

Verdict SourceChecks::judge(const BenchTask &task, const sc::ForkOutcome &parsed) {
  if (std::optional<Answer> answer = decode(parsed.output)) {
    if (answer->verdict.ok() && !answer->parser_error.empty())
      remember_rejection(task, std::move(answer->parser_error));
    if (answer->verdict.ok() && options_.technique_memo)
      options_.technique_memo->remember(
          task, technique_findings(parsed, answer->techniques, options_.technique_timeout_s,
                                   options_.parse_memory_bytes));
    return answer->verdict;
  }
  switch (parsed.end) {
    case sc::ForkOutcome::End::returned:
      return {Status::compile_error, std::string(node_failure::kParserNoVerdict)};
    case sc::ForkOutcome::End::timed_out:
      return parse_timed_out(options_.parse_timeout_s);
    case sc::ForkOutcome::End::out_of_memory:
      return {Status::compile_error, std::string(node_failure::kParserOutOfMemory) + " (" +
                                         std::to_string(options_.parse_memory_bytes >> 20) +
                                         " MiB; a macro expansion bomb?)"};
    case sc::ForkOutcome::End::crashed:
      return {Status::compile_error,
              std::string(node_failure::kParserFailed) + " (" + parsed.detail + "; out of memory?)"};
    case sc::ForkOutcome::End::not_started:
      break;
  }
  // A rank that can't fork can't check: an internal failure, not the candidate's.
  throw std::runtime_error("source checks: could not start the parser (" + parsed.detail + ")");
}

Verdict SourceChecks::check_object(const BenchTask &task, const std::filesystem::path &) {
  const std::string key = task_key(task);
  for (const auto &[rejected, error] : rejected_by_parser_) {
    if (rejected != key) continue;
    // Types that conflict only for clang come from a call before the declaration: gcc 12 takes
    // the implicit declaration C11 removed with a warning, clang refuses the definition after it.
    const bool implicit = error.find("conflicting types for") != std::string::npos ||
                          error.find("implicit declaration") != std::string::npos;
    return {Status::compile_error,
            "gcc compiled code that the checker's C parser (clang) rejects, so it went unchecked (" + error +
                (implicit ? "); declare every function before its first call (C11 has no implicit declarations)"
                          : "); write C that both accept")};
  }
  return {};
}

void SourceChecks::remember_rejection(const BenchTask &task, std::string error) {
  rejected_by_parser_.emplace_back(task_key(task), std::move(error));
  if (rejected_by_parser_.size() > kRememberedTasks) rejected_by_parser_.pop_front();
}

void SourceChecks::parse_and_audit(const BenchTask &task, const std::vector<sc::Token> &tokens,
                                   const sc::Send &send) {
  const std::string &source = task.source;
  ca::PreambleCache cache(root_, options_.preamble_cache_entries);
  const std::optional<std::string> preamble = sc::include_preamble(tokens);
  std::string error;
  const ca::TranslationUnitHandle unit = ca::parse_with_preamble(
      index_.get(), source, ca::clang_arguments(task.compiler_flags, include_dir_), cache,
      preamble, error);
  if (!unit)
    return send(encode({Status::compile_error, std::string(node_failure::kParserFailed) + ": " + error}));

  // Under -fopenmp libclang shows a parallel region as a directive without its statements:
  // calls and asm inside `#pragma omp parallel { ... }` would pass unseen. The serial view
  // (OpenMP off, the same preamble cache) shows them; both trees are audited, and a finding
  // both report counts once. Technique detection below reads the same serial view.
  const auto serial_flags = tq::serial_parse_flags(task.compiler_flags);
  ca::TranslationUnitHandle serial;
  if (serial_flags) {
    serial = ca::parse_with_preamble(index_.get(), source, ca::clang_arguments(*serial_flags, include_dir_),
                                     cache, preamble, error);
    if (!serial)
      return send(encode({Status::compile_error, std::string(node_failure::kParserFailed) + " without OpenMP: " + error}));
  }
  std::vector<sc::Finding> findings =
      sc::diagnostic_findings(unit.get(), sc::vetted_pragma_lines(tokens));
  for (sc::Finding &finding : sc::audit_ast(unit.get())) findings.push_back(std::move(finding));
  if (serial)
    for (sc::Finding &finding : sc::audit_ast(serial.get())) {
      const bool seen = std::any_of(findings.begin(), findings.end(), [&](const sc::Finding &other) {
        return other.line == finding.line && other.reason == finding.reason;
      });
      if (!seen) findings.push_back(std::move(finding));
    }
  // A candidate that does not compile is gcc's to report; only a clean one is held to the ABI.
  const std::string parser_error = ca::first_error_in_candidate(unit.get());
  if (parser_error.empty())
    for (sc::Finding &finding : sc::entry_point_findings(unit.get(), task.problem))
      findings.push_back(std::move(finding));
  const Verdict verdict = sc::verdict_for(std::move(findings));
  send(encode(verdict, parser_error));
  if (!verdict.ok() || !options_.technique_memo) return;

  // The second part: the techniques, from the same unit (and, under -fopenmp, the serial one).
  const tq::SourceTechniques found = tq::detect_in_units(
      unit.get(), serial_flags ? std::optional<CXTranslationUnit>(serial.get()) : std::nullopt);
  send(tq::to_json(found).dump() + "\n");
}

}  // namespace hpcreward
