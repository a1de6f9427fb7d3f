// The technique names, and that each detector reports only its own language's names, in
// the listed order.
#include "techniques/known_techniques.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "techniques/sass_techniques.hpp"
#include "techniques/technique_detection.hpp"

namespace hpcreward::techniques {
namespace {

template <std::size_t N>
std::vector<std::string> listed(const std::string_view (&names)[N]) {
  return {std::begin(names), std::end(names)};
}

TEST(KnownTechniques, EachBelongsToOneLanguage) {
  EXPECT_EQ(technique_language("openmp"), Language::c);
  EXPECT_EQ(technique_language("blocking"), Language::c);
  EXPECT_EQ(technique_language("smem"), Language::cuda);
  EXPECT_EQ(technique_language("tensor"), Language::cuda);
  EXPECT_EQ(technique_language("async"), Language::cuda);
  EXPECT_EQ(technique_language("simd"), Language::c);
  EXPECT_FALSE(technique_language("sse"));
  EXPECT_TRUE(is_known_technique("async"));
  EXPECT_FALSE(is_known_technique("vector"));
  EXPECT_EQ(technique_language("wgmma"), Language::cuda);
  EXPECT_EQ(technique_language("tma"), Language::cuda);
}

TEST(KnownTechniques, HoppersTechniquesRefineTensorAndAsync) {
  EXPECT_EQ(refined_technique("wgmma"), "tensor");
  EXPECT_EQ(refined_technique("tma"), "async");
  for (std::string_view name : kCTechniques) EXPECT_FALSE(refined_technique(name)) << name;
  for (std::string_view name : {"smem", "tensor", "async"}) EXPECT_FALSE(refined_technique(name)) << name;
  // What a refinement refines is a technique of the same language, never itself refined.
  for (std::string_view name : kCudaTechniques)
    if (const auto refines = refined_technique(name)) {
      EXPECT_EQ(technique_language(*refines), Language::cuda);
      EXPECT_FALSE(refined_technique(*refines));
    }
}

TEST(KnownTechniques, CDetectionReportsTheCNamesInOrder) {
  TechniqueDescriptor all;
  all.openmp = all.avx512 = all.blocking = all.simd = true;
  EXPECT_EQ(technique_names(all), listed(kCTechniques));
}

TEST(KnownTechniques, SassDetectionReportsTheCudaNamesInOrder) {
  SassTechniques all;
  all.parsed = true;
  all.smem.count = all.tensor.count = all.async.count = all.wgmma.count = all.tma.count = 1;
  EXPECT_EQ(sass_technique_names(all), listed(kCudaTechniques));
}

}  // namespace
}  // namespace hpcreward::techniques
