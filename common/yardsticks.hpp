#pragma once
// What a candidate's GFLOPS are compared with: the libraries' GEMM at the candidate's own
// problem (shape, layout, batch, precision), measured once per rank and problem on the rank
// that scores it (docs/problems.md, yardsticks). 0: not measured there (OpenBLAS on GPU
// ranks, cuBLAS on CPU ranks, or a measurement that failed).
#include <optional>
#include <string>
#include <string_view>

namespace hpcreward {

struct Yardsticks {
  double openblas = 0;  // CPU ranks: OpenBLAS with the rank's threads
  double cublas = 0;    // GPU ranks: cuBLAS's GEMM (TF32 tensor cores allowed for f32, as the problem allows)
  double cublaslt = 0;  // GPU ranks: the fastest of cuBLASLt's heuristic algorithms, each timed

  double best() const;  // the largest of them; 0 when none was measured
  // By name ("openblas", "cublas", "cublaslt"); nullopt for another name.
  std::optional<double> named(std::string_view name) const;
  bool operator==(const Yardsticks &) const = default;
};

// The names named() knows, comma-separated, for messages.
std::string yardstick_names();

}  // namespace hpcreward
