#include "techniques/known_techniques.hpp"

#include <algorithm>
#include <iterator>

namespace hpcreward::techniques {

bool is_known_technique(std::string_view technique) { return technique_language(technique).has_value(); }

std::optional<Language> technique_language(std::string_view technique) {
  if (std::find(std::begin(kCTechniques), std::end(kCTechniques), technique) != std::end(kCTechniques))
    return Language::c;
  if (std::find(std::begin(kCudaTechniques), std::end(kCudaTechniques), technique) != std::end(kCudaTechniques))
    return Language::cuda;
  return std::nullopt;
}

std::optional<std::string_view> refined_technique(std::string_view technique) {
  if (technique == "wgmma") return "tensor";
  if (technique == "tma") return "async";
  return std::nullopt;
}

}  // namespace hpcreward::techniques
