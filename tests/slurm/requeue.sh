#!/usr/bin/env bash
# SIGUSR1 mid-run, twice: first `scancel --signal=USR1` (the step's tasks: the coordinator gets
# it directly), then `scancel --batch --signal=USR1` (the batch shell, as Slurm's
# --signal=B:USR1@N time-limit warning does; the shell passes it to the step). Each time the
# coordinator drains and exits 75, the job requeues itself, resumes the log; in the end it
# completes with every candidate logged exactly once.
source "$(dirname "$0")/common.sh"
# Three rounds of the shipped samples (93 candidates), so the run outlasts two requeues.
"$PYTHON" - "$SAMPLES" "$RUN/candidates.jsonl" <<'PY'
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
with open(sys.argv[2], "w") as out:
    for round_ in range(3):
        for line in lines:
            out.write(json.dumps(dict(line, id=f"r{round_}-{line['id']}", batch_id=f"r{round_}-{line['batch_id']}")) + "\n")
PY
submit -p bench -N 1 --ntasks-per-node=3 "$REPO/jobs/hpcreward.sbatch" \
  --out "$RUN/out" --candidates "$RUN/candidates.jsonl" --ladder "$DEMO_LADDER" --stop-grace 30
requeue_and_resume() {  # requeue_and_resume RESTARTS SCANCEL-OPTIONS...
  local restarts=$1
  signal_requeue "$@"
  running() { [ "$(job_field "$JOB" JobState)" = RUNNING ] && grep -q "restart count $restarts" "$RUN/job.out"; }
  wait_until 120 "the requeued job running again" running
  say "running again $WAITED s later"
}
wait_rows 6 240
requeue_and_resume 1
wait_rows $(( $(log_rows) + 8 )) 240
requeue_and_resume 2 --batch
wait_job "$JOB" 400
[ "$STATE" = COMPLETED ] && [ "$EXIT" = 0:0 ] || fail "the requeued job did not complete"
[ "$(grep -c 'requeueing job' "$RUN/job.out")" -eq 2 ] || fail "the output does not say it requeued twice"
[ "$(grep -c 'resuming its log' "$RUN/job.out")" -eq 2 ] || fail "the requeued runs did not resume the log"
check_once "$RUN/candidates.jsonl"
say "PASS"
