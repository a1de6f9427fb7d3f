#include "bench_node/object_audit/object_audit.hpp"

#include <unistd.h>

#include <atomic>
#include <string>

#include "bench_node/object_audit/audit_rules.hpp"
#include "bench_node/object_audit/elf_object.hpp"
#include "bench_node/process/work_dir.hpp"
#include "common/node_failure.hpp"

namespace hpcreward {

namespace {

// One per audit (two audits in one process don't share, so neither removes the other's).
// Made on the first baseline build (WorkDir makes it mode 0700).
std::filesystem::path private_audit_root(const std::filesystem::path &parent) {
  static std::atomic<int> audits{0};
  return (parent.empty() ? std::filesystem::temp_directory_path() : parent) /
         ("hpcreward-audit-" + std::to_string(::getpid()) + "-" + std::to_string(audits++));
}

}  // namespace

ObjectAudit::ObjectAudit(std::unique_ptr<Compiler> baseline_compiler, const std::filesystem::path &work_root,
                         AuditTable table)
    : table_(std::move(table)),
      owned_root_(private_audit_root(work_root)),
      baselines_(std::move(baseline_compiler), owned_root_, table_.baseline_source) {}

ObjectAudit::~ObjectAudit() { remove_tree(owned_root_); }

Verdict ObjectAudit::check_object(const BenchTask &task, const std::filesystem::path &path) {
  auto read = read_elf_object(path);
  if (auto *error = std::get_if<std::string>(&read))
    return {Status::compile_error, std::string(node_failure::kObjectUnreadable) + ": " + *error};
  const ElfObject &object = std::get<ElfObject>(read);

  // The entry point first: a candidate without one is told so, whatever else it does.
  if (Verdict verdict = check_entry_point(object); !verdict.ok()) return verdict;
  const ToolchainBaseline &baseline = baselines_.for_flags(task.compiler_flags);
  for (Verdict verdict : {check_load_time_code(object, baseline), check_segments(object),
                          check_libraries(object, baseline, *table_.imports),
                          check_imports(object, baseline, *table_.imports),
                          check_exports(object, baseline, table_.exports)})
    if (!verdict.ok()) return verdict;
  return table_.own_rule ? table_.own_rule(path) : Verdict{};
}

}  // namespace hpcreward
