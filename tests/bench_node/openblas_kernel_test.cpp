// Which OpenBLAS kernels a rank runs, and the warning when they are not the CPU's best.
#include "bench_node/measure/openblas_kernel.hpp"

#include <gtest/gtest.h>

#include "common/messages_json.hpp"

namespace hpcreward {
namespace {

TEST(OpenBlasKernel, CoreNamesByTheirWidestIsa) {
  EXPECT_EQ(isa_name(openblas_core_isa("Prescott")), "SSE");
  EXPECT_EQ(isa_name(openblas_core_isa("Sandybridge")), "AVX");
  EXPECT_EQ(isa_name(openblas_core_isa("Haswell")), "AVX2");
  EXPECT_EQ(isa_name(openblas_core_isa("HASWELL")), "AVX2") << "OPENBLAS_CORETYPE's spelling";
  EXPECT_EQ(isa_name(openblas_core_isa("Zen")), "AVX2");
  EXPECT_EQ(isa_name(openblas_core_isa("SkylakeX")), "AVX-512");
  EXPECT_EQ(openblas_core_isa("NewCore2031"), -1);
}

TEST(OpenBlasKernel, SseKernelsOnAnAvx512CpuWarnAndSayWhatForcedThem) {
  OpenBlasKernel kernel{.core = "Prescott", .core_isa = openblas_core_isa("Prescott"),
                        .cpu_isa = openblas_core_isa("SkylakeX"), .forced_by = "PRESCOTT"};
  EXPECT_EQ(kernel.warning(),
            "OpenBLAS runs its Prescott kernels (SSE) on a CPU with AVX-512: its yardsticks read low, so fraction "
            "and speedup rewards read high (OPENBLAS_CORETYPE=PRESCOTT forces them: unset it)");
  kernel.forced_by = "";
  EXPECT_NE(kernel.warning().find("a build without this CPU's kernels?"), std::string::npos);
}

TEST(OpenBlasKernel, TheCpusBestKernelsOrAnUnknownNameSayNothing) {
  EXPECT_EQ((OpenBlasKernel{.core = "SkylakeX", .core_isa = 3, .cpu_isa = 3}).warning(), "");
  EXPECT_EQ((OpenBlasKernel{.core = "Haswell", .core_isa = 2, .cpu_isa = 2}).warning(), "");
  EXPECT_EQ((OpenBlasKernel{.core = "NewCore2031", .core_isa = -1, .cpu_isa = 3}).warning(), "");
}

TEST(OpenBlasKernel, ThisProcessNamesItsKernels) {
  const OpenBlasKernel here = openblas_kernel_here();
  EXPECT_FALSE(here.core.empty());
  EXPECT_GE(here.cpu_isa, 0);
}

TEST(OpenBlasKernel, TheRankTellsTheCoordinatorWhichTheLogKeeps) {
  RankInfo info;
  info.blas_warning = (OpenBlasKernel{.core = "Prescott", .core_isa = 0, .cpu_isa = 3}).warning();
  EXPECT_EQ(nlohmann::json(info).get<RankInfo>().blas_warning, info.blas_warning);
  nlohmann::json older = nlohmann::json(info);
  older.erase("blas_warning");  // a rank built before the field
  EXPECT_EQ(older.get<RankInfo>().blas_warning, "");
}

}  // namespace
}  // namespace hpcreward
