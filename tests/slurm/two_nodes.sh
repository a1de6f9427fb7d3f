#!/usr/bin/env bash
# jobs/hpcreward.sbatch over 2 nodes with a JSON Lines file: every candidate logged once,
# rows from benchmark ranks on both nodes.
source "$(dirname "$0")/common.sh"
submit -p bench -N 2 --ntasks-per-node=2 "$REPO/jobs/hpcreward.sbatch" \
  --out "$RUN/out" --candidates "$SAMPLES" --ladder "$DEMO_LADDER"
wait_job "$JOB" 300
[ "$STATE" = COMPLETED ] && [ "$EXIT" = 0:0 ] || fail "job did not complete"
check_once "$SAMPLES"
hosts=$("$PYTHON" "$REPO/tests/slurm/check_log.py" hosts "$RUN/out/rewards.h5" | paste -sd' ')
say "benchmark rows from hosts: $hosts"
[ "$hosts" = "n2 n3" ] || fail "expected rows from ranks on n2 and n3, got '$hosts'"
say "PASS"
