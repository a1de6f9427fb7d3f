#pragma once
// A check a candidate must pass before it runs: static source checks and the symbol audit
// of the compiled object plug in here (later issues). A failed check is a Verdict
// (forbidden, constraint_violation, format_error), never an exception.
#include <filesystem>
#include <string_view>

#include "common/messages.hpp"
#include "common/status.hpp"

namespace hpcreward {

class CandidateCheck {
 public:
  virtual ~CandidateCheck() = default;
  virtual std::string_view name() const = 0;
  // Before compiling: the task as received.
  virtual Verdict check_source(const BenchTask &) { return {}; }
  // After compiling: the shared object the runner would load.
  virtual Verdict check_object(const BenchTask &, const std::filesystem::path &) { return {}; }
};

}  // namespace hpcreward
