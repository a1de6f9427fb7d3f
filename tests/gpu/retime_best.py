#!/usr/bin/env python3
"""Re-times the generator's best CUDA kernels outside the pipeline. On a machine with a GPU.

For each report (DIR/generator-cuda.json of a CUDA search), its best kernel's source is compiled
with nvcc beside a plain driver: its own CUDA context, the problem's n x n x n operands (uniform
in [-1, 1)), and an nvbench-style cold measurement of each call (L2 flushed by a memset of twice
its size, start and end events on the legacy stream, the host idle 2 ms before each call so
that power recovers as between the pipeline's calls), median of REPS. No sandbox, no checks:
run only kernels the generator wrote. The pipeline's reward is honest when the two agree.

  python3 tests/gpu/retime_best.py [--reps 30] [--tolerance 0.05] REPORT.json...

Prints one line per report; exit 0 when every kernel's re-timed GFLOPS are within TOLERANCE of
the reward (or above it: a re-timing that reads faster means the pipeline under-rewarded).
"""
import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

TYPES = {"dgemm": "double", "sgemm": "float", "hgemm": "__half"}

DRIVER = r"""#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>
typedef %(type)s T;
extern "C" void matmul(int m, int n, int k, const T *A, const T *B, T *C);
__global__ void fill(T *x, size_t count, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed;
    h ^= h >> 15; h *= 2246822519u; h ^= h >> 13;
    x[i] = (T)((float)(h & 0xffffff) / 8388608.0f - 1.0f);
  }
}
#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
  std::fprintf(stderr, "%%s: %%s\n", #call, cudaGetErrorString(e)); return 1; } } while (0)
int main(int argc, char **argv) {
  const int n = %(n)d, reps = %(reps)d;
  const size_t count = (size_t)n * n;
  T *A, *B, *C;
  CHECK(cudaMalloc(&A, count * sizeof(T)));
  CHECK(cudaMalloc(&B, count * sizeof(T)));
  CHECK(cudaMalloc(&C, count * sizeof(T)));
  fill<<<1024, 256>>>(A, count, 1u);
  fill<<<1024, 256>>>(B, count, 2u);
  int l2 = 0;
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  void *flush;
  CHECK(cudaMalloc(&flush, 2 * (size_t)l2));
  cudaEvent_t start, end;
  cudaEventCreate(&start);
  cudaEventCreate(&end);
  matmul(n, n, n, A, B, C);  // warm-up: module load, the kernel's first launch
  CHECK(cudaDeviceSynchronize());
  std::vector<float> ms(reps);
  for (int r = 0; r < reps; ++r) {
    cudaMemsetAsync(flush, r, 2 * (size_t)l2);
    CHECK(cudaDeviceSynchronize());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    cudaEventRecord(start, 0);
    matmul(n, n, n, A, B, C);
    cudaEventRecord(end, 0);
    CHECK(cudaEventSynchronize(end));
    cudaEventElapsedTime(&ms[r], start, end);
  }
  CHECK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  const double median_s = ms[reps / 2] * 1e-3;
  std::printf("%%.3f\n", 2.0 * n * n * (double)n / median_s * 1e-9);
  return 0;
}
"""


def retime(report: dict, nvcc: str, arch: str, reps: int, work: pathlib.Path) -> float:
    match = re.fullmatch(r"cuda-(dgemm|sgemm|hgemm)-(\d+)", report["problem"])
    if not match:
        raise ValueError(f"not a CUDA GEMM problem: {report['problem']}")
    kernel = work / "kernel.cu"
    kernel.write_text(report["best"]["source"])
    driver = work / "driver.cu"
    driver.write_text(DRIVER % {"type": TYPES[match.group(1)], "n": int(match.group(2)), "reps": reps})
    binary = work / "retime"
    subprocess.run([nvcc, "-O3", f"-arch={arch}", "-std=c++17", str(driver), str(kernel), "-o", str(binary)],
                   check=True, capture_output=True, text=True)
    result = subprocess.run([str(binary)], check=True, capture_output=True, text=True, timeout=300)
    return float(result.stdout.strip())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("reports", nargs="+", type=pathlib.Path)
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--tolerance", type=float, default=0.05)
    parser.add_argument("--nvcc", default=os.environ.get("NVCC", "nvcc"))
    parser.add_argument("--arch", default="native", help="nvcc -arch (default: the GPU here)")
    args = parser.parse_args()
    failures = 0
    for path in args.reports:
        report = json.loads(path.read_text())
        reward = report["best"]["gflops"]
        with tempfile.TemporaryDirectory(prefix="hpcreward-retime-") as work:
            try:
                gflops = retime(report, args.nvcc, args.arch, args.reps, pathlib.Path(work))
            except (subprocess.CalledProcessError, ValueError) as error:
                print(f"FAIL {path}: {getattr(error, 'stderr', '') or error}".strip())
                failures += 1
                continue
        ratio = gflops / reward
        ok = ratio >= 1 - args.tolerance
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {report['problem']:16s} {report['best']['label']:28s} "
              f"reward {reward:10.1f} GFLOPS  re-timed {gflops:10.1f}  ({ratio:.3f} x)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
