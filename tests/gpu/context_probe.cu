// A probe, not built with the project (docs/reports/gpu-runs.md, two GPU ranks): how long a new
// process takes to create its CUDA context (what each candidate's executor does) alone, and
// while something else runs on the host's other GPU or CPUs. On the GPU machine:
//   nvcc -O2 -std=c++17 -arch=sm_90 -o /tmp/context_probe tests/gpu/context_probe.cu
//   CUDA_VISIBLE_DEVICES=0 /tmp/context_probe create 40     # median and p90 of 40 contexts, ms
//   CUDA_VISIBLE_DEVICES=1 /tmp/context_probe busy 30       # kernels on GPU 1 for 30 s
//   CUDA_VISIBLE_DEVICES=1 /tmp/context_probe churn 30      # contexts made and torn down on GPU 1 for 30 s
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A child that creates its context and exits (its teardown included in the parent's view).
double one_context(const char *self) {
  const double start = now_ms();
  const pid_t pid = fork();
  if (pid == 0) {
    execl(self, self, "child", static_cast<char *>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return now_ms() - start;
}

__global__ void spin(float *x, int n) {
  float v = x[threadIdx.x];
  for (int i = 0; i < n; ++i) v = v * 1.0000001f + 1e-7f;
  x[threadIdx.x] = v;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc >= 2 && std::strcmp(argv[1], "child") == 0) {
    cudaSetDevice(0);
    return cudaFree(nullptr) == cudaSuccess ? 0 : 1;
  }
  if (argc < 3) {
    std::fprintf(stderr, "usage: context_probe create N | busy SECONDS | churn SECONDS\n");
    return 2;
  }
  const double amount = std::atof(argv[2]);
  if (std::strcmp(argv[1], "create") == 0) {
    std::vector<double> ms;
    for (int i = 0; i < static_cast<int>(amount); ++i) ms.push_back(one_context(argv[0]));
    std::sort(ms.begin(), ms.end());
    std::printf("contexts: %zu, median %.1f ms, p90 %.1f ms, least %.1f ms\n", ms.size(), ms[ms.size() / 2],
                ms[ms.size() * 9 / 10], ms.front());
    return 0;
  }
  const double until = now_ms() + amount * 1000;
  if (std::strcmp(argv[1], "busy") == 0) {
    float *x = nullptr;
    cudaMalloc(&x, 1024 * sizeof(float));
    while (now_ms() < until) {
      for (int i = 0; i < 64; ++i) spin<<<4096, 1024>>>(x, 20000);
      cudaDeviceSynchronize();
    }
    return 0;
  }
  int made = 0;
  while (now_ms() < until) one_context(argv[0]), ++made;
  std::printf("churn: %d contexts\n", made);
  return 0;
}
