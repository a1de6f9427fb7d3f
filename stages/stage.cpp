#include "stages/stage.hpp"

namespace hpcreward {

const std::vector<Stage> &default_stages() {
  // Every stage builds position-independent code for the harness to load; the flags
  // here are only what distinguishes the stages. The openmp, avx512 and blocking stages
  // require technique detection and join the ladder with it (issue 4); until then a run
  // cannot name a stage whose constraints it would not enforce.
  static const std::vector<Stage> stages = {
      {"o0", {"-O0"}, {}, {}},
      {"o3", {"-O3"}, {}, {}},
      {"open", {"-O3", "-march=native", "-fopenmp"}, {"openmp", "avx512", "blocking"}, {}},
  };
  return stages;
}

const Stage *find_stage(std::string_view name) {
  for (const Stage &stage : default_stages())
    if (stage.name == name) return &stage;
  return nullptr;
}

std::string known_stage_names() {
  std::string names;
  for (const Stage &stage : default_stages()) names += (names.empty() ? "" : ", ") + stage.name;
  return names;
}

}  // namespace hpcreward
