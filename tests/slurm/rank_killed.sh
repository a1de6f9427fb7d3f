#!/usr/bin/env bash
# `kill -9` of one benchmark rank mid-run: Open MPI ends the step, the job script restarts it
# with --resume, the run completes, every candidate logged exactly once.
source "$(dirname "$0")/common.sh"
submit -p bench -N 1 --ntasks-per-node=3 "$REPO/jobs/hpcreward.sbatch" \
  --out "$RUN/out" --candidates "$SAMPLES" --ladder "$DEMO_LADDER"
wait_rows 6 240
victim=$(bench_pid "$JOB")
[ -n "$victim" ] || fail "no benchmark rank of job $JOB found"
kill -KILL "$victim"
say "kill -9 of benchmark rank pid $victim at $(log_rows) rows"
wait_until 120 "a step restart after the kill" grep -q 'restart 1 of' "$RUN/job.out"
say "step restarted $WAITED s after the kill"
wait_job "$JOB" 300
[ "$STATE" = COMPLETED ] && [ "$EXIT" = 0:0 ] || fail "the job did not complete after the restart"
[ "$(wc -l <"$RUN/out/step-restarts.log")" -eq 1 ] || fail "expected one restart in step-restarts.log"
check_once "$SAMPLES"
say "PASS"
