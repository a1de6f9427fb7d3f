#!/usr/bin/env bash
# `scancel --signal=USR1` mid-run (what Slurm's time-limit warning or a preemption does): the
# coordinator drains and exits 75, the job requeues itself, resumes the log and completes,
# every candidate logged exactly once.
source "$(dirname "$0")/common.sh"
submit -p bench -N 1 --ntasks-per-node=3 "$REPO/jobs/hpcreward.sbatch" \
  --out "$RUN/out" --candidates "$SAMPLES" --ladder "$DEMO_LADDER" --stop-grace 30
wait_rows 6 240
rows_before=$(log_rows)
scancel --signal=USR1 "$JOB"
signalled=$SECONDS
say "scancel --signal=USR1 $JOB at $rows_before rows"
until [ "$(job_field "$JOB" Restarts)" -ge 1 ] 2>/dev/null; do
  [ $((SECONDS - signalled)) -lt 120 ] || fail "not requeued 120 s after SIGUSR1"
  sleep 0.5
done
say "requeued $((SECONDS - signalled)) s after the signal (log: $(log_rows) rows)"
wait_job "$JOB" 300
[ "$STATE" = COMPLETED ] && [ "$EXIT" = 0:0 ] || fail "the requeued job did not complete"
grep -q 'requeueing job' "$RUN/job.out" || fail "the output does not say it requeued"
grep -q 'resuming' "$RUN/job.out" || fail "the second run did not resume the log"
check_once "$SAMPLES"
say "PASS"
