#!/usr/bin/env bash
# Misconfiguration fails the job at once, before any rank starts, with what to fix: an
# unknown ladder, executables that are not there, a run directory that cannot be made, too
# few tasks, an option local.sh has but Slurm decides.
source "$(dirname "$0")/common.sh"
expect_refusal() {  # expect_refusal WHAT MESSAGE-PATTERN [env VAR=VALUE...] -- SBATCH-ARGS...
  local what=$1 pattern=$2
  shift 2
  local environment=()
  while [ "$1" != "--" ]; do environment+=("$1"); shift; done
  shift
  rm -f "$RUN/job.out"
  local start=$SECONDS
  JOB=$(cd "$RUN" && env "${environment[@]}" sbatch --parsable --output="$RUN/job.out" "$@") || fail "sbatch refused: $*"
  JOBS+=("$JOB")
  wait_job "$JOB" 60
  [ "$STATE" = FAILED ] && [ "$EXIT" = 2:0 ] || fail "$what: expected exit 2, got $STATE $EXIT"
  grep -q "$pattern" "$RUN/job.out" || fail "$what: the output does not say '$pattern': $(cat "$RUN/job.out")"
  ! grep -q 'starting the pipeline step' "$RUN/job.out" || fail "$what: a step started"
  say "$what: refused in $((SECONDS - start)) s: $(grep -m1 'error:' "$RUN/job.out")"
}
sbatch_script=$REPO/jobs/hpcreward.sbatch
expect_refusal "unknown ladder" "unknown ladder" -- -p bench -N 1 -n 2 "$sbatch_script" \
  --out "$RUN/a" --candidates "$SAMPLES" --ladder "$RUN/no-such-ladder.json"
echo '{"not": "a ladder"}' >"$RUN/bad-ladder.json"
expect_refusal "invalid ladder" "not a ladder file" -- -p bench -N 1 -n 2 "$sbatch_script" \
  --out "$RUN/a" --candidates "$SAMPLES" --ladder "$RUN/bad-ladder.json"
expect_refusal "missing executables" "HPCREWARD_BIN" HPCREWARD_BIN="$RUN/no-bin" -- -p bench -N 1 -n 2 "$sbatch_script" \
  --out "$RUN/b" --candidates "$SAMPLES"
touch "$RUN/a-file"
expect_refusal "run directory that cannot be made" "cannot create the run directory" -- -p bench -N 1 -n 2 "$sbatch_script" \
  --out "$RUN/a-file/out" --candidates "$SAMPLES"
expect_refusal "one task" "at least one benchmark rank" -- -p bench -N 1 -n 1 "$sbatch_script" \
  --out "$RUN/c" --candidates "$SAMPLES"
expect_refusal "--np under Slurm" "the allocation sets the ranks" -- -p bench -N 1 -n 2 "$sbatch_script" \
  --out "$RUN/d" --np 4
say "PASS"
