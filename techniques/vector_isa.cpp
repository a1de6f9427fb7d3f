#include "techniques/vector_isa.hpp"

#include <string>

namespace hpcreward::techniques {

const char *vector_isa_name(VectorIsa isa) {
  switch (isa) {
    case VectorIsa::sse2: return "SSE2 (x86-64 baseline)";
    case VectorIsa::avx: return "AVX";
    case VectorIsa::avx2: return "AVX2";
    case VectorIsa::avx512: return "AVX-512";
  }
  return "?";
}

VectorIsa vector_isa_from_macros(std::string_view predefined_macros) {
  auto defined = [&](const char *macro) {
    return predefined_macros.find(std::string("#define ") + macro + " ") != std::string_view::npos;
  };
  if (defined("__AVX512F__")) return VectorIsa::avx512;
  if (defined("__AVX2__")) return VectorIsa::avx2;
  if (defined("__AVX__")) return VectorIsa::avx;
  return VectorIsa::sse2;
}

std::optional<VectorIsa> simd_clone_isa(std::string_view symbol) {
  constexpr std::string_view kPrefix = "_ZGV";
  if (!symbol.starts_with(kPrefix) || symbol.size() < kPrefix.size() + 3) return std::nullopt;
  const char mask = symbol[kPrefix.size() + 1];
  if (mask != 'M' && mask != 'N') return std::nullopt;
  switch (symbol[kPrefix.size()]) {
    case 'b': return VectorIsa::sse2;
    case 'c': return VectorIsa::avx;
    case 'd': return VectorIsa::avx2;
    case 'e': return VectorIsa::avx512;
    default: return std::nullopt;
  }
}

}  // namespace hpcreward::techniques
