#include "bench_node/source_checks/finding.hpp"

#include <algorithm>

namespace hpcreward::source_checks {

namespace {

int rank(Status status) {
  switch (status) {
    case Status::forbidden:
      return 0;
    case Status::compile_error:
      return 1;
    case Status::format_error:
      return 2;
    default:
      return 3;
  }
}

}  // namespace

Verdict verdict_for(std::vector<Finding> findings) {
  if (findings.empty()) return {};
  // The same construct can be found twice (a prototype and its call): count it once.
  std::stable_sort(findings.begin(), findings.end(), [](const Finding &a, const Finding &b) {
    if (rank(a.status) != rank(b.status)) return rank(a.status) < rank(b.status);
    return a.line != b.line ? a.line < b.line : a.weight < b.weight;
  });
  findings.erase(std::unique(findings.begin(), findings.end(),
                             [](const Finding &a, const Finding &b) {
                               return a.status == b.status && a.reason == b.reason;
                             }),
                 findings.end());
  Verdict verdict{findings.front().status, findings.front().reason};
  if (findings.size() > 1) verdict.reason += " (+" + std::to_string(findings.size() - 1) + " more)";
  return verdict;
}

}  // namespace hpcreward::source_checks
