#include "techniques/technique_detection.hpp"

#include <algorithm>
#include <sstream>

namespace hpcreward::techniques {

namespace {

std::string at_text(std::uint64_t address, const std::string &instruction) {
  std::ostringstream text;
  text << "first at 0x" << std::hex << address << std::dec << ": " << instruction;
  return text.str();
}

}  // namespace

TechniqueDescriptor combine(const SourceTechniques &source, const ObjectTechniques &object, VectorIsa target) {
  TechniqueDescriptor out;
  out.openmp = source.omp_directives > 0 && !object.omp_imports.empty();
  // AVX-512 code in an object whose flags do not target it is not gcc's (its clones for other
  // ISAs were disabled before): any of it counts, in the sweep or hidden, without the source.
  // Where the flags target AVX-512, hidden zmm code counts only in an object with no zmm code
  // in sight: inside real AVX-512 code, dense with EVEX prefixes, other decodes are common.
  const bool beyond_flags = target < VectorIsa::avx512 &&
                            (object.avx512_instructions > 0 || object.hidden_zmm_instructions > 0);
  const bool hides_zmm = beyond_flags || (object.zmm_instructions == 0 && object.hidden_zmm_instructions >= kHiddenZmmRefused);
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
    if (beyond_flags && object.avx512_instructions > 0)
      evidence << ", " << object.avx512_instructions << " AVX-512 instructions beyond the flags' "
               << vector_isa_name(target) << " (" << at_text(object.first_avx512_address, object.first_avx512_instruction)
               << "; counted as avx512)";
    if (!object.disabled_simd_clones.empty())
      evidence << ", " << object.disabled_simd_clones.size() << " simd clones for wider ISAs than the flags' made unreachable ("
               << object.disabled_simd_clones.front() << ", ...)";
  }
  out.evidence = evidence.str();
  return out;
}

std::optional<std::string> avx512_beyond_flags(const ObjectTechniques &object, VectorIsa target) {
  if (target >= VectorIsa::avx512) return std::nullopt;
  std::string found;
  if (object.avx512_instructions > 0)
    found = std::to_string(object.avx512_instructions) + " AVX-512 instructions (" +
            at_text(object.first_avx512_address, object.first_avx512_instruction) + ")";
  else if (object.hidden_zmm_instructions > 0)
    found = std::to_string(object.hidden_zmm_instructions) + " zmm instructions inside other instructions' bytes (" +
            at_text(object.first_hidden_zmm_address, object.first_hidden_zmm_instruction) + ")";
  if (found.empty()) return std::nullopt;
  return "the object holds " + found + " though the stage's flags compile for " + vector_isa_name(target) +
         ": use no AVX-512 (no vector_size(64) types or builtins) and no 64-bit constants that encode AVX-512 instructions";
}

std::optional<std::string> code_beyond_flags(const ObjectTechniques &object, VectorIsa target) {
  if (target != VectorIsa::sse2) return std::nullopt;
  std::string found;
  if (object.vex_instructions > 0)
    found = std::to_string(object.vex_instructions) + " VEX-encoded (AVX) instructions (" +
            at_text(object.first_vex_address, object.first_vex_instruction) + ")";
  else if (object.hidden_ymm_instructions >= kHiddenYmmRefused)
    found = std::to_string(object.hidden_ymm_instructions) + " ymm instructions inside other instructions' bytes (" +
            at_text(object.first_hidden_ymm_address, object.first_hidden_ymm_instruction) + ")";
  if (found.empty()) return std::nullopt;
  return "the stage's flags compile for " + std::string(vector_isa_name(target)) + ", and the object holds " + found +
         ": use SSE2 (_mm_* intrinsics up to SSE2) or plain C, and no 64-bit constants that encode AVX instructions";
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
                           const Shape &timed, VectorIsa target) {
  TechniqueDescriptor descriptor = combine(source, object, target);
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
