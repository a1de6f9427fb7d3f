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
//            in the object's executable sections (from anywhere: the auto-vectorizer's count);
//            or, with no source evidence needed: where the stage's flags do not target
//            AVX-512, any AVX-512 instruction (EVEX or zmm) in the sweep or one zmm arithmetic
//            instruction hidden inside other instructions' bytes; where they do, an object with
//            no zmm instruction in sight but kHiddenZmmRefused or more hidden ones
//            (object_techniques.hpp). gcc's simd clones for wider ISAs than the flags' are made
//            unreachable before (simd_clones.hpp).
//   blocking a tiled loop nest in the syntax tree: a for loop stepping by more than 1 with a
//            for loop nested in it whose start is the outer loop's variable (i = ii), and at
//            least one constant tile smaller than the timed shape (runtime-sized tiles count);
//            the object is not consulted.
//   simd     an _mm_* or _mm256_* call or macro use, or a __m128* or __m256* type named, in
//            the candidate's file, and not avx512 (an AVX-512 kernel's narrower tail is part
//            of it); source only: the auto-vectorizer puts xmm and ymm code into every -O3
//            object. No stage of the default ladder requires or refuses it; it tells SSE and
//            AVX2 kernels from plain loops in the archive's niches.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/problem.hpp"
#include "common/technique_summary.hpp"
#include "techniques/object_techniques.hpp"
#include "techniques/source_techniques.hpp"
#include "techniques/vector_isa.hpp"

namespace hpcreward::techniques {

struct TechniqueDescriptor {
  bool openmp = false;
  bool avx512 = false;
  bool blocking = false;
  bool simd = false;
  std::string loop_order;        // "ikj", ... for the C += A*B nest; "" when unknown
  std::vector<int> tile_sizes;   // constant tile sizes, outermost first
  std::string evidence;          // what was found where (lines, addresses)
};

// Both halves' evidence joined under the rules above (all but the timed shape's); `target` is
// the widest ISA the stage's flags compile for.
TechniqueDescriptor combine(const SourceTechniques &source, const ObjectTechniques &object, VectorIsa target);

// AVX code (VEX-encoded, in the sweep; or kHiddenYmmRefused hidden ymm instructions) in an
// object whose flags compile for SSE2: the reason a stage refuses it, telling what to change;
// nullopt otherwise. There is no technique for AVX2: the flags exclude it.
std::optional<std::string> code_beyond_flags(const ObjectTechniques &object, VectorIsa target);

// Where the flags do not target AVX-512 and the object holds some (so it counts as avx512
// without the source): where it is and what to change, for the refusal's reason.
std::optional<std::string> avx512_beyond_flags(const ObjectTechniques &object, VectorIsa target);

// Tiles at least as large as the timed shape split nothing: one 256-wide tile over a 256^3
// problem is the untiled loop with extra bookkeeping, and must not satisfy a blocking stage.
// Runtime-sized tiles (no constants found) keep counting: their size is unknown here.
void discount_whole_problem_tiles(TechniqueDescriptor &descriptor, const Shape &timed);

// What a rank reports for a C candidate both of whose halves were read (source.parsed,
// object.read): combine, then discount_whole_problem_tiles, as the Measurement's summary.
TechniqueSummary summarise(const SourceTechniques &source, const ObjectTechniques &object,
                           const Shape &timed, VectorIsa target);

// The subset of {"openmp", "avx512", "blocking", "simd"} the descriptor uses, in that order.
std::vector<std::string> technique_names(const TechniqueDescriptor &descriptor);

// What the source half alone shows, in the same order: for a candidate that did not compile
// (there is no object), each technique with source evidence; tiles are not discounted.
std::vector<std::string> source_technique_names(const SourceTechniques &source);

// {"techniques": [...], "loop_order": "...", "tile_sizes": [...], "evidence": "..."}
nlohmann::json to_json(const TechniqueDescriptor &descriptor);

}  // namespace hpcreward::techniques
