#pragma once
// Parsing <immintrin.h> costs clang ~100 ms, the rest of a candidate a few. Candidates
// whose #include lines all come first (nothing but comments before or between them) share
// that work: their include lines form a preamble, compiled once per preamble and argument
// list into a precompiled header (PCH) that the parse then loads (-include-pch, ~3 ms).
// Only such candidates: the PCH puts the headers before line 1, which changes nothing when
// the includes are first anyway, and the candidate's own include lines then re-enter
// headers that are guarded. The PCHs are files in a private directory, so a cache filled in
// a forked child serves the next child; the least recently used are removed beyond
// `capacity`. A preamble whose PCH can't be built (clang errors in a header) is marked and
// parsed the slow way from then on.
#include <clang-c/Index.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace hpcreward::c_analysis {

class PreambleCache {
 public:
  PreambleCache(std::filesystem::path directory, std::size_t capacity);

  // The PCH of `preamble` parsed with `arguments`; built and saved on first use. Empty when
  // it can't be built (the caller parses without).
  std::filesystem::path pch_for(CXIndex index, const std::vector<std::string> &arguments,
                                const std::string &preamble);
  // Drops a PCH that clang would not load.
  void forget(const std::filesystem::path &pch);

 private:
  void evict();
  std::filesystem::path directory_;
  std::size_t capacity_;
};

}  // namespace hpcreward::c_analysis
