// expect: wrong_answer   problem: cuda-sgemm-1024   stage: cuda-naive
// fp16 operands for an sgemm with the rows of A in 6 classes taken from the data, each class
// with its own exact power-of-two scaling of the inner dimension and its own fp16 copy of B
// (no more multiply work than one fp16 product, 6 conversions of B). On inputs whose exponents
// were one rank-one pattern (e(A_ip) = E x_i y_p) such a kernel passed every check with TF32's
// errors at 1.6x its speed; the inputs now have a pattern in several dimensions
// (bench_node/measure/input_values.hpp), which 6 classes cannot hold, and the residual
// check's single columns see what fp16 loses (simulated: tests/bench_node/fp16_range_test.cpp).
//
// The classes: each row's exponent profile ilogb(A_ip) less its mean over p; 6 rows far apart
// (farthest first: row 0, then the row farthest from those chosen); every row in the class of
// the nearest; a class's inner scaling its rounded mean profile. Then every row of A and
// column of the class's B scaled so its largest element sits in fp16's top binade.
#include <cuda_fp16.h>

#include <cfloat>

namespace {

constexpr int kClasses = 6;

__device__ int exponent_of(float v) { return v != 0.0f ? ilogbf(v) : -1000; }

__device__ __half saturated_half(float v) { return __float2half(fminf(fmaxf(v, -65504.0f), 65504.0f)); }

__global__ void profile_means(int m, int k, const float *A, float *mean) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  float sum = 0;
  for (int p = 0; p < k; ++p) sum += exponent_of(A[(size_t)i * k + p]) > -1000 ? ilogbf(A[(size_t)i * k + p]) : 0;
  mean[i] = sum / k;
}

__device__ float profile_distance(int k, const float *A, const float *mean, int i, int r) {
  float d = 0;
  for (int p = 0; p < k; ++p) {
    const float a = exponent_of(A[(size_t)i * k + p]) - mean[i], b = exponent_of(A[(size_t)r * k + p]) - mean[r];
    d += (a - b) * (a - b);
  }
  return d;
}

// nearest[i] = min(nearest[i], distance to row `seed`); cls[i] = g where that seed is nearer.
__global__ void nearer_seed(int m, int k, const float *A, const float *mean, int seed, int g, float *nearest,
                            int *cls) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const float d = profile_distance(k, A, mean, i, seed);
  if (g == 0 || d < nearest[i]) {
    nearest[i] = d;
    cls[i] = g;
  }
}

// inner[g * k + p] = rounded mean over the class's rows of the centred profile.
__global__ void class_inner(int m, int k, const float *A, const float *mean, const int *cls, int *inner) {
  int p = blockIdx.x * blockDim.x + threadIdx.x, g = blockIdx.y;
  if (p >= k) return;
  float sum = 0;
  int members = 0;
  for (int i = 0; i < m; ++i)
    if (cls[i] == g) {
      sum += exponent_of(A[(size_t)i * k + p]) - mean[i];
      ++members;
    }
  inner[g * k + p] = members ? __float2int_rn(sum / members) : 0;
}

__global__ void row_scale_kernel(int m, int k, const float *A, const int *cls, const int *inner, int *scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  int top = -100000;
  for (int p = 0; p < k; ++p)
    if (A[(size_t)i * k + p] != 0.0f) top = max(top, ilogbf(A[(size_t)i * k + p]) - inner[cls[i] * k + p]);
  scale[i] = 15 - top;
}

__global__ void col_scale_kernel(int k, int n, const float *B, const int *inner, int g, int *scale) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  int top = -100000;
  for (int p = 0; p < k; ++p)
    if (B[(size_t)p * n + j] != 0.0f) top = max(top, ilogbf(B[(size_t)p * n + j]) + inner[g * k + p]);
  scale[g * n + j] = 15 - top;
}

__global__ void half_a(int m, int k, const float *A, const int *cls, const int *inner, const int *scale, __half *H) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, p = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || p >= k) return;
  H[(size_t)i * k + p] = saturated_half(ldexpf(A[(size_t)i * k + p], scale[i] - inner[cls[i] * k + p]));
}

__global__ void half_b(int k, int n, const float *B, const int *inner, const int *scale, int g, __half *H) {
  int p = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= k || j >= n) return;
  H[(size_t)g * k * n + (size_t)p * n + j] =
      saturated_half(ldexpf(B[(size_t)p * n + j], inner[g * k + p] + scale[g * n + j]));
}

__global__ void half_gemm(int m, int n, int k, const __half *A, const __half *B, const int *cls,
                          const int *row_scale, const int *col_scale, float *C) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  const int g = cls[i];
  const __half *b = B + (size_t)g * k * n;
  float sum = 0;
  for (int p = 0; p < k; ++p) sum += __half2float(A[(size_t)i * k + p]) * __half2float(b[(size_t)p * n + j]);
  C[(size_t)i * n + j] = ldexpf(sum, -row_scale[i] - col_scale[g * n + j]);
}

}  // namespace

extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  float *mean = nullptr, *nearest = nullptr;
  int *ints = nullptr;
  __half *halves = nullptr;
  if (cudaMalloc(&mean, sizeof(float) * 2 * m) != cudaSuccess) return;
  nearest = mean + m;
  const size_t int_count = (size_t)m + (size_t)kClasses * k + m + (size_t)kClasses * n;
  if (cudaMalloc(&ints, sizeof(int) * int_count) != cudaSuccess) return;
  int *cls = ints, *inner = cls + m, *row_scale = inner + kClasses * k, *col_scale = row_scale + m;
  if (cudaMalloc(&halves, sizeof(__half) * ((size_t)m * k + (size_t)kClasses * k * n)) != cudaSuccess) return;
  __half *ha = halves, *hb = halves + (size_t)m * k;

  const int rows_blocks = (m + 127) / 128;
  profile_means<<<rows_blocks, 128>>>(m, k, A, mean);
  // Farthest first: seed 0 is row 0, each next seed the row farthest from the seeds so far.
  float *host_nearest = new float[m];
  int seed = 0;
  for (int g = 0; g < kClasses && g < m; ++g) {
    nearer_seed<<<rows_blocks, 128>>>(m, k, A, mean, seed, g, nearest, cls);
    cudaMemcpy(host_nearest, nearest, sizeof(float) * m, cudaMemcpyDeviceToHost);
    float farthest = -1;
    for (int i = 0; i < m; ++i)
      if (host_nearest[i] > farthest) {
        farthest = host_nearest[i];
        seed = i;
      }
  }
  delete[] host_nearest;
  class_inner<<<dim3((k + 127) / 128, kClasses), 128>>>(m, k, A, mean, cls, inner);
  row_scale_kernel<<<rows_blocks, 128>>>(m, k, A, cls, inner, row_scale);
  dim3 block(16, 16);
  for (int g = 0; g < kClasses; ++g) {
    col_scale_kernel<<<(n + 127) / 128, 128>>>(k, n, B, inner, g, col_scale);
    half_b<<<dim3((n + 15) / 16, (k + 15) / 16), block>>>(k, n, B, inner, col_scale, g, hb);
  }
  half_a<<<dim3((k + 15) / 16, (m + 15) / 16), block>>>(m, k, A, cls, inner, row_scale, ha);
  half_gemm<<<dim3((n + 15) / 16, (m + 15) / 16), block>>>(m, n, k, ha, hb, cls, row_scale, col_scale, C);
  cudaFree(halves);  // waits for the kernels above
  cudaFree(ints);
  cudaFree(mean);
}
