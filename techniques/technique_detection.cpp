#include "techniques/technique_detection.hpp"

#include <algorithm>
#include <sstream>

namespace hpcreward::techniques {

TechniqueDescriptor combine(const SourceTechniques &source, const ObjectTechniques &object) {
  TechniqueDescriptor out;
  out.openmp = source.omp_directives > 0 && !object.omp_imports.empty();
  // Hidden zmm code counts without the source: no source shows it, and it runs if jumped to.
  // Only in an object with no zmm code in sight: inside real AVX-512 code, whose bytes are
  // dense with EVEX prefixes, decodes at other offsets are common and hide nothing new.
  const bool hides_zmm = object.zmm_instructions == 0 && object.hidden_zmm_instructions >= kHiddenZmmRefused;
  out.avx512 = (source.avx512_uses > 0 && object.zmm_instructions > 0) || hides_zmm;
  out.blocking = source.blocking;
  out.simd = source.simd_uses > 0 && !out.avx512;
  out.loop_order = source.loop_order;
  out.tile_sizes = source.tile_sizes;
  std::ostringstream evidence;
  evidence << "source: " << (source.parsed ? source.evidence : "not parsed");
  if (source.parsed && source.evidence.empty()) evidence << "nothing";
  evidence << " | object: ";
  if (!object.read) {
    evidence << "not read (" << object.error << ")";
  } else {
    evidence << object.omp_imports.size() << " OpenMP imports";
    if (!object.omp_imports.empty()) evidence << " (" << object.omp_imports.front() << ", ...)";
    evidence << ", " << object.zmm_instructions << " zmm instructions";
    if (object.zmm_instructions > 0)
      evidence << " (first at 0x" << std::hex << object.first_zmm_address << std::dec << ": "
               << object.first_zmm_instruction << ")";
    if (object.hidden_zmm_instructions > 0)
      evidence << ", " << object.hidden_zmm_instructions
               << " zmm instructions hidden inside other instructions' bytes (first at 0x" << std::hex
               << object.first_hidden_zmm_address << std::dec << ": " << object.first_hidden_zmm_instruction
               << (hides_zmm ? "; counted as avx512)" : ")");
  }
  out.evidence = evidence.str();
  return out;
}

void discount_whole_problem_tiles(TechniqueDescriptor &descriptor, const Shape &timed) {
  if (!descriptor.blocking || descriptor.tile_sizes.empty()) return;
  const int smallest = std::min({timed.m, timed.n, timed.k});
  if (std::any_of(descriptor.tile_sizes.begin(), descriptor.tile_sizes.end(),
                  [&](int tile) { return tile < smallest; }))
    return;
  descriptor.blocking = false;
  descriptor.evidence += "; no tile is smaller than the timed shape " + to_string(timed) +
                         ", so the nest splits nothing: not blocking";
}

TechniqueSummary summarise(const SourceTechniques &source, const ObjectTechniques &object,
                           const Shape &timed) {
  TechniqueDescriptor descriptor = combine(source, object);
  discount_whole_problem_tiles(descriptor, timed);
  TechniqueSummary summary;
  summary.detected = true;
  summary.techniques = technique_names(descriptor);
  summary.loop_order = descriptor.loop_order;
  summary.tile_sizes = descriptor.tile_sizes;
  summary.evidence = descriptor.evidence;
  return summary;
}

std::vector<std::string> technique_names(const TechniqueDescriptor &descriptor) {
  std::vector<std::string> names;
  if (descriptor.openmp) names.emplace_back("openmp");
  if (descriptor.avx512) names.emplace_back("avx512");
  if (descriptor.blocking) names.emplace_back("blocking");
  if (descriptor.simd) names.emplace_back("simd");
  return names;
}

std::vector<std::string> source_technique_names(const SourceTechniques &source) {
  std::vector<std::string> names;
  if (source.omp_directives > 0) names.emplace_back("openmp");
  if (source.avx512_uses > 0) names.emplace_back("avx512");
  if (source.blocking) names.emplace_back("blocking");
  if (source.simd_uses > 0 && source.avx512_uses == 0) names.emplace_back("simd");
  return names;
}

nlohmann::json to_json(const TechniqueDescriptor &descriptor) {
  return {{"techniques", technique_names(descriptor)},
          {"loop_order", descriptor.loop_order},
          {"tile_sizes", descriptor.tile_sizes},
          {"evidence", descriptor.evidence}};
}

}  // namespace hpcreward::techniques
