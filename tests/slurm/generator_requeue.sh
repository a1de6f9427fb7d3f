#!/usr/bin/env bash
# The default source (the built-in generator) requeued mid-run by the batch shell's SIGUSR1
# (`scancel --batch --signal=USR1`, as the time-limit warning): the served pipeline drains and
# exits 75, the job requeues, and the generator goes on with its search from its report
# (--resume, a new seed) until the search has the 40 evaluations asked for; no id is logged
# twice. The log holds those 40 and the rows of a round cut off before its report was written
# (at most one batch of 16).
source "$(dirname "$0")/common.sh"
submit -p bench -N 1 --ntasks-per-node=3 "$REPO/jobs/hpcreward.sbatch" --out "$RUN/out" --evaluations 40
wait_rows 18 240
signal_requeue 1 --batch
wait_job "$JOB" 400
[ "$STATE" = COMPLETED ] && [ "$EXIT" = 0:0 ] || fail "the requeued generator run did not complete"
rows=$(log_rows)
[ "$rows" -ge 40 ] && [ "$rows" -le 56 ] || fail "expected 40 rows, and at most a cut-off batch of 16 more; the log holds $rows"
"$PYTHON" "$REPO/tests/slurm/check_log.py" unique "$RUN/out/rewards.h5" || fail "a candidate id was logged twice"
grep -q -- '--resume' "$RUN/job.out" || fail "the requeued generator did not go on with its search"
grep -q 'dgemm-256: goes on from ' "$RUN/job.out" || fail "the requeued generator did not restore its report"
"$PYTHON" - "$RUN/out/generator.json" <<'PY' || fail "the generator's report did not go on to 40 evaluations"
import json, sys
report = json.load(open(sys.argv[1]))
print("generator evaluations:", report["evaluations"], "earlier runs:", report["earlier_runs"])
assert report["evaluations"] == 40 and report["earlier_runs"] and report["seed"] > 1
PY
say "PASS ($rows rows)"
