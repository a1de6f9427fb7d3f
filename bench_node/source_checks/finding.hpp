#pragma once
// What a check found, before it becomes the task's one Verdict.
#include <string>
#include <vector>

#include "common/status.hpp"

namespace hpcreward::source_checks {

struct Finding {
  Status status = Status::forbidden;
  int line = 0;        // where in the candidate's source (1-based); 0: the whole file
  std::string reason;  // complete, e.g. "call to fork at line 7 (process control)"
  int weight = 0;      // on one line, the lightest is reported first (the most specific)
};

// ok when there are no findings; otherwise the most serious finding (forbidden, then
// compile_error, then format_error), the earliest line (and lightest) first, with "(+N more)" when
// the candidate has more to fix.
Verdict verdict_for(std::vector<Finding> findings);

}  // namespace hpcreward::source_checks
