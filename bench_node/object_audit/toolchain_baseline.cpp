#include "bench_node/object_audit/toolchain_baseline.hpp"

#include <stdexcept>

#include "bench_node/process/work_dir.hpp"

namespace hpcreward {

ToolchainBaseline baseline_of(const ElfObject &object) {
  ToolchainBaseline baseline;
  baseline.init_array_entries = object.init_array_entries;
  baseline.fini_array_entries = object.fini_array_entries;
  baseline.preinit_array_entries = object.preinit_array_entries;
  baseline.init_code_bytes = object.init_code_bytes;
  baseline.fini_code_bytes = object.fini_code_bytes;
  for (const ElfSymbol &symbol : object.dynamic_symbols) {
    if (symbol.name.empty() || symbol.name == "matmul") continue;
    (symbol.defined ? baseline.exports : baseline.imports).insert(symbol.name);
  }
  baseline.needed.insert(object.needed.begin(), object.needed.end());
  return baseline;
}

BaselineCache::BaselineCache(std::unique_ptr<Compiler> compiler, std::filesystem::path work_root,
                             std::string source)
    : compiler_(std::move(compiler)), work_root_(std::move(work_root)), source_(std::move(source)) {}

const ToolchainBaseline &BaselineCache::for_flags(const std::vector<std::string> &flags) {
  const std::lock_guard lock(mutex_);
  if (auto found = baselines_.find(flags); found != baselines_.end()) return found->second;

  WorkDir directory(work_root_, "baseline");
  const CompileOutcome compiled = compiler_->compile({source_, flags, directory.path()});
  if (!compiled.verdict.ok())
    throw std::runtime_error("object audit: the empty baseline candidate did not compile: " +
                             compiled.verdict.reason);
  auto object = read_elf_object(compiled.object);
  if (auto *error = std::get_if<std::string>(&object))
    throw std::runtime_error("object audit: cannot read the baseline object: " + *error);
  return baselines_.emplace(flags, baseline_of(std::get<ElfObject>(object))).first->second;
}

}  // namespace hpcreward
