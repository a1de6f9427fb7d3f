#include "bench_node/gpu/cublas_reference.hpp"

#include <cuda_fp16.h>

#include <stdexcept>
#include <string>

#include "bench_node/gpu/cuda_call.hpp"
#include "bench_node/gpu/device_kernels.hpp"
#include "bench_node/gpu/device_memory.hpp"

namespace hpcreward::gpu {

namespace {

void cublas_call(cublasStatus_t status, const char *what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": " + cublasGetStatusString(status));
}

}  // namespace

Cublas::Cublas() { cublas_call(cublasCreate(&handle_), "cublasCreate"); }

Cublas::~Cublas() {
  if (handle_ != nullptr) cublasDestroy(handle_);
}

// Row-major C (m x n) = A (m x k) B (k x n) is column-major C^T = B^T A^T: cuBLAS computes
// an n x m product of B (n x k, leading dimension n) and A (k x m, leading dimension k).
void Cublas::reference(Precision precision, const void *a, const void *b, int m, int n, int k,
                       double *reference_out, double *bound_out) {
  DeviceMemory a64(sizeof(double) * static_cast<std::size_t>(m) * k);
  DeviceMemory b64(sizeof(double) * static_cast<std::size_t>(k) * n);
  const double one = 1, zero = 0;
  for (bool absolute : {false, true}) {
    widen(precision, a, a64.as<double>(), static_cast<std::size_t>(m) * k, absolute);
    widen(precision, b, b64.as<double>(), static_cast<std::size_t>(k) * n, absolute);
    cublas_call(cublasDgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b64.as<double>(), n,
                            a64.as<double>(), k, &zero, absolute ? bound_out : reference_out, n),
                "cublasDgemm (reference)");
  }
}

void Cublas::gemm(Precision precision, const void *a, const void *b, void *c, int m, int n, int k,
                  bool tf32) {
  gemm(precision, Layout{}, Shape{m, n, k}, a, b, c, tf32);
}

// Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: B (k x n row-major, or
// n x k given transposed) comes first, with its own operation and leading dimension.
void Cublas::gemm(Precision precision, const Layout &layout, const Shape &s, const void *a, const void *b, void *c,
                  bool tf32) {
  const cublasOperation_t op_b = layout.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = layout.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int ldb = layout.transpose_b ? s.k : s.n, lda = layout.transpose_a ? s.m : s.k, ldc = s.n;
  const long long stride_a = static_cast<long long>(a_elements(s)), stride_b = static_cast<long long>(b_elements(s)),
                  stride_c = static_cast<long long>(c_elements(s));
  const bool batched = s.batch > 1;
  switch (precision) {
    case Precision::f64: {
      const double one = 1, zero = 0;
      const auto *A = static_cast<const double *>(a), *B = static_cast<const double *>(b);
      auto *C = static_cast<double *>(c);
      cublas_call(batched ? cublasDgemmStridedBatched(handle_, op_b, op_a, s.n, s.m, s.k, &one, B, ldb, stride_b, A,
                                                      lda, stride_a, &zero, C, ldc, stride_c, s.batch)
                          : cublasDgemm(handle_, op_b, op_a, s.n, s.m, s.k, &one, B, ldb, A, lda, &zero, C, ldc),
                  "cublasDgemm");
      break;
    }
    case Precision::f32: {
      const float one = 1, zero = 0;
      const auto *A = static_cast<const float *>(a), *B = static_cast<const float *>(b);
      auto *C = static_cast<float *>(c);
      cublas_call(cublasSetMathMode(handle_, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH),
                  "cublasSetMathMode");
      cublas_call(batched ? cublasSgemmStridedBatched(handle_, op_b, op_a, s.n, s.m, s.k, &one, B, ldb, stride_b, A,
                                                      lda, stride_a, &zero, C, ldc, stride_c, s.batch)
                          : cublasSgemm(handle_, op_b, op_a, s.n, s.m, s.k, &one, B, ldb, A, lda, &zero, C, ldc),
                  "cublasSgemm");
      cublas_call(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
      break;
    }
    case Precision::f16:
    case Precision::bf16: {
      // 16-bit operands and output, fp32 accumulation.
      const cudaDataType type = precision == Precision::f16 ? CUDA_R_16F : CUDA_R_16BF;
      const float one = 1, zero = 0;
      const char *what = precision == Precision::f16 ? "cublasGemmEx (HGEMM, fp32 accumulation)"
                                                     : "cublasGemmEx (bf16, fp32 accumulation)";
      cublas_call(batched ? cublasGemmStridedBatchedEx(handle_, op_b, op_a, s.n, s.m, s.k, &one, b, type, ldb, stride_b,
                                                       a, type, lda, stride_a, &zero, c, type, ldc, stride_c, s.batch,
                                                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)
                          : cublasGemmEx(handle_, op_b, op_a, s.n, s.m, s.k, &one, b, type, ldb, a, type, lda, &zero, c,
                                         type, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                  what);
      break;
    }
  }
}

}  // namespace hpcreward::gpu
