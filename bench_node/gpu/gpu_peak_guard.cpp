#include "bench_node/gpu/gpu_ceilings.hpp"

#include <algorithm>

#include "common/number_text.hpp"

namespace hpcreward {

Measurement apply_gpu_peak_guard(Measurement measurement, Precision precision, const GpuCeilings &ceilings,
                                 double margin, int ceiling_size, Accumulation accumulation,
                                 const Yardsticks &at_shape) {
  const double ceiling = ceilings.of(precision);
  if (measurement.status != Status::ok || ceiling <= 0 || margin <= 0) return measurement;
  const double library_at_shape = std::max(at_shape.cublas, at_shape.cublaslt);
  const double fp16_accumulation =
      precision == Precision::f16 && accumulation == Accumulation::f16 ? kFp16AccumulationCeiling : 1;
  const double limit = margin * fp16_accumulation * std::max(ceiling, library_at_shape);
  if (measurement.gflops <= limit) return measurement;
  measurement.status = Status::forbidden;
  measurement.reason = "tampering detected: " + number_text(measurement.gflops) +
                       " GFLOPS is above this GPU's measured ceiling (cuBLAS " + std::string(to_string(precision)) +
                       " GEMM at " + std::to_string(ceiling_size) + "^3: " + number_text(ceiling) + " GFLOPS" +
                       (library_at_shape > ceiling
                            ? "; the libraries at this problem's shape, higher: " + number_text(library_at_shape) +
                                  " GFLOPS"
                            : std::string()) +
                       "; margin " + number_text(margin) +
                       (fp16_accumulation > 1 ? ", times " + number_text(fp16_accumulation) + " for fp16 accumulation" : "") +
                       ")";
  return measurement;
}

}  // namespace hpcreward
