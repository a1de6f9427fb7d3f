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
  switch (precision) {
    case Precision::f64: {
      const double one = 1, zero = 0;
      cublas_call(cublasDgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one,
                              static_cast<const double *>(b), n, static_cast<const double *>(a), k,
                              &zero, static_cast<double *>(c), n),
                  "cublasDgemm");
      break;
    }
    case Precision::f32: {
      const float one = 1, zero = 0;
      cublas_call(cublasSetMathMode(handle_, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH),
                  "cublasSetMathMode");
      cublas_call(cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one,
                              static_cast<const float *>(b), n, static_cast<const float *>(a), k, &zero,
                              static_cast<float *>(c), n),
                  "cublasSgemm");
      cublas_call(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
      break;
    }
    case Precision::f16:
    case Precision::bf16: {
      // 16-bit operands and output, fp32 accumulation.
      const cudaDataType type = precision == Precision::f16 ? CUDA_R_16F : CUDA_R_16BF;
      const float one = 1, zero = 0;
      cublas_call(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, type, n, a, type, k, &zero, c,
                               type, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                  precision == Precision::f16 ? "cublasGemmEx (HGEMM, fp32 accumulation)"
                                              : "cublasGemmEx (bf16, fp32 accumulation)");
      break;
    }
  }
}

}  // namespace hpcreward::gpu
