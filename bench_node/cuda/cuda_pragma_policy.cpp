#include "bench_node/cuda/cuda_pragma_policy.hpp"

#include <string_view>

#include "bench_node/source_checks/pragma_policy.hpp"

namespace hpcreward::cuda_source {

namespace {

constexpr std::string_view kAllowed =
    "unroll, once, message, STDC, nv_diag_*, nv_diagnostic, diag_*, GCC ivdep, GCC unroll, "
    "GCC diagnostic";

bool one_of(std::string_view word, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words)
    if (w == word) return true;
  return false;
}

}  // namespace

std::optional<std::string> cuda_pragma_refusal(const std::vector<const source_checks::Token *> &tokens,
                                               const std::string &where) {
  using source_checks::TokenKind;
  if (tokens.empty()) return std::nullopt;  // an empty pragma does nothing
  const std::string &space = tokens[0]->text;
  const std::string shown = "#pragma " + space + where;
  if (tokens[0]->kind != TokenKind::identifier)
    return shown + " is not on the allow-list (allowed: " + std::string(kAllowed) + ")";
  if (one_of(space, {"unroll", "once", "message", "STDC", "nv_diag_suppress", "nv_diag_default",
                     "nv_diag_warning", "nv_diag_error", "nv_diag_once", "nv_diagnostic",
                     "diag_suppress", "diag_default", "diag_warning"}))
    return std::nullopt;
  // The C policy's rules and reasons for what C and CUDA share.
  if (one_of(space, {"GCC", "redefine_extname", "weak"}))
    return source_checks::pragma_refusal(tokens, where);
  if (space == "nv_abi") return shown + " changes the calling convention the compiler chose";
  if (space == "omp") return shown + ": host OpenMP is not available to CUDA candidates";
  return shown + " is not on the allow-list (allowed: " + std::string(kAllowed) + ")";
}

}  // namespace hpcreward::cuda_source
