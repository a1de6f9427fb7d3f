#include "bench_node/cuda/nvcc_compiler.hpp"

#include <cmath>
#include <stdexcept>

#include "bench_node/process/child_process.hpp"
#include "bench_node/cuda/cute_headers.hpp"
#include "bench_node/cuda/iostream_shim.hpp"
#include "bench_node/cuda/link_refusal.hpp"
#include "bench_node/process/environment.hpp"
#include "common/node_failure.hpp"
#include "common/number_text.hpp"
#include "common/stage_libraries.hpp"

namespace hpcreward {

namespace {

// nvcc adds these to every command line it runs: the stage's flags would no longer be the
// whole story, and a cache keyed on them would be wrong.
constexpr std::string_view kIgnoredVariables[] = {"NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS"};

Environment nvcc_environment(const std::string &temporary_directory) {
  Environment environment;
  for (const std::string &entry : inherited_environment()) {
    bool ignored = false;
    for (std::string_view name : kIgnoredVariables)
      ignored = ignored || (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 &&
                            entry[name.size()] == '=');
    if (!ignored) environment.push_back(entry);
  }
  if (!temporary_directory.empty()) set_variable(environment, "TMPDIR", temporary_directory);
  set_variable(environment, "LC_ALL", "C");
  return environment;
}

}  // namespace

bool NvccCompiler::uses_cute(const CompileRequest &request) const {
  return uses_cutlass_headers(request.libraries) && !options_.cute_include.empty();
}

bool valid_cuda_arch(const std::string &arch) {
  if (arch.rfind("sm_", 0) != 0) return false;
  std::string_view digits = std::string_view(arch).substr(3);
  if (!digits.empty() && digits.back() == 'a') digits.remove_suffix(1);
  return !digits.empty() && digits.size() <= 4 &&
         digits.find_first_not_of("0123456789") == std::string_view::npos;
}

std::string gencode_for(const std::string &arch) {
  if (!valid_cuda_arch(arch))
    throw std::invalid_argument("not a CUDA architecture: '" + arch + "' (expected sm_<digits>[a], e.g. sm_90a)");
  return "-gencode=arch=compute_" + arch.substr(3) + ",code=" + arch;
}

NvccCompiler::NvccCompiler(NvccOptions options) : options_(std::move(options)) {
  gencode_for(options_.arch);  // validates
}

std::vector<std::string> NvccCompiler::arguments(const CompileRequest &request) const {
  std::vector<std::string> args = {"-shared", "-Xcompiler", "-fPIC", "-cudart", "shared",
                                   gencode_for(options_.arch)};
  args.insert(args.end(), {"-isystem", kIostreamShimDirectory});
  if (uses_cute(request)) args.insert(args.end(), {"-isystem", options_.cute_include});
  args.insert(args.end(), request.flags.begin(), request.flags.end());
  // After the stage's flags, so they hold whatever those say: every function in a section of
  // its own, only matmul exported, and what nothing exported or run at load refers to dropped.
  // That drops the host stubs nvcc writes for __device__ functions (they call exit) unless
  // host code refers to one, when it could call it and the audit refuses the exit.
  args.insert(args.end(), {"-Xcompiler", "-ffunction-sections", "-Xlinker",
                           std::string("--gc-sections,--version-script=") + kExportsName,
                           "-Xlinker", "-z,defs", "-o", kObjectName, kSourceName});
  return args;
}

CompileOutcome NvccCompiler::compile(const CompileRequest &request) {
  CompileOutcome outcome;
  auto fail = [&](std::string reason) {
    outcome.verdict = {Status::compile_error, std::move(reason)};
    return outcome;
  };
  const auto program = find_executable(options_.nvcc);
  if (!program) return fail("compiler not found: " + options_.nvcc);
  if (!write_private_file(request.directory / kSourceName, request.source) ||
      !write_private_file(request.directory / kExportsName, kExportsScript))
    return fail("could not write the source into " + request.directory.string());
  std::error_code shim_error;
  std::filesystem::create_directory(request.directory / kIostreamShimDirectory, shim_error);
  if (shim_error || !write_private_file(request.directory / kIostreamShimDirectory / "iostream", kIostreamShim))
    return fail("could not write the <iostream> shim into " + request.directory.string());

  ChildSpec spec;
  spec.program = *program;
  spec.arguments = arguments(request);
  spec.environment = nvcc_environment(request.directory.string());  // nvcc's temporaries too
  spec.working_directory = request.directory.string();
  spec.limits.address_space_bytes = options_.memory_bytes;
  spec.limits.cpu_seconds = static_cast<std::uint64_t>(std::ceil(options_.timeout_s)) + 5;
  spec.limits.file_size_bytes = options_.file_size_bytes;
  spec.deadline_s = options_.timeout_s;
  spec.output_limit = 64 << 10;  // long template errors; the linker's message comes last

  const ChildOutcome child = run_child(spec);
  outcome.seconds = child.wall_s;
  outcome.log = child.output;
  if (!child.started) return fail(std::string(node_failure::kCompilerNotStarted) + ": " + child.start_error);
  if (child.timed_out) return fail(std::string(node_failure::kCompilerTimedOut) + " after " + seconds_text(options_.timeout_s));
  if (child.signaled)
    return fail(std::string(node_failure::kCompilerKilled) + " " + describe_signal(child.signal) +
                (child.output.empty() ? "" : ": " + first_error_line(child.output)));
  outcome.repeatable = true;  // nvcc ran to its end
  if (child.exit_code != 0) {
    if (std::optional<Verdict> refused = link_refusal(child.output)) {
      outcome.verdict = std::move(*refused);
      return outcome;
    }
    const std::string line = first_error_lines(child.output, 3);
    return fail("compiler failed (exit " + std::to_string(child.exit_code) + ")" +
                (line.empty() ? "" : ": " + line));
  }
  const std::filesystem::path object = request.directory / kObjectName;
  std::error_code error;
  if (!std::filesystem::is_regular_file(object, error)) return fail("compiler produced no shared object");
  outcome.object = object;
  return outcome;
}

std::string nvcc_identity(const NvccOptions &options) {
  std::string identity = "nvcc " + options.nvcc;
  const auto program = find_executable(options.nvcc);
  if (program) {
    identity += " at " + *program;
    ChildSpec spec;
    spec.program = *program;
    spec.arguments = {"--version"};
    spec.environment = nvcc_environment({});
    spec.limits.address_space_bytes = 1ULL << 30;
    spec.limits.cpu_seconds = 10;
    spec.deadline_s = 10;
    const ChildOutcome child = run_child(spec);
    identity += child.exited && child.exit_code == 0 ? "\n" + child.output : "\n(--version failed)";
  } else {
    identity += " (not found)";
  }
  NvccCompiler compiler(options);
  for (const std::string &argument : compiler.arguments({"", {"<flags>"}, {}}))
    identity += " " + argument;
  if (!options.cute_include.empty()) identity += "\nCuTe: " + options.cute_include + " " + cute_version(options.cute_include);
  return identity;
}

}  // namespace hpcreward
