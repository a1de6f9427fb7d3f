# Sourced by the Slurm tests: the cluster tests/slurm/slurm-cluster.sh started (its directory
# in SLURM_TEST_CLUSTER), job submission and waiting, the log checks, and cleanup by pid of
# every process a test's jobs left behind (without cgroups Slurm can lose some).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
: "${SLURM_TEST_CLUSTER:?the cluster directory (the ctest fixture sets it)}"
: "${HPCREWARD_BIN:?the folder of the built executables}"
export HPCREWARD_BIN
PYTHON=${HPCREWARD_PYTHON:-python3}  # with h5py
export HPCREWARD_PYTHON=$PYTHON
if [ ! -s "$SLURM_TEST_CLUSTER/env.sh" ]; then
  echo "SKIP: no Slurm cluster: $(cat "$SLURM_TEST_CLUSTER/skipped" 2>/dev/null || echo 'slurm-cluster.sh start did not run')"
  exit 77
fi
source "$SLURM_TEST_CLUSTER/env.sh"
TEST_NAME=${TEST_NAME:-$(basename "$0" .sh)}
RUN=${SLURM_TEST_RUNS:?where the runs go}/$TEST_NAME
rm -rf "$RUN"
mkdir -p "$RUN"
JOBS=()
T0=$SECONDS

say() { printf '[%4d s] %s\n' $((SECONDS - T0)) "$*"; }
fail() {
  say "FAIL: $*"
  for job in "${JOBS[@]}"; do
    scontrol show job "$job" 2>/dev/null | grep -E 'JobState|ExitCode|Restarts' | sed 's/^/    /' || true
    [ -e "$RUN/job.out" ] && tail -40 "$RUN/job.out" | sed 's/^/    | /'
  done
  exit 1
}
log_rows() { "$PYTHON" "$REPO/tests/slurm/check_log.py" rows "$RUN/out/rewards.h5" 2>/dev/null || echo 0; }

# Every process of the test's jobs, found by SLURM_JOB_ID in its environment.
job_pids() {
  local job=$1 pid
  # grep reads all of tr's output (not -q): under pipefail tr's SIGPIPE would hide a match.
  for pid in $(pgrep -f 'hpcreward|slurmstepd|srun|python3' 2>/dev/null); do
    if { tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null | grep -x "SLURM_JOB_ID=$job" >/dev/null; then echo "$pid"; fi
  done
}
cleanup() {
  for job in "${JOBS[@]}"; do
    scancel --full "$job" 2>/dev/null || true
    sleep 1
    for pid in $(job_pids "$job"); do kill -KILL "$pid" 2>/dev/null || true; done
  done
}
trap cleanup EXIT

# submit [sbatch options and script and its options]: records the job id in JOB.
submit() {
  JOB=$(cd "$RUN" && sbatch --parsable --output="$RUN/job.out" "$@") || fail "sbatch refused: $*"
  JOB=${JOB%%;*}
  JOBS+=("$JOB")
  say "submitted job $JOB: sbatch $*"
}
job_field() { scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
# wait_job JOB SECONDS: until the job has ended (not requeued, not pending); sets STATE, EXIT.
wait_job() {
  local job=$1 limit=$2 start=$SECONDS
  while :; do
    STATE=$(job_field "$job" JobState)
    case "$STATE" in
      COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE) break ;;
    esac
    [ $((SECONDS - start)) -lt "$limit" ] || fail "job $job still $STATE after $limit s"
    sleep 1
  done
  EXIT=$(job_field "$job" ExitCode)
  say "job $job ended: $STATE, exit $EXIT, restarts $(job_field "$job" Restarts)"
}
# wait_until SECONDS WHAT COMMAND...: until COMMAND succeeds; sets WAITED (seconds).
wait_until() {
  local limit=$1 what=$2 start=$SECONDS
  shift 2
  until "$@" 2>/dev/null; do
    [ $((SECONDS - start)) -lt "$limit" ] || fail "$what: not after $limit s"
    sleep 0.5
  done
  WAITED=$((SECONDS - start))
}
# wait_rows N SECONDS: until the run's log holds at least N rows.
wait_rows() {
  local want=$1 limit=$2 start=$SECONDS
  until [ "$(log_rows)" -ge "$want" ]; do
    [ $((SECONDS - start)) -lt "$limit" ] || fail "the log holds $(log_rows) rows after $limit s, not $want"
    sleep 0.5
  done
  say "the log holds $(log_rows) rows"
}
# The pid of one benchmark rank of the job: a hpcreward-bench that slurmstepd started (not a
# rank's own child between fork and exec, which has the same name), the last one.
bench_pid() {
  local job=$1 pid parent
  for pid in $(pgrep -x hpcreward-bench 2>/dev/null); do
    parent=$(ps -o comm= -p "$(ps -o ppid= -p "$pid" 2>/dev/null | tr -d ' ')" 2>/dev/null || true)
    [ "$parent" = slurmstepd ] || continue
    if { tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null | grep -x "SLURM_JOB_ID=$job" >/dev/null; then echo "$pid"; fi
  done | tail -1
}
# signal_requeue RESTARTS [SCANCEL-OPTIONS...]: SIGUSR1 to the job (its steps; with --batch its
# batch shell), then until Slurm has requeued it RESTARTS times in all.
signal_requeue() {
  local restarts=$1
  shift
  scancel "$@" --signal=USR1 "$JOB"
  say "scancel${*:+ $*} --signal=USR1 $JOB at $(log_rows) rows"
  requeued() { [ "$(job_field "$JOB" Restarts)" -ge "$restarts" ]; }
  wait_until 120 "requeue $restarts after SIGUSR1" requeued
  say "requeued $WAITED s after the signal (log: $(log_rows) rows)"
}
check_once() {
  "$PYTHON" "$REPO/tests/slurm/check_log.py" exactly-once "$RUN/out/rewards.h5" "$1" || fail "not exactly once"
}
# A candidate file of the shipped samples: 31 candidates, the demo ladder climbs with them.
SAMPLES=$REPO/train_bridge/samples/dgemm-256.jsonl
DEMO_LADDER=$REPO/stages/demo_ladder.json
