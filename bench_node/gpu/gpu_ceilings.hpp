#pragma once
// A GPU rank's ceilings (cuBLAS at the largest problem size, measured by its probe child at
// start) and the peak guard on them: an ok result above margin x the ceiling of its precision
// is a broken clock or a gamed measurement, never a fast kernel.
#include "common/messages.hpp"
#include "common/problem.hpp"

namespace hpcreward {

struct GpuCeilings {
  double f64 = 0, f32 = 0, f16 = 0, bf16 = 0;  // GFLOPS; f32 is the better of SGEMM and TF32 SGEMM
  double f32_fp32 = 0;  // SGEMM without tensor cores: what "a fraction of cuBLAS SGEMM" is quoted against
  double of(Precision precision) const {
    switch (precision) {
      case Precision::f64: return f64;
      case Precision::f32: return f32;
      case Precision::f16: return f16;
      case Precision::bf16: return bf16;
    }
    return 0;
  }
};

// An ok measurement above margin x the ceiling becomes forbidden: the larger of
// ceilings.of(precision) and the library yardsticks the rank measured at the problem's own shape
// (`at_shape`, with the GPU idle, before the task ran; never a figure of the candidate's run).
// cuBLAS at 8192^3 runs at the power limit and can read below cuBLAS at a smaller shape, where
// the harness's calls start from idle (one H200: ceilings of 621.6 to 644.7 TFLOPS, cuBLAS 782.6
// at 8192x4096x12288), so the lowest ceiling alone held honest kernels there to 0.99x cuBLAS.
// A ceiling of 0 (not measured) or a margin of 0 disables the guard. The f16 ceiling is cuBLAS's HGEMM with fp32
// accumulation; a problem that allows fp16 accumulation (Accumulation::f16) is held to twice it
// (kFp16AccumulationCeiling): GPUs whose tensor cores accumulate fp32 at half rate run fp16
// accumulation at twice it (GeForce parts, by NVIDIA's figures; A100, H100 and H200 at the same).
inline constexpr double kFp16AccumulationCeiling = 2;
Measurement apply_gpu_peak_guard(Measurement measurement, Precision precision, const GpuCeilings &ceilings,
                                 double margin, int ceiling_size, Accumulation accumulation = Accumulation::f32,
                                 const Yardsticks &at_shape = {});

}  // namespace hpcreward
