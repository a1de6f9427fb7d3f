#pragma once
// cuBLAS in the GPU runner: the reference every candidate output is compared with, and the
// library GEMM that sets the GPU's ceiling (peak guard) and the fidelity benchmark's baseline.
#include <cublas_v2.h>

#include "common/problem.hpp"

namespace hpcreward::gpu {

class Cublas {
 public:
  Cublas();
  ~Cublas();
  Cublas(const Cublas &) = delete;
  Cublas &operator=(const Cublas &) = delete;

  // Row-major reference = A B and bound = |A| |B| (m x n), both in fp64 from A and B widened
  // to fp64 (exact for every precision): stricter than an fp32-accumulated reference, and
  // the problem's tolerances admit fp32 accumulation.
  void reference(Precision precision, const void *a, const void *b, int m, int n, int k,
                 double *reference_out, double *bound_out);

  // C = A B row-major in the problem's own precision, as a trainer would call cuBLAS:
  // DGEMM; SGEMM in full fp32 or (tf32) on TF32 tensor cores; HGEMM with fp32 accumulation.
  void gemm(Precision precision, const void *a, const void *b, void *c, int m, int n, int k,
            bool tf32 = false);
  // The same for a problem of any layout and batch (its strided-batched form for a batch).
  void gemm(Precision precision, const Layout &layout, const Shape &shape, const void *a, const void *b, void *c,
            bool tf32 = false);

 private:
  cublasHandle_t handle_ = nullptr;
};

}  // namespace hpcreward::gpu
