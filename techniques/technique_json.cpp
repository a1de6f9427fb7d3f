#include "techniques/technique_json.hpp"

#include <cstdint>
#include <vector>

namespace hpcreward::techniques {

using nlohmann::json;

json to_json(const SourceTechniques &source) {
  return {{"parsed", source.parsed},
          {"omp_directives", source.omp_directives},
          {"avx512_uses", source.avx512_uses},
          {"simd_uses", source.simd_uses},
          {"blocking", source.blocking},
          {"tile_sizes", source.tile_sizes},
          {"loop_order", source.loop_order},
          {"evidence", source.evidence}};
}

json to_json(const ObjectTechniques &object) {
  return {{"read", object.read},
          {"error", object.error},
          {"omp_imports", object.omp_imports},
          {"zmm_instructions", object.zmm_instructions},
          {"first_zmm_address", object.first_zmm_address},
          {"first_zmm_instruction", object.first_zmm_instruction},
          {"hidden_zmm_instructions", object.hidden_zmm_instructions},
          {"first_hidden_zmm_address", object.first_hidden_zmm_address},
          {"first_hidden_zmm_instruction", object.first_hidden_zmm_instruction},
          {"avx512_instructions", object.avx512_instructions},
          {"first_avx512_address", object.first_avx512_address},
          {"first_avx512_instruction", object.first_avx512_instruction},
          {"vex_instructions", object.vex_instructions},
          {"first_vex_address", object.first_vex_address},
          {"first_vex_instruction", object.first_vex_instruction},
          {"hidden_ymm_instructions", object.hidden_ymm_instructions},
          {"first_hidden_ymm_address", object.first_hidden_ymm_address},
          {"first_hidden_ymm_instruction", object.first_hidden_ymm_instruction},
          {"disabled_simd_clones", object.disabled_simd_clones}};
}

SourceTechniques source_techniques_from_json(const json &s) {
  SourceTechniques source;
  source.parsed = s.at("parsed").get<bool>();
  source.omp_directives = s.at("omp_directives").get<int>();
  source.avx512_uses = s.at("avx512_uses").get<int>();
  source.simd_uses = s.at("simd_uses").get<int>();
  source.blocking = s.at("blocking").get<bool>();
  source.tile_sizes = s.at("tile_sizes").get<std::vector<int>>();
  source.loop_order = s.at("loop_order").get<std::string>();
  source.evidence = s.at("evidence").get<std::string>();
  return source;
}

ObjectTechniques object_techniques_from_json(const json &o) {
  ObjectTechniques object;
  object.read = o.at("read").get<bool>();
  object.error = o.at("error").get<std::string>();
  object.omp_imports = o.at("omp_imports").get<std::vector<std::string>>();
  object.zmm_instructions = o.at("zmm_instructions").get<int>();
  object.first_zmm_address = o.at("first_zmm_address").get<std::uint64_t>();
  object.first_zmm_instruction = o.at("first_zmm_instruction").get<std::string>();
  object.hidden_zmm_instructions = o.at("hidden_zmm_instructions").get<int>();
  object.first_hidden_zmm_address = o.at("first_hidden_zmm_address").get<std::uint64_t>();
  object.first_hidden_zmm_instruction = o.at("first_hidden_zmm_instruction").get<std::string>();
  object.avx512_instructions = o.at("avx512_instructions").get<int>();
  object.first_avx512_address = o.at("first_avx512_address").get<std::uint64_t>();
  object.first_avx512_instruction = o.at("first_avx512_instruction").get<std::string>();
  object.vex_instructions = o.at("vex_instructions").get<int>();
  object.first_vex_address = o.at("first_vex_address").get<std::uint64_t>();
  object.first_vex_instruction = o.at("first_vex_instruction").get<std::string>();
  object.hidden_ymm_instructions = o.at("hidden_ymm_instructions").get<int>();
  object.first_hidden_ymm_address = o.at("first_hidden_ymm_address").get<std::uint64_t>();
  object.first_hidden_ymm_instruction = o.at("first_hidden_ymm_instruction").get<std::string>();
  object.disabled_simd_clones = o.at("disabled_simd_clones").get<std::vector<std::string>>();
  return object;
}

}  // namespace hpcreward::techniques
