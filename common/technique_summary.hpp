#pragma once
// The technique descriptor of one candidate as it travels from a benchmark rank to the
// coordinator and into the log. Only the plain struct lives here, because the messages carry
// it (messages.hpp; common/ is the lowest layer). Everything else about techniques is in
// techniques/ (README.md): the names (known_techniques.hpp), the detection that fills this
// on a rank, and its text forms and archive niche key (summary_text.hpp).
#include <string>
#include <vector>

namespace hpcreward {

struct TechniqueSummary {
  bool detected = false;                // false: detection did not run (the candidate failed earlier)
  // C candidates: a subset of kCTechniques {"openmp", "avx512", "blocking", "simd"}, in that order; CUDA
  // candidates: of kCudaTechniques {"smem", "tensor", "async"} (techniques/known_techniques.hpp).
  std::vector<std::string> techniques;
  std::string loop_order;               // "ikj", ... for the C += A*B nest; "" when unknown
  std::vector<int> tile_sizes;          // constant tile sizes, outermost first
  std::string evidence;                 // what was found where (lines, instructions)
  bool operator==(const TechniqueSummary &) const = default;
};

}  // namespace hpcreward
