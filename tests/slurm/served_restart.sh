#!/usr/bin/env bash
# A served run (the built-in generator, a client of the pipeline through the rendezvous) whose
# step loses a rank (`kill -9`): the script restarts the step, the new coordinator listens on
# another port with another token, the generator's client follows coordinator.json there and
# sends its batch again by id; the run ends with the evaluations asked for, no candidate
# logged twice, and exit 0.
source "$(dirname "$0")/common.sh"
submit -p bench -N 1 --ntasks-per-node=3 "$REPO/jobs/hpcreward.sbatch" --out "$RUN/out" --evaluations 64
wait_rows 20 240
before=$(cat "$RUN/out/coordinator.json")
victim=$(bench_pid "$JOB")
[ -n "$victim" ] || fail "no benchmark rank of job $JOB found"
kill -KILL "$victim"
say "kill -9 of benchmark rank pid $victim at $(log_rows) rows"
wait_until 120 "a step restart after the kill" grep -q 'restart 1 of' "$RUN/job.out"
moved() { [ -s "$RUN/out/coordinator.json" ] && [ "$(cat "$RUN/out/coordinator.json")" != "$before" ]; }
wait_until 120 "a new rendezvous" moved
say "the restarted coordinator serves $WAITED s after the step restart: $(tr -d '\n ' <"$RUN/out/coordinator.json")"
wait_job "$JOB" 400
[ "$STATE" = COMPLETED ] && [ "$EXIT" = 0:0 ] || fail "the served job did not complete after the restart"
"$PYTHON" "$REPO/tests/slurm/check_log.py" unique "$RUN/out/rewards.h5" || fail "a candidate was logged twice"
[ "$(log_rows)" -ge 64 ] || fail "expected at least 64 rows, the log holds $(log_rows)"
"$PYTHON" - "$RUN/out/generator.json" <<'PY' || fail "the generator's report"
import json, sys
report = json.load(open(sys.argv[1]))
print("generator evaluations:", report.get("evaluations"))
PY
say "PASS"
