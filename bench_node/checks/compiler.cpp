#include "bench_node/checks/compiler.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

#include "bench_node/checks/compile_failure.hpp"
#include "bench_node/process/child_process.hpp"
#include "bench_node/process/environment.hpp"
#include "common/node_failure.hpp"
#include "common/number_text.hpp"

namespace hpcreward {

namespace {

CompileOutcome compile_error(std::string reason) {
  CompileOutcome outcome;
  outcome.verdict = {Status::compile_error, std::move(reason)};
  return outcome;
}

}  // namespace

bool write_private_file(const std::filesystem::path &path, const std::string &text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return false;
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t got = ::write(fd, text.data() + written, text.size() - written);
    if (got <= 0) {
      ::close(fd);
      return false;
    }
    written += static_cast<std::size_t>(got);
  }
  return ::close(fd) == 0;
}

std::string first_error_line(const std::string &log) {
  std::vector<std::string> lines;
  std::istringstream stream(log);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  // The compiler's or linker's own message first; collect2's summary says less.
  for (const std::string &line : lines)
    if (line.find("undefined reference") != std::string::npos ||
        (line.find("error") != std::string::npos && line.rfind("collect2:", 0) != 0))
      return first_line(line, 300);
  for (const std::string &line : lines)
    if (line.find("error") != std::string::npos) return first_line(line, 300);
  return first_line(log, 300);
}

std::string first_error_lines(const std::string &log, std::size_t count) {
  std::vector<std::string> found;
  std::istringstream stream(log);
  for (std::string line; std::getline(stream, line) && found.size() < count;) {
    const bool error = line.find("undefined reference") != std::string::npos ||
                       (line.find("error") != std::string::npos && line.rfind("collect2:", 0) != 0);
    if (error && std::find(found.begin(), found.end(), first_line(line, 300)) == found.end())
      found.push_back(first_line(line, 300));
  }
  if (found.empty()) return first_error_line(log);
  std::string joined;
  for (const std::string &line : found) joined += (joined.empty() ? "" : "; ") + line;
  return joined;
}

std::vector<std::string> GccCompiler::arguments(const CompileRequest &request) const {
  std::vector<std::string> args = {"-std=gnu11", "-shared", "-fPIC"};
  args.insert(args.end(), request.flags.begin(), request.flags.end());
  // -z defs: an undefined reference fails here, with the linker's message, instead of
  // when the runner loads the object.
  args.insert(args.end(), {"-ffunction-sections", "-fdata-sections",
                           std::string("-Wl,--gc-sections,--version-script=") + kExportsName, "-Wl,-z,defs",
                           "-o", kObjectName, kSourceName, "-lm"});
  return args;
}

CompileOutcome GccCompiler::compile(const CompileRequest &request) {
  const auto program = find_executable(options_.cc);
  if (!program) return compile_error("compiler not found: " + options_.cc);
  if (!write_private_file(request.directory / kSourceName, request.source) ||
      !write_private_file(request.directory / kExportsName, kExportsScript))
    return compile_error("could not write the source into " + request.directory.string());

  ChildSpec spec;
  spec.program = *program;
  spec.arguments = arguments(request);
  spec.environment = inherited_environment();
  set_variable(spec.environment, "TMPDIR", request.directory.string());  // gcc's temporaries
  set_variable(spec.environment, "LC_ALL", "C");
  spec.working_directory = request.directory.string();
  spec.limits.address_space_bytes = options_.memory_bytes;
  spec.limits.cpu_seconds = static_cast<std::uint64_t>(std::ceil(options_.timeout_s)) + 5;
  spec.limits.file_size_bytes = options_.file_size_bytes;
  spec.deadline_s = options_.timeout_s;
  spec.output_limit = 4096;

  const ChildOutcome child = run_child(spec);
  CompileOutcome outcome;
  outcome.seconds = child.wall_s;
  outcome.log = child.output;
  auto fail = [&](std::string reason) {
    outcome.verdict = {Status::compile_error, std::move(reason)};
    return outcome;
  };
  if (!child.started) return fail(std::string(node_failure::kCompilerNotStarted) + ": " + child.start_error);
  if (child.timed_out) return fail(std::string(node_failure::kCompilerTimedOut) + " after " + seconds_text(options_.timeout_s));
  if (child.signaled)
    return fail(std::string(node_failure::kCompilerKilled) + " " + describe_signal(child.signal) +
                (child.output.empty() ? "" : ": " + first_error_line(child.output)));
  outcome.repeatable = true;  // the compiler ran to its end
  if (child.exit_code != 0) {
    if (std::optional<Verdict> explained = explain_compile_failure(child.output, request.flags, request.source)) {
      outcome.verdict = std::move(*explained);
      return outcome;
    }
    const std::string line = first_error_lines(child.output, 3);
    return fail("compiler failed (exit " + std::to_string(child.exit_code) + ")" +
                (line.empty() ? "" : ": " + line));
  }
  const std::filesystem::path object = request.directory / kObjectName;
  std::error_code error;
  if (!std::filesystem::is_regular_file(object, error))
    return fail("compiler produced no shared object");
  outcome.object = object;
  return outcome;
}

namespace {

// cc's whole output (up to 1 MiB) as a limited child; nullopt when it fails.
std::optional<std::string> run_compiler_query(const std::string &cc, const std::vector<std::string> &arguments) {
  const auto program = find_executable(cc);
  if (!program) return std::nullopt;
  ChildSpec spec;
  spec.program = *program;
  spec.arguments = arguments;
  spec.environment = inherited_environment();
  set_variable(spec.environment, "LC_ALL", "C");
  spec.limits.address_space_bytes = 1ULL << 30;
  spec.limits.cpu_seconds = 10;
  spec.deadline_s = 10;
  spec.output_limit = 1 << 20;
  const ChildOutcome child = run_child(spec);
  if (!child.started || !child.exited || child.exit_code != 0) return std::nullopt;
  return child.output;
}

}  // namespace

std::string query_compiler(const std::string &cc, const std::vector<std::string> &arguments) {
  const std::optional<std::string> output = run_compiler_query(cc, arguments);
  return output ? first_line(*output, 4096) : std::string();
}

std::string predefined_macros(const std::string &cc, const std::vector<std::string> &flags) {
  std::vector<std::string> arguments = {"-std=gnu11"};
  arguments.insert(arguments.end(), flags.begin(), flags.end());
  arguments.insert(arguments.end(), {"-dM", "-E", "-x", "c", "/dev/null"});
  return run_compiler_query(cc, arguments).value_or("");
}

std::string compiler_version(const std::string &cc) { return query_compiler(cc, {"--version"}); }

}  // namespace hpcreward
