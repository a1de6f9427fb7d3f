#include "bench_node/cuda/sass_dump.hpp"

#include <cmath>

#include "bench_node/process/child_process.hpp"
#include "bench_node/process/environment.hpp"
#include "common/number_text.hpp"

namespace hpcreward {

SassDump dump_sass(const SassDumpOptions &options, const std::filesystem::path &object) {
  SassDump dump;
  const auto cuobjdump = find_executable(options.cuobjdump);
  if (!cuobjdump) return dump.error = "cuobjdump not found: " + options.cuobjdump, dump;
  const auto nvdisasm = find_executable(options.nvdisasm);
  if (!nvdisasm) return dump.error = "nvdisasm not found: " + options.nvdisasm, dump;
  const std::string directory = object.parent_path().string();

  ChildSpec spec;
  spec.program = *cuobjdump;
  spec.arguments = {"-sass", "-res-usage", object.filename().string()};
  spec.environment = inherited_environment();
  const std::string tools = std::filesystem::path(*nvdisasm).parent_path().string();
  set_variable(spec.environment, "NVDISASM_PATH", tools);
  const auto path = get_variable(spec.environment, "PATH");
  set_variable(spec.environment, "PATH", path && !path->empty() ? tools + ":" + *path : tools);
  set_variable(spec.environment, "TMPDIR", directory);
  set_variable(spec.environment, "LC_ALL", "C");
  spec.working_directory = directory;
  spec.limits.address_space_bytes = options.memory_bytes;
  spec.limits.cpu_seconds = static_cast<std::uint64_t>(std::ceil(options.timeout_s)) + 5;
  spec.limits.file_size_bytes = 256ULL << 20;
  spec.deadline_s = options.timeout_s;
  spec.output_limit = options.output_limit_bytes;

  ChildOutcome child = run_child(spec);
  dump.seconds = child.wall_s;
  if (!child.started) return dump.error = "cuobjdump could not start: " + child.start_error, dump;
  if (child.timed_out)
    return dump.error = "cuobjdump ran past its " + seconds_text(options.timeout_s) + " limit", dump;
  if (child.signaled)
    return dump.error = "cuobjdump was killed by " + describe_signal(child.signal) +
                        " (out of memory?)", dump;
  if (child.exit_code != 0)
    return dump.error = "cuobjdump failed (exit " + std::to_string(child.exit_code) + "): " +
                        first_line(child.output, 300), dump;
  if (child.output_bytes > child.output.size())
    return dump.error = "the SASS dump is larger than its limit (" +
                        std::to_string(options.output_limit_bytes) + " bytes)", dump;
  dump.ok = true;
  dump.text = std::move(child.output);
  return dump;
}

}  // namespace hpcreward
