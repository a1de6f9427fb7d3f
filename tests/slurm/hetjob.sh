#!/usr/bin/env bash
# The heterogeneous job with the built-in generator as the trainer (component 0 on the
# `train` partition) and the pipeline (component 1 on `bench`): they meet through the
# rendezvous file, the run climbs at least one stage, and the job exits 0 when the trainer ends.
source "$(dirname "$0")/common.sh"
submit -p train -N 1 -n 1 : -p bench -N 1 --ntasks-per-node=3 "$REPO/jobs/hpcreward-hetjob.sbatch" \
  --out "$RUN/out" --evaluations 48
wait_job "$JOB" 420
[ "$STATE" = COMPLETED ] && [ "$EXIT" = 0:0 ] || fail "the heterogeneous job did not complete"
rows=$(log_rows)
events=$("$PYTHON" "$REPO/tests/slurm/check_log.py" stage-events "$RUN/out/rewards.h5")
say "$rows rows, $events stage events"
[ "$rows" -ge 48 ] || fail "expected at least 48 rows"
[ "$events" -ge 1 ] || fail "the run climbed no stage"
grep -q 'trainer ended (exit 0)' "$RUN/job.out" || fail "the job output does not say the trainer ended"
[ ! -e "$RUN/out/coordinator.json" ] || fail "the rendezvous outlived the run"
say "PASS"
