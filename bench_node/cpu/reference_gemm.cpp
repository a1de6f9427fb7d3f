#include "bench_node/cpu/reference_gemm.hpp"

#include <cblas.h>

namespace hpcreward {

void reference_gemm(const Shape &s, const double *a, const double *b, double *c) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s.m, s.n, s.k, 1.0, a, s.k, b, s.n, 0.0,
              c, s.n);
}

void reference_gemm(const Shape &s, const float *a, const float *b, float *c) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s.m, s.n, s.k, 1.0f, a, s.k, b, s.n, 0.0f,
              c, s.n);
}

std::string blas_version() {
  const char *config = openblas_get_config();
  return config != nullptr ? std::string(config) : std::string("OpenBLAS (configuration unknown)");
}

}  // namespace hpcreward
