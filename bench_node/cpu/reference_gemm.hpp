#pragma once
// The trusted result: C = A * B by OpenBLAS (row-major, A m x k, B k x n).
#include <string>

#include "common/problem.hpp"

namespace hpcreward {

void reference_gemm(const Shape &shape, const double *a, const double *b, double *c);
void reference_gemm(const Shape &shape, const float *a, const float *b, float *c);

// OpenBLAS's build description (openblas_get_config()), for provenance.
std::string blas_version();

}  // namespace hpcreward
