#!/usr/bin/env python3
"""Does the way a kernel is launched change its reward? On a machine with a GPU.

One shared-memory tiled SGEMM kernel, launched six ways from `matmul`, each scored REPS times
(distinct sources, interleaved) through `jobs/local.sh --np 0 --gpus 1` at 1024 and 4096:

  legacy       on the legacy default stream, matmul returns at once
  blocking     on a blocking stream of its own, returns at once
  nonblocking  on a non-blocking stream of its own, returns at once
  synced       on a non-blocking stream, synchronized before matmul returns
  two_streams  half the rows on each of two non-blocking streams, returns at once
  late         on the legacy stream after a host-side delay (about 0.1 ms of spinning)

The first five must read within 2% of `legacy` (median GFLOPS); `late` must not read faster
(within the same 2%). Threads and graphs are not among them: the source checks refuse
<thread> and the object audit refuses graph capture (tests/gpu/cases/graph_replay.cu).

  python3 tests/gpu/stream_independence.py --out DIR [--reps 6] [--gpu-arg ARG ...]

Exit 0 when every launch reads as the target says. DIR/streams.json keeps the table.
"""
import argparse
import json
import pathlib
import shutil
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from gpu_corpus import read_rows, run_pipeline  # noqa: E402

PROBLEMS = ("cuda-sgemm-1024", "cuda-sgemm-4096")
TOLERANCE = 0.02

KERNEL = r"""#include <cuda_runtime.h>
#define TILE 32
__global__ void tiled(int row0, int rows, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float As[TILE][TILE], Bs[TILE][TILE + 1];
  const int row = row0 + blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  const bool in_rows = row < row0 + rows;
  float sum = 0;
  for (int t = 0; t < k; t += TILE) {
    As[threadIdx.y][threadIdx.x] = (in_rows && t + threadIdx.x < k) ? A[(size_t)row * k + t + threadIdx.x] : 0.f;
    Bs[threadIdx.y][threadIdx.x] = (col < n && t + threadIdx.y < k) ? B[(size_t)(t + threadIdx.y) * n + col] : 0.f;
    __syncthreads();
    for (int p = 0; p < TILE; ++p) sum += As[threadIdx.y][p] * Bs[p][threadIdx.x];
    __syncthreads();
  }
  if (in_rows && col < n) C[(size_t)row * n + col] = sum;
}
static void launch(int row0, int rows, int n, int k, const float *A, const float *B, float *C, cudaStream_t s) {
  if (rows <= 0) return;
  dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  tiled<<<grid, block, 0, s>>>(row0, rows, n, k, A, B, C);
}
"""

LAUNCHES = {
    "legacy": "  launch(0, m, n, k, A, B, C, 0);",
    "blocking": """  static cudaStream_t s = nullptr;
  if (!s) cudaStreamCreate(&s);
  launch(0, m, n, k, A, B, C, s);""",
    "nonblocking": """  static cudaStream_t s = nullptr;
  if (!s) cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  launch(0, m, n, k, A, B, C, s);""",
    "synced": """  static cudaStream_t s = nullptr;
  if (!s) cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  launch(0, m, n, k, A, B, C, s);
  cudaStreamSynchronize(s);""",
    "two_streams": """  static cudaStream_t s[2] = {nullptr, nullptr};
  for (cudaStream_t &one : s)
    if (!one) cudaStreamCreateWithFlags(&one, cudaStreamNonBlocking);
  const int half = (m + 1) / 2;
  launch(0, half, n, k, A, B, C, s[0]);
  launch(half, m - half, n, k, A, B, C, s[1]);""",
    "late": """  volatile unsigned spin = 0;
  for (unsigned i = 0; i < 200000; ++i) spin = spin + i;
  launch(0, m, n, k, A, B, C, 0);""",
}


def source(launch, rep):
    return (f"// launched: {launch}, scoring {rep}\n" + KERNEL +
            'extern "C" void matmul(int m, int n, int k, const float *A, const float *B, float *C) {\n' +
            LAUNCHES[launch] + "\n}\n")


def lines(reps):
    out = []
    for rep in range(reps):
        for problem in PROBLEMS:
            for launch in LAUNCHES:
                out.append({"id": f"{launch}@{problem}#{rep}", "problem": problem, "stage": "cuda-open",
                            "batch_id": "streams", "source": source(launch, rep)})
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--reps", type=int, default=6)
    parser.add_argument("--gpu-arg", action="append", default=[])
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(args.out / "streams", ignore_errors=True)
    candidates = args.out / "streams.jsonl"
    candidates.write_text("".join(json.dumps(line) + "\n" for line in lines(args.reps)))
    rc, wall = run_pipeline(args.out / "streams", candidates, 0, args.gpu_arg)
    rows = read_rows(args.out / "streams" / "rewards.h5")
    failures = 0 if rc == 0 and len(rows) == args.reps * len(PROBLEMS) * len(LAUNCHES) else 1
    print(f"streams: local.sh exit {rc}, {len(rows)} rows, {wall:.0f} s")
    table = {}
    for problem in PROBLEMS:
        medians = {}
        for launch in LAUNCHES:
            mine = [r for r in rows if r["candidate_id"].startswith(f"{launch}@{problem}#")]
            bad = [f"{r['status']}: {r['reason'][:80]}" for r in mine if r["status"] != "ok"]
            if bad or not mine:
                failures += 1
                print(f"FAIL {problem} {launch}: {bad or 'no rows'}")
                continue
            gflops = [r["gflops"] for r in mine]
            medians[launch] = {"median_gflops": statistics.median(gflops), "min": min(gflops), "max": max(gflops),
                               "device": mine[0]["device"]}
        legacy = medians.get("legacy", {}).get("median_gflops")
        for launch, figures in medians.items():
            ratio = figures["median_gflops"] / legacy if legacy else float("nan")
            figures["ratio_to_legacy"] = ratio
            fine = ratio <= 1 + TOLERANCE if launch == "late" else abs(ratio - 1) <= TOLERANCE
            failures += not fine
            spread = (figures["max"] - figures["min"]) / figures["median_gflops"]
            print(f"{'ok  ' if fine else 'FAIL'} {problem:16s} {launch:12s} {figures['median_gflops']:9.1f} GFLOPS "
                  f"({ratio:.4f} x legacy; spread {spread:.2%} over {args.reps})")
        table[problem] = medians
    (args.out / "streams.json").write_text(json.dumps({"exit": rc, "wall_s": wall, "reps": args.reps,
                                                       "tolerance": TOLERANCE, "table": table}, indent=1))
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
