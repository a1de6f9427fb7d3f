#pragma once
// Compiles small candidates with the real gcc (GccCompiler: the same command line as the
// rank) into temporary directories and audits the objects. Safe: the audit only reads an
// object, and nothing here loads one.
#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench_node/checks/compiler.hpp"
#include "bench_node/object_audit/c_object_audit.hpp"
#include "bench_node/process/work_dir.hpp"

namespace hpcreward::testing {

inline std::filesystem::path test_root() {
  return std::filesystem::path(::testing::TempDir()) /
         ("hpcreward-object-audit-test-" + std::to_string(::getpid()));
}

// Removes test_root() when the test program ends.
class RemoveTestRoot : public ::testing::Environment {
 public:
  void TearDown() override { remove_tree(test_root()); }
};

// One audit for the whole test program, so each flag set's baseline is compiled once.
inline ObjectAudit &shared_audit() {
  static const std::unique_ptr<ObjectAudit> audit = c_object_audit(ObjectAuditOptions{GccOptions{}, test_root() / "baselines"});
  return *audit;
}

// The verdict on `source` compiled with `flags`; a compile failure fails the test.
inline Verdict audit_source(const std::string &source, const std::vector<std::string> &flags) {
  WorkDir directory(test_root(), "candidate");
  GccCompiler compiler(GccOptions{});
  const CompileOutcome compiled = compiler.compile({source, flags, directory.path()});
  if (!compiled.verdict.ok()) {
    ADD_FAILURE() << "the test candidate did not compile: " << compiled.verdict.reason << "\n"
                  << compiled.log;
    return compiled.verdict;
  }
  BenchTask task;
  task.compiler_flags = flags;
  return shared_audit().check_object(task, compiled.object);
}

}  // namespace hpcreward::testing
