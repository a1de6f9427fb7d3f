// expect: ok   problem: cuda-sgemm-1024   stage: cuda-naive
// The driver's functions by pointer, as CuTe's TMA fetches cuTensorMapEncodeTiled: the audit
// allows cudaGetDriverEntryPointByVersion, so any driver function is within reach. This one
// uses what a candidate could want of them: a context of its own (cuCtxCreate) to run its
// kernel away from the executor's, a device-wide limit (cuCtxSetLimit: the persisting-L2
// set-aside the runtime's cudaDeviceSetLimit would set, which the audit refuses by name) and
// the primary context's flags. None reaches the measurer (another process, its own context and
// memory), and C is computed in the executor's context as the window requires: `ok` at a naive
// kernel's speed, with every row after it as expected.
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void naive(int m, int n, int k, const float *A, const float *B, float *C) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float sum = 0;
  for (int p = 0; p < k; ++p) sum += A[i * k + p] * B[p * n + j];
  C[i * n + j] = sum;
}

template <typename Function>
static Function driver(const char *name) {
  void *function = nullptr;
  cudaDriverEntryPointQueryResult found;
  if (cudaGetDriverEntryPointByVersion(name, &function, 12000, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess)
    return nullptr;
  return reinterpret_cast<Function>(function);
}

extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {
  using CtxGetCurrent = CUresult (*)(CUcontext *);
  using CtxCreate = CUresult (*)(CUcontext *, unsigned, CUdevice);
  using CtxSetCurrent = CUresult (*)(CUcontext);
  using CtxDestroy = CUresult (*)(CUcontext);
  using CtxSetLimit = CUresult (*)(CUlimit, size_t);
  static bool tried = false;
  if (!tried) {
    tried = true;
    const auto get_current = driver<CtxGetCurrent>("cuCtxGetCurrent");
    const auto create = driver<CtxCreate>("cuCtxCreate");
    const auto set_current = driver<CtxSetCurrent>("cuCtxSetCurrent");
    const auto destroy = driver<CtxDestroy>("cuCtxDestroy");
    const auto set_limit = driver<CtxSetLimit>("cuCtxSetLimit");
    CUcontext executor = nullptr, own = nullptr;
    if (get_current && create && set_current && destroy && get_current(&executor) == CUDA_SUCCESS &&
        create(&own, 0, 0) == CUDA_SUCCESS) {
      if (set_limit) set_limit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 64u << 20);
      naive<<<1, 1>>>(0, 0, 0, nullptr, nullptr, nullptr);  // a launch in its own context
      cudaDeviceSynchronize();
      set_current(executor);
      destroy(own);
    }
    if (set_limit) set_limit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 64u << 20);
  }
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  naive<<<grid, block>>>(m, n, k, A, B, C);
}
