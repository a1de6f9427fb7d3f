// expect: forbidden   problem: cuda-sgemm-1024   stage: cuda-naive
// An L2 persistence window over B: the object audit refuses cudaStreamSetAttribute.
#include <cuda_runtime.h>
__global__ void naive(int m, int n, int k, const float *A, const float *B, float *C) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float sum = 0;
  for (int p = 0; p < k; ++p) sum += A[i * k + p] * B[p * n + j];
  C[i * n + j] = sum;
}
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  cudaStreamAttrValue value = {};
  value.accessPolicyWindow.base_ptr = const_cast<float *>(B);
  value.accessPolicyWindow.num_bytes = sizeof(float) * k * n;
  value.accessPolicyWindow.hitRatio = 1.0f;
  value.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  value.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  cudaStreamSetAttribute(0, cudaStreamAttributeAccessPolicyWindow, &value);
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  naive<<<grid, block>>>(m, n, k, A, B, C);
}
