#!/usr/bin/env bash
# The built-in generator's CUDA search on each named problem of a catalog, in the open stage
# (every technique), one GPU rank, in
# reward mode fraction; prints per problem its yardsticks (the log's columns), the search's best
# GFLOPS, stage and reward. For docs/reports (the problems, their yardsticks and the
# generator's best); needs a built tree (HPCREWARD_BIN) and a GPU.
#   tests/gpu/catalog_search.sh OUT CATALOG EVALUATIONS DEADLINE_S PROBLEM...
# Problems not started before DEADLINE_S seconds have passed are left out (and said so).
set -uo pipefail
out=$1 catalog=$2 evaluations=$3 deadline=$4
shift 4
repo=$(cd "$(dirname "$0")/../.." && pwd)
start=$SECONDS
for problem in "$@"; do
  if [ $((SECONDS - start)) -ge "$deadline" ]; then echo "$problem: left out (past ${deadline} s)"; continue; fi
  "$repo/jobs/local.sh" --np 0 --gpus 1 --problems "$catalog" --problem "$problem" --reward-mode fraction --cuda-stage cuda-open \
    --cuda-evaluations "$evaluations" --out "$out/$problem" > "$out/$problem.console.log" 2>&1
  python3 - "$out/$problem/rewards.h5" "$problem" <<'PY'
import sys, h5py
rows = h5py.File(sys.argv[1], "r", swmr=True)["rewards"][()]
ok = rows[rows["status"] == b"ok"]
best = ok[ok["gflops"].argmax()] if len(ok) else None
print(f"{sys.argv[2]}: {len(rows)} rows, {len(ok)} ok; cuBLAS {rows['cublas_gflops'].max():.0f}, "
      f"cuBLASLt {rows['cublaslt_gflops'].max():.0f} GFLOPS; best "
      + (f"{best['gflops']:.0f} GFLOPS in {best['stage'].decode()} (reward {best['reward']:.3f})" if best is not None else "none"))
PY
done
