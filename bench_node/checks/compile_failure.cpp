#include "bench_node/checks/compile_failure.hpp"

#include <algorithm>
#include <regex>
#include <utility>

namespace hpcreward {

namespace {

// gcc's intrinsic headers, each of one instruction set (the first that matches).
constexpr std::pair<std::string_view, std::string_view> kIsaOfHeader[] = {
    {"pmmintrin.h", "SSE3"},     {"tmmintrin.h", "SSSE3"},  {"smmintrin.h", "SSE4.1"},
    {"nmmintrin.h", "SSE4.2"},   {"popcntintrin.h", "POPCNT"}, {"avxintrin.h", "AVX"},
    {"avx2intrin.h", "AVX2"},    {"fmaintrin.h", "FMA"},    {"f16cintrin.h", "F16C"},
    {"avx512", "AVX-512"},       {"avxvnni", "AVX-VNNI"},   {"amx", "AMX"},
};

std::string_view isa_of(std::string_view header) {
  for (const auto &[name, isa] : kIsaOfHeader)
    if (header.find(name) != std::string_view::npos) return isa;
  return "an instruction set";
}

std::string joined(const std::vector<std::string> &flags) {
  std::string text;
  for (const std::string &flag : flags) text += (text.empty() ? "" : " ") + flag;
  return text;
}

bool has_flag(const std::vector<std::string> &flags, std::string_view wanted) {
  return std::find(flags.begin(), flags.end(), wanted) != flags.end();
}

}  // namespace

std::optional<Verdict> explain_compile_failure(std::string_view log, const std::vector<std::string> &flags) {
  const std::string text(log);
  std::smatch match;
  static const std::regex mismatch(
      R"(([^\s:]+\.h):\d+:\d+: error: inlining failed in call to .always_inline. .(\w+).: target specific option mismatch)");
  if (std::regex_search(text, match, mismatch)) {
    const std::string header = match[1].str(), intrinsic = match[2].str();
    const std::string_view isa = isa_of(header);
    const bool baseline = std::none_of(flags.begin(), flags.end(), [](const std::string &flag) {
      return flag.starts_with("-m") || flag.starts_with("-march=");
    });
    return Verdict{Status::constraint_violation,
                   intrinsic + " is " + std::string(isa) + ", which this stage does not compile for (" + joined(flags) +
                       (baseline ? ": x86-64's SSE2 baseline" : "") +
                       "): use the intrinsics its prompt offers, or a stage whose flags enable " + std::string(isa)};
  }
  static const std::regex omp(R"(undefined reference to .(omp_\w+).)");
  if (!has_flag(flags, "-fopenmp") && std::regex_search(text, match, omp))
    return Verdict{Status::compile_error,
                   "this stage compiles without -fopenmp, so the OpenMP runtime is not linked and " + match[1].str() +
                       " is undefined (OpenMP directives are ignored here): drop the omp_* call, or use a stage "
                       "that offers OpenMP"};
  return std::nullopt;
}

}  // namespace hpcreward
