#!/usr/bin/env bash
# `kill -STOP` of one benchmark rank: the coordinator quarantines it within its deadline
# (task limit 30 s: compile 10 s + run 10 s + 10 s of checks; margin 5 s), its candidate goes to another
# rank, the run completes, the quarantine is in the log.
source "$(dirname "$0")/common.sh"
submit -p bench -N 1 --ntasks-per-node=3 "$REPO/jobs/hpcreward.sbatch" \
  --out "$RUN/out" --candidates "$SAMPLES" --ladder "$DEMO_LADDER" --rank-deadline-margin-s 5 \
  -- --compile-timeout 10 --run-timeout 10
wait_rows 4 240
victim=$(bench_pid "$JOB")
[ -n "$victim" ] || fail "no benchmark rank of job $JOB found"
kill -STOP "$victim"
say "kill -STOP of benchmark rank pid $victim at $(log_rows) rows"
stop_victim() { kill -KILL "$victim" 2>/dev/null || true; cleanup; }
trap stop_victim EXIT
quarantined() { [ -n "$("$PYTHON" "$REPO/tests/slurm/check_log.py" quarantined "$RUN/out/rewards.h5")" ]; }
wait_until 90 "a quarantine in the log after SIGSTOP" quarantined
took=$WAITED
# Its deadline is 35 s after its last answer (at most 35 s after the stop), plus the
# coordinator's poll and this loop's.
[ "$took" -le 45 ] || fail "quarantined $took s after SIGSTOP: later than its 35 s deadline"
say "quarantined $took s after SIGSTOP: $("$PYTHON" "$REPO/tests/slurm/check_log.py" quarantined "$RUN/out/rewards.h5")"
wait_job "$JOB" 300
[ "$STATE" = COMPLETED ] && [ "$EXIT" = 0:0 ] || fail "the job did not complete"
grep -q '"outcome": *"complete"' "$RUN/out/coordinator.outcome.json" || fail "outcome is not complete: $(cat "$RUN/out/coordinator.outcome.json")"
check_once "$SAMPLES"
if kill -0 "$victim" 2>/dev/null; then fail "the stopped rank $victim outlived its job"; fi
say "PASS"
