// expect: wrong_answer   problem: cuda-sgemm-1024   stage: cuda-naive
// fp16 operands for an sgemm, made to fit fp16's range by exact powers of two: each row of A
// and each column of B is scaled so its largest element is near 2^14, converted to __half,
// multiplied with fp32 accumulation, and the scales taken out again. fp16's 10-bit mantissa is
// TF32's, so on inputs whose exponents are separable by row and column (2^-20 .. 2^20 per row
// and column, as they once were) every check passed, at 2.27x the TF32 kernel's speed. The
// inputs now have an exponent pattern no row or column scaling can bring into fp16's range
// (bench_node/measure/input_values.hpp): what fp16 loses fails the residual check.
#include <cuda_fp16.h>

// 2^e with e chosen so that `largest` * 2^e is in [2^13, 2^14): exact, and far from fp16's max.
__device__ float fitting_scale(float largest) {
  if (largest == 0.0f) return 1.0f;
  int exponent;
  frexpf(largest, &exponent);  // largest = f * 2^exponent, f in [0.5, 1)
  return ldexpf(1.0f, 14 - exponent);
}

__global__ void row_scales(int m, int k, const float *A, float *scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  float largest = 0;
  for (int p = 0; p < k; ++p) largest = fmaxf(largest, fabsf(A[i * k + p]));
  scale[i] = fitting_scale(largest);
}

__global__ void column_scales(int k, int n, const float *B, float *scale) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  float largest = 0;
  for (int p = 0; p < k; ++p) largest = fmaxf(largest, fabsf(B[p * n + j]));
  scale[j] = fitting_scale(largest);
}

__global__ void to_half(int rows, int cols, const float *X, const float *row_scale, const float *col_scale,
                        __half *H) {
  int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows || c >= cols) return;
  float s = row_scale ? row_scale[r] : col_scale[c];
  H[r * cols + c] = __float2half(X[r * cols + c] * s);
}

__global__ void half_gemm(int m, int n, int k, const __half *A, const __half *B, const float *row_scale,
                          const float *col_scale, float *C) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float sum = 0;
  for (int p = 0; p < k; ++p) sum += __half2float(A[i * k + p]) * __half2float(B[p * n + j]);
  C[i * n + j] = sum / (row_scale[i] * col_scale[j]);
}

extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  float *scales = nullptr;
  __half *halves = nullptr;
  if (cudaMalloc(&scales, sizeof(float) * (m + n)) != cudaSuccess) return;
  if (cudaMalloc(&halves, sizeof(__half) * ((size_t)m * k + (size_t)k * n)) != cudaSuccess) return;
  float *row_scale = scales, *col_scale = scales + m;
  __half *a = halves, *b = halves + (size_t)m * k;
  row_scales<<<(m + 127) / 128, 128>>>(m, k, A, row_scale);
  column_scales<<<(n + 127) / 128, 128>>>(k, n, B, col_scale);
  dim3 block(16, 16);
  to_half<<<dim3((k + 15) / 16, (m + 15) / 16), block>>>(m, k, A, row_scale, nullptr, a);
  to_half<<<dim3((n + 15) / 16, (k + 15) / 16), block>>>(k, n, B, nullptr, col_scale, b);
  half_gemm<<<dim3((n + 15) / 16, (m + 15) / 16), block>>>(m, n, k, a, b, row_scale, col_scale, C);
  cudaFree(halves);  // waits for the kernels above
  cudaFree(scales);
}
