// A probe, not built with the project (docs/reports/gpu-runs.md, two GPU ranks): how long a new
// process takes to create its CUDA context (what each candidate's executor does) and to be torn
// down, step by step, and what that does to calls timed on the same GPU meanwhile. On the GPU
// machine (tests/gpu/context_probe.sh runs the set the report quotes):
//   nvcc -O2 -std=c++17 -arch=sm_90 -o /opt/context_probe tests/gpu/context_probe.cu -lcublas
//   CUDA_VISIBLE_DEVICES=0 /opt/context_probe create 40      # median and p90 of 40 contexts, ms
//   CUDA_VISIBLE_DEVICES=0 /opt/context_probe steps 40       # each step's median; a line per child
//   CUDA_VISIBLE_DEVICES=0 /opt/context_probe churn 30       # `steps` for 30 s (lines only)
//   CUDA_VISIBLE_DEVICES=1 /opt/context_probe starts 30      # `churn` of processes that only start the driver
//   CUDA_VISIBLE_DEVICES=0 /opt/context_probe timed 8 spin1000   # a line per call (window, events)
//   CUDA_VISIBLE_DEVICES=1 /opt/context_probe busy 30        # kernels on GPU 1 for 30 s
// `steps`, `churn` and `starts` lines: fork, main, driver, context, allocation, kill, reaped
// (CLOCK_MONOTONIC ns; a `starts` child makes no context: its context and allocation are its
// driver's time), then the child's user and system CPU seconds. `timed` lines: the window's
// start (ns), the window (us: a 4 KiB copy in, the kernel, a device synchronize, a 4 KiB copy out)
// and the kernel's events (us). Kernels: spin50, spin1000 (2,000 and 40,000 dependent FMAs a
// thread; spin50 takes 16 us on an H200), copy
// (1 GiB read and written), sgemm (cuBLAS, 4096^3, fp32).
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

namespace {

std::int64_t now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return std::int64_t{t.tv_sec} * 1000000000 + t.tv_nsec;
}

double now_ms() { return now_ns() / 1e6; }

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

struct Steps {
  std::int64_t fork = 0, main = 0, driver = 0, context = 0, allocation = 0, kill = 0, reaped = 0;
  double user_s = 0, system_s = 0;
};

// The executor's order: the driver (cudaGetDeviceCount), the context (cudaSetDevice, cudaFree),
// then a first allocation; the child reports and waits, and is killed as a measurer kills it.
// `child_mode` "startchild": the driver only, as a spare executor waits before its set-up.
Steps one_child_in_steps(const char *self, const char *child_mode = "stepchild") {
  int report[2];
  if (pipe(report) != 0) std::exit(3);
  Steps steps;
  steps.fork = now_ns();
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(report[1], 3);
    execl(self, self, child_mode, static_cast<char *>(nullptr));
    _exit(127);
  }
  close(report[1]);
  std::int64_t got[4] = {};
  std::size_t have = 0;
  while (have < sizeof got) {
    const ssize_t n = read(report[0], reinterpret_cast<char *>(got) + have, sizeof got - have);
    if (n <= 0) break;
    have += static_cast<std::size_t>(n);
  }
  close(report[0]);
  steps.main = got[0], steps.driver = got[1], steps.context = got[2], steps.allocation = got[3];
  steps.kill = now_ns();
  kill(pid, SIGKILL);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  steps.reaped = now_ns();
  steps.user_s = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6;
  steps.system_s = usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
  return steps;
}

int step_child(bool driver_only) {
  std::int64_t at[4];
  at[0] = now_ns();
  int devices = 0;
  cudaGetDeviceCount(&devices);
  at[1] = at[2] = at[3] = now_ns();
  if (driver_only) {
    if (write(3, at, sizeof at) != static_cast<ssize_t>(sizeof at)) return 1;
    pause();
    return 0;
  }
  cudaSetDevice(0);
  cudaFree(nullptr);
  at[2] = now_ns();
  void *memory = nullptr;
  cudaMalloc(&memory, 64 << 20);
  at[3] = now_ns();
  if (write(3, at, sizeof at) != static_cast<ssize_t>(sizeof at)) return 1;
  pause();
  return 0;
}

void print_steps(const Steps &s) {
  std::printf("child %lld %lld %lld %lld %lld %lld %lld %.4f %.4f\n", static_cast<long long>(s.fork),
              static_cast<long long>(s.main), static_cast<long long>(s.driver), static_cast<long long>(s.context),
              static_cast<long long>(s.allocation), static_cast<long long>(s.kill), static_cast<long long>(s.reaped),
              s.user_s, s.system_s);
  std::fflush(stdout);
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void summarize_steps(const std::vector<Steps> &all) {
  std::vector<double> exec, driver, context, allocation, reaped, user, system;
  for (const Steps &s : all) {
    exec.push_back((s.main - s.fork) / 1e6);
    driver.push_back((s.driver - s.main) / 1e6);
    context.push_back((s.context - s.driver) / 1e6);
    allocation.push_back((s.allocation - s.context) / 1e6);
    reaped.push_back((s.reaped - s.kill) / 1e6);
    user.push_back(s.user_s * 1e3);
    system.push_back(s.system_s * 1e3);
  }
  std::fprintf(stderr,
               "steps: %zu children, medians ms: exec %.1f, driver %.1f, context %.1f, 64 MiB allocation %.1f, "
               "kill to reaped %.1f; CPU ms: user %.1f, system %.1f\n",
               all.size(), median_of(exec), median_of(driver), median_of(context), median_of(allocation),
               median_of(reaped), median_of(user), median_of(system));
}

__global__ void spin(float *x, int n) {
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int i = 0; i < n; ++i) v = v * 1.0000001f + 1e-7f;
  x[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

__global__ void copy(const float4 *from, float4 *to, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    to[i] = from[i];
}

// Calls timed as the harness's window and events time them, one line per call.
int timed(double seconds, const std::string &kind) {
  const std::size_t copy_floats = std::size_t{1} << 28;  // 1 GiB
  float *a = nullptr, *b = nullptr, *c = nullptr, *small = nullptr;
  cudaMalloc(&a, copy_floats * sizeof(float));
  cudaMalloc(&b, copy_floats * sizeof(float));
  cudaMalloc(&c, std::size_t{4096} * 4096 * sizeof(float));
  cudaMalloc(&small, 4096);
  cudaMemset(a, 0, copy_floats * sizeof(float));
  cublasHandle_t blas = nullptr;
  cublasCreate(&blas);
  std::vector<char> host(4096, 1);
  cudaEvent_t start, end;
  cudaEventCreate(&start);
  cudaEventCreate(&end);
  const int spin_blocks = 132 * 4;
  int spin_iterations = 0;
  if (kind == "spin50") spin_iterations = 2000;
  if (kind == "spin1000") spin_iterations = 40000;
  const float one = 1, zero = 0;
  auto call = [&] {
    if (spin_iterations > 0) spin<<<spin_blocks, 256>>>(a, spin_iterations);
    else if (kind == "copy") copy<<<132 * 8, 512>>>(reinterpret_cast<float4 *>(a), reinterpret_cast<float4 *>(b), copy_floats / 4);
    else cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, 4096, 4096, 4096, &one, a, 4096, b, 4096, &zero, c, 4096);
  };
  for (int i = 0; i < 20; ++i) call();
  cudaDeviceSynchronize();
  const std::int64_t until = now_ns() + static_cast<std::int64_t>(seconds * 1e9);
  while (now_ns() < until) {
    const std::int64_t opened = now_ns();
    cudaMemcpy(small, host.data(), host.size(), cudaMemcpyHostToDevice);
    cudaEventRecord(start, 0);
    call();
    cudaEventRecord(end, 0);
    cudaDeviceSynchronize();
    cudaMemcpy(host.data(), small, host.size(), cudaMemcpyDeviceToHost);
    const std::int64_t closed = now_ns();
    float ms = 0;
    cudaEventElapsedTime(&ms, start, end);
    std::printf("call %lld %.2f %.2f\n", static_cast<long long>(opened), (closed - opened) / 1e3, ms * 1e3);
  }
  const cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess) std::fprintf(stderr, "timed: %s\n", cudaGetErrorString(error));
  return error == cudaSuccess ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc >= 2 && std::strcmp(argv[1], "child") == 0) {
    cudaSetDevice(0);
    return cudaFree(nullptr) == cudaSuccess ? 0 : 1;
  }
  if (argc >= 2 && std::strcmp(argv[1], "stepchild") == 0) return step_child(false);
  if (argc >= 2 && std::strcmp(argv[1], "startchild") == 0) return step_child(true);
  if (argc < 3) {
    std::fprintf(stderr, "usage: context_probe create N | steps N | churn SECONDS | starts SECONDS | timed SECONDS KIND | busy SECONDS\n");
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
  if (std::strcmp(argv[1], "steps") == 0 || std::strcmp(argv[1], "churn") == 0 ||
      std::strcmp(argv[1], "starts") == 0) {
    const bool steps = std::strcmp(argv[1], "steps") == 0;
    const char *child_mode = std::strcmp(argv[1], "starts") == 0 ? "startchild" : "stepchild";
    const double until = now_ms() + amount * 1000;
    std::vector<Steps> all;
    for (int i = 0; steps ? i < static_cast<int>(amount) : now_ms() < until; ++i) {
      all.push_back(one_child_in_steps(argv[0], child_mode));
      print_steps(all.back());
    }
    if (!all.empty()) summarize_steps(all);
    return 0;
  }
  if (std::strcmp(argv[1], "timed") == 0) return timed(amount, argc > 3 ? argv[3] : "spin1000");
  const double until = now_ms() + amount * 1000;
  if (std::strcmp(argv[1], "busy") == 0) {
    float *x = nullptr;
    cudaMalloc(&x, 4096 * 1024 * sizeof(float));
    while (now_ms() < until) {
      for (int i = 0; i < 64; ++i) spin<<<4096, 1024>>>(x, 20000);
      cudaDeviceSynchronize();
    }
    return 0;
  }
  std::fprintf(stderr, "context_probe: unknown mode %s\n", argv[1]);
  return 2;
}
