// What a prompt tells a CUDA candidate it may include (prompts/prompt_fields.cpp) is what the
// CUDA include table of its stage allows: a header the prompt names and the checks refuse
// would teach a model to earn `forbidden`.
#include <gtest/gtest.h>

#include <string>

#include "bench_node/checks/name_table.hpp"
#include "bench_node/cuda/cuda_include_policy.hpp"
#include "common/stage_libraries.hpp"
#include "prompts/prompt_fields.hpp"
#include "stages/builtin_ladder.hpp"

namespace hpcreward {
namespace {

// A family entry the prompt names ("cutlass/arch/*") stands for a header in it.
std::string concrete(std::string_view header) {
  std::string name(header);
  if (name.ends_with("/*")) name.replace(name.size() - 1, 1, "mma.h");
  return name;
}

TEST(PromptHeaders, EveryCudaHeaderAPromptNamesIsAllowedInItsStage) {
  const LadderConfig ladder = parse_ladder_config(builtin_ladder_json(), "default_ladder.json");
  int stages = 0;
  for (const StageSpec &stage : ladder.stages) {
    if (stage.language != Language::cuda) continue;
    const NameTable &table = cuda_source::cuda_include_table(cutlass_access(stage.libraries)).headers;
    for (std::string_view header : prompts::allowed_headers(Language::cuda, stage)) {
      const std::string name = concrete(header);
      EXPECT_FALSE(refusal_reason(table, name)) << stage.name << ": " << name;
      EXPECT_TRUE(allowed_name(table, name)) << stage.name << ": " << name;
    }
    ++stages;
  }
  EXPECT_EQ(stages, 8);
}

TEST(PromptHeaders, CuteIsOfferedOnlyWhereTheStageAllowsIt) {
  const LadderConfig ladder = parse_ladder_config(builtin_ladder_json(), "default_ladder.json");
  const NameTable &plain = cuda_source::cuda_include_table(CutlassAccess::none).headers;
  int offered = 0;
  for (std::string_view header : prompts::allowed_headers(Language::cuda, *ladder.find("cuda-cute")))
    if (refusal_reason(plain, concrete(header))) ++offered;
  EXPECT_GE(offered, 4) << "the CuTe headers, refused outside a CuTe stage";
  for (std::string_view header : prompts::allowed_headers(Language::cuda, *ladder.find("cuda-async")))
    EXPECT_FALSE(refusal_reason(plain, concrete(header))) << header;
}

}  // namespace
}  // namespace hpcreward
