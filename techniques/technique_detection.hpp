#pragma once
// Which optimization techniques a candidate really uses (docs/design.md "Stages"):
// each technique needs evidence from the parsed syntax tree, and OpenMP and AVX-512 also
// from the compiled object, so text in comments or strings, or a pragma that compiles away,
// never counts. README.md says what each rule sees and misses.
//
// Rules (see source_techniques.hpp, object_techniques.hpp, loop_nest.hpp for details):
//   openmp   an OpenMP directive cursor (CXCursor_OMP*Directive) in the candidate's own file
//            (clang only builds these under -fopenmp, so the stage's flags decide) AND an
//            imported GOMP_* / omp_* symbol in the object.
//   avx512   an _mm512_* call or macro use, or a __m512* type named (a declaration, a cast,
//            sizeof), in the candidate's file AND at least one instruction with a zmm operand
//            in the object's executable sections (from anywhere: the auto-vectorizer's count).
//   blocking a tiled loop nest in the syntax tree: a for loop stepping by more than 1 with a
//            for loop nested in it whose start is the outer loop's variable (i = ii); the
//            object is not consulted.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "techniques/object_techniques.hpp"
#include "techniques/source_techniques.hpp"

namespace hpcreward::techniques {

struct TechniqueDescriptor {
  bool openmp = false;
  bool avx512 = false;
  bool blocking = false;
  std::string loop_order;        // "ikj", ... for the C += A*B nest; "" when unknown
  std::vector<int> tile_sizes;   // constant tile sizes, outermost first
  std::string evidence;          // what was found where (lines, addresses)
};

// Both halves' evidence joined under the rules above.
TechniqueDescriptor combine(const SourceTechniques &source, const ObjectTechniques &object);

// The subset of {"openmp", "avx512", "blocking"} the descriptor uses, in that order.
std::vector<std::string> technique_names(const TechniqueDescriptor &descriptor);

// {"techniques": [...], "loop_order": "...", "tile_sizes": [...], "evidence": "..."}
nlohmann::json to_json(const TechniqueDescriptor &descriptor);

}  // namespace hpcreward::techniques
