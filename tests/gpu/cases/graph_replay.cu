// expect: forbidden   problem: cuda-sgemm-1024   stage: cuda-naive
// Captures its work into a CUDA graph on the first call and replays it later: graph calls
// reach past the call and are refused by the audit.
#include <cuda_runtime.h>
__global__ void naive(int m, int n, int k, const float *A, const float *B, float *C) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float sum = 0;
  for (int p = 0; p < k; ++p) sum += A[i * k + p] * B[p * n + j];
  C[i * n + j] = sum;
}
extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  static cudaStream_t stream;
  static cudaGraphExec_t exec;
  if (!stream) cudaStreamCreate(&stream);
  if (!exec) {
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
    dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
    naive<<<grid, block, 0, stream>>>(m, n, k, A, B, C);
    cudaStreamEndCapture(stream, &graph);
    cudaGraphInstantiate(&exec, graph, 0);
  }
  cudaGraphLaunch(exec, stream);
}
