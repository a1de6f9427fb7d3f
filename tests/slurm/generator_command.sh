#!/usr/bin/env bash
# The job scripts' generator command (jobs/lib/slurm-run.sh, hpc_generator_command), without
# Slurm: a C search alone without GPU ranks; a C and a CUDA search when the step has GPU ranks
# and CPU ranks; the CUDA search alone (and the coordinator's default problem) when every
# benchmark task is a GPU rank; on a resumed log (after a requeue), each search whose problem the
# log does not hold its evaluations of goes on from its report (--resume) to its total, under
# seed 1 + the rows logged.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
python=${HPCREWARD_PYTHON:-python3}
bin=${HPCREWARD_BIN:-$repo/build/bin}  # hpcreward-problems, for another catalog's problems
dir=$(mktemp -d /tmp/hpcreward-generator-command-XXXXXX)
trap 'rm -rf "$dir"' EXIT
failures=0
check() {  # check DESCRIPTION ACTUAL PATTERN (grep -E), or ! PATTERN for "must not match"
  local what=$1 actual=$2 pattern=$3 negate=0
  if [ "${pattern:0:2}" = "! " ]; then negate=1; pattern=${pattern:2}; fi
  if grep -qE -- "$pattern" <<<"$actual"; then found=1; else found=0; fi
  if [ "$found" -ne "$negate" ]; then echo "ok: $what"; else
    echo "FAIL: $what: '$actual' $([ "$negate" -eq 1 ] && echo matches || echo lacks) '$pattern'"; failures=$((failures + 1)); fi
}
command_for() {  # command_for GPU_RANKS BENCH_TASKS [OPTIONS...]: the generator command, then the coordinator's args
  (
    HPCREWARD_REPO=$repo HPC_SCRIPT=test HPC_HETJOB=0 HPCREWARD_PYTHON=$python
    source "$repo/jobs/lib/slurm-run.sh"
    HPC_GPU_RANK_COUNT=$1 HPC_BENCH_TASKS=$2
    shift 2
    hpc_parse_options --out "$dir/out" "$@"
    HPC_OUT=$dir/out HPC_BIN=$bin
    mkdir -p "$HPC_OUT"
    if hpc_other_catalog; then hpc_read_catalog; fi
    hpc_generator_command
    echo
    hpc_write_rank_args
    tr '\0' ' ' <"$HPC_OUT/.step/coordinator.args"
  )
}
out=$(command_for 0 3)
check "no GPU ranks: the C search alone" "$out" "--problem dgemm-256 --evaluations 160 --out $dir/out/generator.json"
check "no GPU ranks: no CUDA search" "$out" "! cuda"
check "a new log: seed 1, new searches" "$out" "--seed 1 .*--out [^ ]*generator.json$"
out=$(command_for 2 4 --evaluations 40 --cuda-evaluations 30)
check "GPU and CPU ranks: both searches" "$out" \
  "--problem dgemm-256 --evaluations 40 --out $dir/out/generator.json --cuda-problem cuda-sgemm-4096 --cuda-evaluations 30 --cuda-out $dir/out/generator-cuda.json"
check "GPU and CPU ranks: the coordinator keeps its default problem" "$out" "! coordinator .*--problem"
out=$(command_for 1 1 --cuda-problem cuda-hgemm-1024)
check "GPU ranks alone: the CUDA search alone" "$out" \
  "--problem cuda-hgemm-1024 --evaluations 160 --out $dir/out/generator-cuda.json"
check "GPU ranks alone: the coordinator's default problem is the CUDA one" "$out" "hpcreward-coordinator .*--problem cuda-hgemm-1024"
out=$(command_for 1 1 --cuda-problem cuda-hgemm-1024 --cuda-stage cuda-tensor)
check "GPU ranks alone, a pinned stage: the CUDA search's --stage" "$out" "--problem cuda-hgemm-1024 .*--stage cuda-tensor"
out=$(command_for 1 3 --cuda-stage cuda-async)
check "both searches, a pinned CUDA stage: --cuda-stage" "$out" "--cuda-out [^ ]* --cuda-stage cuda-async"
# Another catalog: the problem's language from the catalog, which the generator reads whole.
out=$(command_for 0 3 --problems gemm-kinds --problem dgemm-tt-batched-8x128 --evaluations 24)
check "another catalog, a C problem: the C search with the catalog" "$out" \
  "--problem dgemm-tt-batched-8x128 --evaluations 24 --out $dir/out/generator.json --problems-json $dir/out/problems.json"
check "another catalog: the catalog written for the generator" "$(cat "$dir/out/problems.json")" "\"id\": \"dgemm-tt-batched-8x128\""
out=$(command_for 1 1 --problems gemm-kinds --problem cuda-sgemm-nt-4096 --cuda-evaluations 20)
check "another catalog, a CUDA problem on GPU ranks alone: the CUDA search" "$out" \
  "--problem cuda-sgemm-nt-4096 --evaluations 20 --out $dir/out/generator-cuda.json --problems-json"
check "another catalog, a CUDA problem: the coordinator's default problem" "$out" "hpcreward-coordinator .*--problem cuda-sgemm-nt-4096"
out=$(command_for 1 3 --problems gemm-kinds --problem sgemm-nt-256 --cuda-problem cuda-bf16-nt-4096)
check "another catalog, both searches" "$out" "--problem sgemm-nt-256 .*--cuda-problem cuda-bf16-nt-4096 .*--problems-json"
out=$( (command_for 0 3 --problems gemm-kinds) 2>&1 || true)
check "another catalog without --problem: refused with what to give" "$out" "needs --problem ID"
out=$( (command_for 0 3 --problems gemm-kinds --problem nope) 2>&1 || true)
check "another catalog, an unknown problem: refused" "$out" "--problem nope is not a problem of gemm-kinds"
out=$( (command_for 1 3 --problems gemm-kinds --problem sgemm-nt-256 --cuda-problem dgemm-256) 2>&1 || true)
check "another catalog, a C problem as --cuda-problem: refused" "$out" "--cuda-problem dgemm-256 is a C problem"
rm -rf "$dir/out"

# A log holding 25 rows of dgemm-256 and 30 of cuda-sgemm-4096 (as after a requeue).
mkdir -p "$dir/out"
"$python" - "$dir/out/rewards.h5" <<'PY'
import sys, h5py, numpy as np
rows = np.array([(b"dgemm-256",)] * 25 + [(b"cuda-sgemm-4096",)] * 30, dtype=[("problem", "S32")])
with h5py.File(sys.argv[1], "w") as log:
    log["rewards"] = rows
PY
out=$(HPC_RESUME=1 SLURM_RESTART_COUNT=1 command_for 1 3 --evaluations 40 --cuda-evaluations 50)
check "after a requeue: both searches go on to their totals, seed 1 + the 55 rows logged" "$out" \
  "--seed 56 --problem dgemm-256 --evaluations 40 .* --cuda-evaluations 50 .* --resume$"
out=$(HPC_RESUME=1 command_for 1 3 --evaluations 40 --cuda-evaluations 50)
check "a job submitted again (restart count 0): the same new seed" "$out" "--seed 56 .* --resume$"
out=$(HPC_RESUME=1 command_for 1 3 --evaluations 25 --cuda-evaluations 50)
check "the C search done: the CUDA search goes on alone" "$out" \
  "--problem cuda-sgemm-4096 --evaluations 50 --out $dir/out/generator-cuda.json --resume$"
out=$(HPC_RESUME=1 command_for 1 3 --evaluations 25 --cuda-evaluations 30)
check "both done: no generator" "$(head -1 <<<"$out")" "^$"
[ "$failures" -eq 0 ]
