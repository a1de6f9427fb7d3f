#include "c_analysis/parse_arguments.hpp"

#include <string_view>

namespace hpcreward::c_analysis {

namespace {

bool starts(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool meaningful(std::string_view flag) {
  for (std::string_view prefix : {"-O",
                                  "-std=",
                                  "-D",
                                  "-U",
                                  "-march=",
                                  "-mtune=",
                                  "-mavx",
                                  "-mno-avx",
                                  "-msse",
                                  "-mno-sse",
                                  "-mssse3",
                                  "-mno-ssse3",
                                  "-mfma",
                                  "-mno-fma",
                                  "-mprefer-vector-width=",
                                  "-fopenmp",
                                  "-fno-openmp",
                                  "-ffast-math",
                                  "-fno-fast-math",
                                  "-ffp-contract=",
                                  "-funsafe-math-optimizations",
                                  "-fno-math-errno",
                                  "-ffinite-math-only"})
    if (starts(flag, prefix)) return true;
  return flag == "-ansi" || flag == "-trigraphs";
}

}  // namespace

std::vector<std::string> clang_arguments(const std::vector<std::string> &stage_flags,
                                         const std::filesystem::path &include_dir) {
  std::vector<std::string> args = {"-x", "c", "-std=gnu11"};
  for (std::size_t i = 0; i < stage_flags.size(); ++i) {
    const std::string &flag = stage_flags[i];
    if ((flag == "-D" || flag == "-U") && i + 1 < stage_flags.size()) {
      args.push_back(flag + stage_flags[++i]);
    } else if (meaningful(flag)) {
      args.push_back(flag);
    }
  }
  // gcc accepts [[gnu::...]] attributes in gnu11; clang must parse them to see them.
  args.insert(args.end(),
              {"-fdouble-square-bracket-attributes", "-ferror-limit=0", "-Wunknown-pragmas",
               "-Wignored-pragmas", "-Wunknown-attributes", "-Wignored-attributes"});
  if (!include_dir.empty()) args.insert(args.end(), {"-isystem", include_dir.string()});
  return args;
}

}  // namespace hpcreward::c_analysis
