#!/usr/bin/env bash
# On a Slurm node that offers its GPU as gres/gpu (tests/gpu/slurm-gpu.sh starts such a cluster):
# jobs/hpcreward.sbatch with --gres=gpu:1 over C and CUDA candidates in one file; SIGUSR1 once
# mid-run: the job requeues itself, resumes its log, and completes with every candidate logged
# exactly once, the CUDA rows from the GPU rank naming the GPU, the C rows from CPU ranks.
source "$(dirname "$0")/common.sh"
# Two rounds of the shipped C samples and of the GPU corpus's honest kernels at 1024^3.
"$PYTHON" - "$SAMPLES" "$REPO/tests/gpu/cases" "$RUN/candidates.jsonl" <<'PY'
import json, pathlib, sys
c_lines = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
cases = pathlib.Path(sys.argv[2])
cuda = [("naive_sgemm", "cuda-sgemm-1024"), ("smem_sgemm", "cuda-sgemm-1024"), ("async_sgemm", "cuda-sgemm-1024"),
        ("wmma_hgemm", "cuda-hgemm-1024"), ("naive_dgemm", "cuda-dgemm-1024")]
with open(sys.argv[3], "w") as out:
    for round_ in range(2):
        for line in c_lines:
            out.write(json.dumps(dict(line, id=f"r{round_}-{line['id']}", batch_id=f"r{round_}-{line['batch_id']}")) + "\n")
        for index, (case, problem) in enumerate(cuda):
            source = (cases / f"{case}.cu").read_text() + f"\n// round {round_}\n"
            out.write(json.dumps({"id": f"r{round_}-cuda-{index}-{case}", "batch_id": f"r{round_}-cuda",
                                  "problem": problem, "stage": "cuda-open", "source": source}) + "\n")
PY
submit -p bench -N 1 --ntasks-per-node=3 --gres=gpu:1 "$REPO/jobs/hpcreward.sbatch" \
  --out "$RUN/out" --candidates "$RUN/candidates.jsonl" --ladder "$DEMO_LADDER" --stop-grace 30
wait_rows 6 300
signal_requeue 1
wait_job "$JOB" 900
[ "$STATE" = COMPLETED ] && [ "$EXIT" = 0:0 ] || fail "the requeued job did not complete"
grep -q 'resuming its log' "$RUN/job.out" || fail "the requeued run did not resume the log"
check_once "$RUN/candidates.jsonl"
devices=$("$PYTHON" "$REPO/tests/slurm/check_log.py" devices "$RUN/out/rewards.h5")
say "rows per problem and device:"
echo "$devices" | sed 's/^/    /'
# Here-strings, not pipes into grep -q: its early exit would give the writer SIGPIPE (pipefail).
grep -E '^cuda-' <<< "$devices" | grep -v 'cuda:' > /dev/null && fail "a CUDA row names no GPU"
grep -qE '^cuda-.* cuda:0 ' <<< "$devices" || fail "no CUDA row from the GPU rank"
say "PASS"
