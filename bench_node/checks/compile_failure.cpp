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

// The first line that only C++ would write, as "std:: at line 3"; nullopt for none.
std::optional<std::string> cxx_marker(std::string_view source) {
  static const std::regex marker(
      R"re(^\s*(extern\s+"C"|template\s*<|namespace\s+\w|class\s+\w+\s*[{:]|using\s+namespace|#\s*include\s*<(vector|iostream|string|algorithm|array|memory|cstdio|cstdlib|cstring|cmath|cstdint|chrono|thread)>)|(std::|nullptr\b|static_cast<|reinterpret_cast<))re");
  int line = 0;
  std::size_t begin = 0;
  while (begin < source.size()) {
    const std::size_t end = std::min(source.find('\n', begin), source.size());
    ++line;
    const std::string text(source.substr(begin, end - begin));
    std::smatch match;
    // extern "C" under #ifdef __cplusplus is how C headers guard themselves: not C++.
    const bool guarded = source.find("__cplusplus") != std::string_view::npos;
    if (text.find("//") != 0 && std::regex_search(text, match, marker) &&
        !(guarded && match[1].str().find("extern") != std::string::npos)) {
      std::string found = match[1].matched ? match[1].str() : match[3].str();
      found.erase(0, found.find_first_not_of(" \t"));
      return found + " at line " + std::to_string(line);
    }
    begin = end + 1;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Verdict> explain_compile_failure(std::string_view log, const std::vector<std::string> &flags,
                                              std::string_view source) {
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
  if (const std::optional<std::string> cxx = cxx_marker(source)) {
    static const std::regex first_error(R"((cand\.c:\d+:\d+: (fatal )?error: [^\n]*))");
    const std::string gcc = std::regex_search(text, match, first_error) ? "; gcc: " + match[1].str().substr(0, 200) : "";
    return Verdict{Status::compile_error, "the answer is C++ (" + *cxx +
                                              "); this problem is C, compiled by gcc -std=gnu11: write it in C" + gcc};
  }
  return std::nullopt;
}

}  // namespace hpcreward
