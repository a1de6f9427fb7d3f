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

// `text` from `at` on, blanks skipped, starts with `word`.
bool starts_at(std::string_view text, std::size_t at, std::string_view word) {
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
  return text.substr(at).starts_with(word);
}

// The first line that only C++ would write, as "std:: at line 3"; nullopt for none. A plain
// scan, no std::regex: the source is the candidate's (up to 64 KiB on one line), and this runs
// in the rank.
std::optional<std::string> cxx_marker(std::string_view source) {
  // extern "C" under #ifdef __cplusplus is how C headers guard themselves: not C++.
  const bool guarded = source.find("__cplusplus") != std::string_view::npos;
  constexpr std::string_view kHeaders[] = {"vector", "iostream", "string", "algorithm", "array", "memory",
                                           "cstdio", "cstdlib", "cstring", "cmath", "cstdint", "chrono", "thread"};
  int line = 0;
  for (std::size_t begin = 0; begin < source.size();) {
    const std::size_t end = std::min(source.find('\n', begin), source.size());
    const std::string_view text = source.substr(begin, end - begin);
    begin = end + 1;
    ++line;
    const std::size_t first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos || text.substr(first).starts_with("//")) continue;
    const std::string_view rest = text.substr(first);
    std::optional<std::string_view> found;
    if (!guarded && rest.starts_with("extern") && starts_at(rest, 6, "\"C\"")) found = "extern \"C\"";
    for (std::string_view word : {"template", "namespace", "class", "using namespace"})
      if (!found && rest.starts_with(word) && rest.size() > word.size() &&
          (rest[word.size()] == ' ' || rest[word.size()] == '<' || rest[word.size()] == '\t'))
        found = word;
    if (!found && rest.starts_with("#") && starts_at(rest, 1, "include"))
      for (std::string_view header : kHeaders)
        if (text.find("<" + std::string(header) + ">") != std::string_view::npos) found = header;
    for (std::string_view token : {"std::", "nullptr", "static_cast<", "reinterpret_cast<"})
      if (!found && text.find(token) != std::string_view::npos) found = token;
    if (found) return std::string(*found) + " at line " + std::to_string(line);
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
