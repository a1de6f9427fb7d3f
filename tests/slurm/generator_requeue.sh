#!/usr/bin/env bash
# The default source (the built-in generator) requeued mid-run by the batch shell's SIGUSR1
# (`scancel --batch --signal=USR1`, as the time-limit warning): the served pipeline drains and
# exits 75, the job requeues, and the generator starts again (a new seed) for the evaluations
# the log does not hold; the run ends with exactly the evaluations asked for, no id twice.
source "$(dirname "$0")/common.sh"
submit -p bench -N 1 --ntasks-per-node=3 "$REPO/jobs/hpcreward.sbatch" --out "$RUN/out" --evaluations 40
wait_rows 18 240
signal_requeue 1 --batch
wait_job "$JOB" 400
[ "$STATE" = COMPLETED ] && [ "$EXIT" = 0:0 ] || fail "the requeued generator run did not complete"
[ "$(log_rows)" -eq 40 ] || fail "expected the 40 evaluations asked for, the log holds $(log_rows)"
"$PYTHON" "$REPO/tests/slurm/check_log.py" unique "$RUN/out/rewards.h5" || fail "a candidate id was logged twice"
grep -q -- '--seed 2' "$RUN/job.out" || fail "the requeued generator did not start a new search"
say "PASS"
