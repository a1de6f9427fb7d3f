# Sourced by jobs/hpcreward.sbatch and jobs/hpcreward-hetjob.sbatch (after locate-repo.sh):
# option parsing, checks that fail at once, the MPI step (coordinator + benchmark ranks,
# jobs/lib/rank.sh per task), its restarts after a lost rank, and the requeue on SIGUSR1.
#
# The coordinator's verdict comes from DIR/coordinator.outcome.json, not from srun's exit
# status: when the coordinator ends a step that holds a hung rank (MPI_Abort), or a rank is
# killed, srun's status says little. No outcome file means the step died: restart it.

HPC_OUTCOME_COMPLETE=0
HPC_OUTCOME_CONFIG=2
HPC_OUTCOME_NO_RANKS=3
HPC_OUTCOME_STOPPED=75
# The Python with h5py (the generator, the log's row count): HPCREWARD_PYTHON, else python3.
HPC_PYTHON=${HPCREWARD_PYTHON:-python3}

hpc_say() { printf '%s %s: %s\n' "$(date '+%F %T')" "$HPC_SCRIPT" "$*"; }
hpc_die() {
  local code=$1
  shift
  printf '%s %s: error: %s\n' "$(date '+%F %T')" "$HPC_SCRIPT" "$*" >&2
  exit "$code"
}

# ---- options: jobs/local.sh's, less the rank counts (the allocation decides those) ----
hpc_parse_options() {
  HPC_OUT=""
  HPC_CANDIDATES=""
  HPC_EVALUATIONS=160
  HPC_PROBLEM=""
  HPC_PROBLEMS=""
  HPC_CUDA_PROBLEM=""
  HPC_CUDA_EVALUATIONS=160
  HPC_CUDA_STAGE=""
  HPC_SERVE=0
  HPC_LADDER=""
  HPC_RESUME_ASKED=0
  HPC_MAX_RESTARTS=${HPCREWARD_MAX_RESTARTS:-3}
  HPC_STOP_GRACE=${HPCREWARD_STOP_GRACE_S:-120}
  HPC_TRAINER_CMD=${TRAINER_CMD:-}
  HPC_GPU_RANKS=${HPCREWARD_GPU_RANKS:-auto}
  HPC_COORDINATOR_ARGS=()
  HPC_BENCH_ARGS=()
  HPC_GPU_ARGS=()
  local listen_given=0
  while [ $# -gt 0 ]; do
    case "$1" in
      --out) HPC_OUT=$2; shift 2 ;;
      --candidates) HPC_CANDIDATES=$2; shift 2 ;;
      --evaluations) HPC_EVALUATIONS=$2; shift 2 ;;
      --serve) HPC_SERVE=1; shift ;;
      --ladder) HPC_LADDER=$2; shift 2 ;;
      --resume) HPC_RESUME_ASKED=1; shift ;;
      --listen) listen_given=1; HPC_COORDINATOR_ARGS+=("$1" "$2"); shift 2 ;;
      --problem) HPC_PROBLEM=$2; HPC_COORDINATOR_ARGS+=("$1" "$2"); shift 2 ;;
      --problems) HPC_PROBLEMS=$2; HPC_COORDINATOR_ARGS+=("$1" "$2"); shift 2 ;;
      --cuda-problem) HPC_CUDA_PROBLEM=$2; shift 2 ;;
      --cuda-evaluations) HPC_CUDA_EVALUATIONS=$2; shift 2 ;;
      --cuda-stage) HPC_CUDA_STAGE=$2; shift 2 ;;
      --max-request-bytes|--max-batch-candidates|--stage|--seed|--config|--tls-cert|--tls-key|--rank-deadline-margin-s|--reward-mode)
        HPC_COORDINATOR_ARGS+=("$1" "$2"); shift 2 ;;
      --gpu-arg) HPC_GPU_ARGS+=("$2"); shift 2 ;;
      --gpu-ranks) HPC_GPU_RANKS=$2; shift 2 ;;
      --max-restarts) HPC_MAX_RESTARTS=$2; shift 2 ;;
      --stop-grace) HPC_STOP_GRACE=$2; shift 2 ;;
      --trainer-cmd)
        [ "$HPC_HETJOB" -eq 1 ] || hpc_die 2 "--trainer-cmd belongs to jobs/hpcreward-hetjob.sbatch"
        HPC_TRAINER_CMD=$2; shift 2 ;;
      --np|--gpus)
        hpc_die 2 "$1: under Slurm the allocation sets the ranks: one task per rank (sbatch --nodes," \
                  "--ntasks-per-node; task 0 is the coordinator), one GPU rank per allocated GPU (--gres=gpu:N)" ;;
      -h|--help) hpc_usage; exit 0 ;;
      --) shift; HPC_BENCH_ARGS=("$@"); break ;;
      *) hpc_die 2 "unknown option '$1' (see the usage at the top of the script or jobs/README.md)" ;;
    esac
  done
  [ -n "$HPC_OUT" ] || hpc_die 2 "--out DIR is required: the run directory, on a file system every node shares"
  [[ "$HPC_EVALUATIONS" =~ ^[1-9][0-9]*$ ]] || hpc_die 2 "--evaluations must be a positive integer, not '$HPC_EVALUATIONS'"
  [[ "$HPC_CUDA_EVALUATIONS" =~ ^[1-9][0-9]*$ ]] || hpc_die 2 "--cuda-evaluations must be a positive integer, not '$HPC_CUDA_EVALUATIONS'"
  if ! hpc_other_catalog; then  # another catalog's names say nothing of their language
    case "$HPC_CUDA_PROBLEM" in
      ""|cuda-*) ;;
      *) hpc_die 2 "--cuda-problem names a CUDA problem (cuda-dgemm-N, cuda-sgemm-N, cuda-hgemm-N), not '$HPC_CUDA_PROBLEM'" ;;
    esac
  fi
  [[ "$HPC_MAX_RESTARTS" =~ ^[0-9]+$ ]] || hpc_die 2 "--max-restarts must be 0 or more, not '$HPC_MAX_RESTARTS'"
  [[ "$HPC_STOP_GRACE" =~ ^[0-9]+$ ]] || hpc_die 2 "--stop-grace must be whole seconds, not '$HPC_STOP_GRACE'"
  [[ "$HPC_GPU_RANKS" =~ ^(auto|none)$ ]] || hpc_die 2 "--gpu-ranks is auto (one per allocated GPU) or none, not '$HPC_GPU_RANKS'"
  if [ -n "$HPC_CANDIDATES" ] && [ "$HPC_SERVE" -eq 1 ]; then
    hpc_die 2 "--serve takes batches over HTTP: drop --candidates"
  fi
  if [ "$HPC_HETJOB" -eq 1 ] && [ -n "$HPC_CANDIDATES" ]; then
    hpc_die 2 "the heterogeneous job serves its trainer: drop --candidates (use jobs/hpcreward.sbatch for files)"
  fi
  HPC_GENERATE=0
  if [ "$HPC_HETJOB" -eq 1 ]; then
    HPC_SERVE=1
  elif [ "$HPC_SERVE" -eq 0 ] && [ -z "$HPC_CANDIDATES" ]; then
    HPC_GENERATE=1  # the built-in generator, through a served pipeline
    HPC_SERVE=1
  fi
  if hpc_runs_generator && hpc_other_catalog && [ -z "$HPC_PROBLEM" ]; then
    hpc_die 2 "with --problems $HPC_PROBLEMS the built-in generator needs --problem ID (a C or a CUDA problem of it;" \
              "--cuda-problem ID adds a CUDA search beside a C one): hpcreward-problems --problems $HPC_PROBLEMS lists them"
  fi
  if [ "$HPC_SERVE" -eq 1 ] && [ "$listen_given" -eq 0 ]; then
    # Reachable from other nodes: trainers on the training partition connect here.
    HPC_COORDINATOR_ARGS+=(--listen "0.0.0.0:0")
  fi
  HPC_COORDINATOR_ARGS+=(--stop-grace-s "$HPC_STOP_GRACE")
}

# ---- checks that fail at once, before any rank starts ----
hpc_check_local() {
  if [ -n "${HPCREWARD_SETUP:-}" ]; then  # the site's module loads; every task inherits them
    [ -r "$HPCREWARD_SETUP" ] || hpc_die 2 "HPCREWARD_SETUP names $HPCREWARD_SETUP, which cannot be read"
    set +u
    source "$HPCREWARD_SETUP" || hpc_die 2 "sourcing HPCREWARD_SETUP ($HPCREWARD_SETUP) failed"
    set -u
  fi
  HPC_BIN=${HPCREWARD_BIN:-$HPCREWARD_REPO/build/bin}
  local program
  for program in hpcreward-coordinator hpcreward-bench hpcreward-runner; do
    [ -x "$HPC_BIN/$program" ] || hpc_die 2 "$HPC_BIN/$program not found: build the clone on the shared" \
      "file system (cmake -S . -B build && cmake --build build -j) or set HPCREWARD_BIN to the folder of the executables"
  done
  command -v srun >/dev/null || hpc_die 2 "srun not found on $(hostname): is this running under Slurm?"
  if [ -n "$HPC_CANDIDATES" ]; then
    [ -r "$HPC_CANDIDATES" ] || hpc_die 2 "cannot read candidate file $HPC_CANDIDATES"
    HPC_CANDIDATES=$(cd "$(dirname "$HPC_CANDIDATES")" && pwd)/$(basename "$HPC_CANDIDATES")
  fi
  if [ -n "$HPC_LADDER" ]; then
    [ -r "$HPC_LADDER" ] || hpc_die 2 "unknown ladder: cannot read $HPC_LADDER (give a ladder JSON file, e.g. stages/demo_ladder.json)"
    HPC_LADDER=$(cd "$(dirname "$HPC_LADDER")" && pwd)/$(basename "$HPC_LADDER")
    "$HPC_PYTHON" - "$HPC_LADDER" <<'PY' || hpc_die 2 "unknown ladder: $HPC_LADDER is not a ladder file (see stages/README.md)"
import json, sys
ladder = json.load(open(sys.argv[1]))
assert isinstance(ladder, dict) and isinstance(ladder.get("stages"), list) and ladder["stages"]
PY
  fi
  mkdir -p "$HPC_OUT" 2>/dev/null || hpc_die 2 "cannot create the run directory $HPC_OUT"
  HPC_OUT=$(cd "$HPC_OUT" && pwd)
  local probe="$HPC_OUT/.write-check-$$"
  (echo ok >"$probe") 2>/dev/null || hpc_die 2 "the run directory $HPC_OUT is not writable"
  rm -f "$probe"
  rm -rf "$HPC_OUT/.step"  # an earlier job's step files
  if hpc_runs_generator && hpc_other_catalog; then hpc_read_catalog; fi
  if [ -e "$HPC_OUT/rewards.h5" ]; then
    HPC_RESUME=1
  elif [ "$HPC_RESUME_ASKED" -eq 1 ]; then
    hpc_die 2 "--resume: $HPC_OUT/rewards.h5 does not exist; start without --resume"
  else
    HPC_RESUME=0
  fi
}

# On every node of the step's allocation (srun options in "$@"): the executables run there
# (their libraries load) and the run directory is the same directory, writable. Sets
# HPC_GPU_RANK_COUNT: the GPU ranks the step will have (jobs/lib/rank.sh --node-gpus per node).
hpc_check_nodes() {
  local token="check-${SLURM_JOB_ID:-0}-$$-$RANDOM"
  echo "$token" >"$HPC_OUT/.node-check" || hpc_die 2 "the run directory $HPC_OUT is not writable"
  local report
  if ! report=$(HPCREWARD_GPU_RANKS="$HPC_GPU_RANKS" srun "$@" --ntasks-per-node=1 --kill-on-bad-exit=0 bash -c '
      node=${SLURMD_NODENAME:-$(hostname)}
      for program in hpcreward-coordinator hpcreward-bench hpcreward-runner; do
        [ -x "$1/$program" ] || { echo "node $node: $1/$program is missing: HPCREWARD_BIN must name a folder every node sees"; exit 1; }
      done
      "$1/hpcreward-bench" --help >/dev/null 2>&1 ||
        { echo "node $node: $1/hpcreward-bench does not run there (missing libraries? load the same modules as where it was built)"; exit 1; }
      [ "$(cat "$2/.node-check" 2>/dev/null)" = "$3" ] ||
        { echo "node $node: the run directory $2 is not shared with the batch node: put --out on a shared file system"; exit 1; }
      touch "$2/.node-check-$node" 2>/dev/null && rm -f "$2/.node-check-$node" ||
        { echo "node $node: the run directory $2 is not writable there"; exit 1; }
      echo "gpus=$("$4" --node-gpus)"
    ' hpcreward-node-check "$HPC_BIN" "$HPC_OUT" "$token" "$HPCREWARD_REPO/jobs/lib/rank.sh" 2>&1); then
    rm -f "$HPC_OUT/.node-check"
    hpc_die 2 "node check failed:"$'\n'"$(printf '%s\n' "$report" | grep -v '^srun: ' | sed 's/^/  /')"
  fi
  rm -f "$HPC_OUT/.node-check"
  HPC_GPU_RANK_COUNT=$(sed -n 's/^gpus=\([0-9][0-9]*\)$/\1/p' <<<"$report" | awk '{n += $1} END {print n + 0}')
}

# ---- the MPI step ----
# The per-task argument lists go to files that jobs/lib/rank.sh reads (NUL-separated, so any
# argument survives), because srun starts the same command on every task.
hpc_write_rank_args() {
  local dir="$HPC_OUT/.step"
  mkdir -p "$dir"
  rm -f "$dir/srun.pid"
  local coordinator=(--out "$HPC_OUT")
  if [ -n "$HPC_CANDIDATES" ]; then coordinator+=(--candidates "$HPC_CANDIDATES"); fi
  if [ "$HPC_SERVE" -eq 1 ]; then coordinator+=(--serve); fi
  if [ -n "$HPC_LADDER" ]; then coordinator+=(--ladder "$HPC_LADDER"); fi
  if [ -e "$HPC_OUT/rewards.h5" ]; then coordinator+=(--resume); fi
  coordinator+=("${HPC_COORDINATOR_ARGS[@]}")
  if [ "$HPC_GENERATE" -eq 1 ] && [ -z "$HPC_PROBLEM" ] && hpc_searches_cuda_only; then
    coordinator+=(--problem "$(hpc_cuda_problem)")  # a served coordinator checks its default problem at start
  fi
  printf '%s\0' "$HPC_BIN/hpcreward-coordinator" "${coordinator[@]}" >"$dir/coordinator.args"
  printf '%s\0' "$HPC_BIN/hpcreward-bench" "${HPC_BENCH_ARGS[@]}" >"$dir/bench.args"
  printf '%s\0' "$HPC_BIN/hpcreward-bench" --gpu "${HPC_BENCH_ARGS[@]}" "${HPC_GPU_ARGS[@]}" >"$dir/gpu.args"
}

# Starts the step in the background (srun options in "$@"); HPC_STEP_PID is srun's pid.
hpc_start_step() {
  rm -f "$HPC_OUT/coordinator.outcome.json"
  hpc_write_rank_args
  # Small messages only: the shared-memory transport needs no cross-process copy (which
  # containers often forbid).
  OMPI_MCA_btl_vader_single_copy_mechanism=none HPCREWARD_RUN_DIR="$HPC_OUT" \
    HPCREWARD_GPU_RANKS="$HPC_GPU_RANKS" \
    srun "$@" --mpi=pmix --kill-on-bad-exit=1 "$HPCREWARD_REPO/jobs/lib/rank.sh" &
  HPC_STEP_PID=$!
  echo "$HPC_STEP_PID" >"$HPC_OUT/.step/srun.pid"
}

# Sends a signal to the running step, again every 10 s while it runs: a coordinator still
# starting ignores it (jobs/lib/rank.sh), and the stop it asks for is idempotent.
hpc_signal_step() {
  local signal=$1 pid
  pid=$(cat "$HPC_OUT/.step/srun.pid" 2>/dev/null || true)
  [ -n "$pid" ] || return 0
  (
    trap '' USR1 USR2
    while kill "-$signal" "$pid" 2>/dev/null; do sleep 10; done
  ) &
}

# The trainer (or the generator) is done: the served pipeline finishes what it accepted and
# exits 0. SIGUSR2, which srun forwards to every task: the coordinator stops serving, the
# benchmark ranks ignore it and end when the coordinator says so.
hpc_finish_step() {
  touch "$HPC_OUT/.step/finish"
  hpc_signal_step USR2
}

# Waits for a background pid through trapped signals (bash's `wait` returns early when a
# trap runs); sets HPC_WAIT_STATUS.
hpc_wait_pid() {
  local pid=$1
  HPC_WAIT_STATUS=0
  while :; do
    wait "$pid" && HPC_WAIT_STATUS=0 || HPC_WAIT_STATUS=$?
    kill -0 "$pid" 2>/dev/null || break
  done
}

# The coordinator's exit code from its outcome file, or "" when the step died without one.
hpc_outcome_code() {
  local file="$HPC_OUT/coordinator.outcome.json"
  [ -s "$file" ] || { echo ""; return 0; }
  sed -n 's/.*"exit_code"[[:space:]]*:[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$file" | head -1
}

hpc_outcome_message() {
  sed -n 's/.*"message"[[:space:]]*:[[:space:]]*"\(\([^"\\]\|\\.\)*\)".*/\1/p' "$HPC_OUT/coordinator.outcome.json" 2>/dev/null | head -1
}

# SIGUSR1 (the time-limit warning with --signal=B:USR1@N, or preemption with
# `scancel --signal=USR1 --batch`) reaches this shell: pass it to the step, whose
# coordinator stops dispatching, drains within --stop-grace and exits 75.
hpc_on_usr1() {
  HPC_STOP_SIGNALLED=1
  hpc_say "SIGUSR1: asking the coordinator to stop for a requeue (grace ${HPC_STOP_GRACE} s)"
  hpc_signal_step USR1
}

# Requeues this job (it resumes from the log when it starts again); exits.
hpc_requeue() {
  hpc_say "requeueing job ${SLURM_JOB_ID:-?} (restart count ${SLURM_RESTART_COUNT:-0}): it resumes from $HPC_OUT/rewards.h5"
  if [ -n "${SLURM_JOB_ID:-}" ] && scontrol requeue "$SLURM_JOB_ID"; then
    exit 0
  fi
  hpc_die "$HPC_OUTCOME_STOPPED" "could not requeue job ${SLURM_JOB_ID:-?} (submitted with --no-requeue?);" \
    "submit the same command again: a run directory that holds a log resumes it"
}

# Runs the pipeline step until it completes, restarting it with --resume after a lost rank
# (at most HPC_MAX_RESTARTS times). Sets HPC_STEP_OUTCOME to the coordinator's exit code
# (0 complete, 2 configuration, 3 no ranks left, 75 stopped) or 1 when restarts ran out.
# "$@": srun options that place the step. Optional hook: hpc_step_started (after each start).
hpc_run_pipeline() {
  local restarts=0 started
  while :; do
    if [ -e "$HPC_OUT/.step/finish" ]; then
      hpc_say "the trainer is done: the pipeline is not started again"
      HPC_STEP_OUTCOME=0
      return 0
    fi
    if [ "${HPC_STOP_SIGNALLED:-0}" -eq 1 ]; then
      HPC_STEP_OUTCOME=$HPC_OUTCOME_STOPPED
      return 0
    fi
    started=$(date +%s)
    hpc_say "starting the pipeline step$([ -e "$HPC_OUT/rewards.h5" ] && echo " (resuming $HPC_OUT/rewards.h5)")"
    hpc_start_step "$@"
    if declare -F hpc_step_started >/dev/null; then hpc_step_started; fi
    hpc_wait_pid "$HPC_STEP_PID"
    local srun_status=$HPC_WAIT_STATUS code
    HPC_STEP_PID=""
    code=$(hpc_outcome_code)
    if [ -n "$code" ]; then
      HPC_STEP_OUTCOME=$code
      case "$code" in
        0) hpc_say "pipeline complete after $(( $(date +%s) - started )) s" ;;
        75) hpc_say "pipeline stopped before the end: $(hpc_outcome_message)" ;;
        *) hpc_say "pipeline ended with code $code: $(hpc_outcome_message)" ;;
      esac
      return 0
    fi
    if [ "${HPC_STOP_SIGNALLED:-0}" -eq 1 ]; then
      hpc_say "the step ended without an outcome while stopping (srun exit $srun_status); requeueing anyway"
      HPC_STEP_OUTCOME=$HPC_OUTCOME_STOPPED
      return 0
    fi
    if [ "$restarts" -ge "$HPC_MAX_RESTARTS" ]; then
      hpc_say "the step died again (srun exit $srun_status) and $HPC_MAX_RESTARTS restarts are spent; the log keeps every row: submit again to resume"
      HPC_STEP_OUTCOME=1
      return 0
    fi
    restarts=$((restarts + 1))
    hpc_say "the step died after $(( $(date +%s) - started )) s without an outcome (srun exit $srun_status: a rank was lost);" \
      "restart $restarts of $HPC_MAX_RESTARTS with --resume"
    echo "$(date '+%F %T') job=${SLURM_JOB_ID:-?} restart=$restarts srun_exit=$srun_status" >>"$HPC_OUT/step-restarts.log"
    sleep 2
  done
}

# ---- the built-in generator, standing in for a trainer ----
# With a catalog other than the default (--problems), the problems' names say nothing of their
# language: hpcreward-problems says it, and the generator reads the catalog whole (problems.json
# in the run directory), as with jobs/local.sh.
hpc_other_catalog() { [ -n "${HPC_PROBLEMS:-}" ] && [ "$HPC_PROBLEMS" != default ]; }
# The batch job's generator, or the heterogeneous job's when it is given no trainer.
hpc_runs_generator() { [ "$HPC_GENERATE" -eq 1 ] || { [ "$HPC_HETJOB" -eq 1 ] && [ -z "$HPC_TRAINER_CMD" ]; }; }
hpc_read_catalog() {
  "$HPC_BIN/hpcreward-problems" --problems "$HPC_PROBLEMS" --json >"$HPC_OUT/problems.json" ||
    hpc_die 2 "--problems $HPC_PROBLEMS: not a catalog hpcreward-problems can read (see above)"
  local line
  line=$("$HPC_BIN/hpcreward-problems" --problems "$HPC_PROBLEMS" "$HPC_PROBLEM") ||
    hpc_die 2 "--problem $HPC_PROBLEM is not a problem of $HPC_PROBLEMS (see above)"
  case "$line" in *" cuda "*) HPC_PROBLEM_LANGUAGE=cuda ;; *) HPC_PROBLEM_LANGUAGE=c ;; esac
  if [ -n "$HPC_CUDA_PROBLEM" ]; then
    line=$("$HPC_BIN/hpcreward-problems" --problems "$HPC_PROBLEMS" "$HPC_CUDA_PROBLEM") ||
      hpc_die 2 "--cuda-problem $HPC_CUDA_PROBLEM is not a problem of $HPC_PROBLEMS (see above)"
    case "$line" in *" cuda "*) ;; *) hpc_die 2 "--cuda-problem $HPC_CUDA_PROBLEM is a C problem of $HPC_PROBLEMS" ;; esac
  fi
}
# As with jobs/local.sh: a C search on the CPU ranks, and a CUDA search on the GPU ranks when
# the step has any (HPC_GPU_RANK_COUNT, from the node check), their candidates in the same
# batches. HPC_BENCH_TASKS (set by the job script) is the step's benchmark tasks.
hpc_problem_language() {
  if hpc_other_catalog; then echo "$HPC_PROBLEM_LANGUAGE"; else
    case "$HPC_PROBLEM" in "") echo none ;; cuda-*) echo cuda ;; *) echo c ;; esac
  fi
}
hpc_c_problem() { if [ "$(hpc_problem_language)" = c ]; then echo "$HPC_PROBLEM"; else echo dgemm-256; fi; }
hpc_cuda_problem() {
  if [ "$(hpc_problem_language)" = cuda ]; then echo "$HPC_PROBLEM"; else echo "${HPC_CUDA_PROBLEM:-cuda-sgemm-4096}"; fi
}
hpc_searches_cuda_only() { [ "${HPC_GPU_RANK_COUNT:-0}" -gt 0 ] && [ "${HPC_GPU_RANK_COUNT:-0}" -ge "${HPC_BENCH_TASKS:-0}" ]; }

# Rows the log holds for PROBLEM, or in all (0 without a log or h5py).
hpc_logged_rows() {
  [ -e "$HPC_OUT/rewards.h5" ] || { echo 0; return; }
  "$HPC_PYTHON" -c '
import sys, h5py
rows = h5py.File(sys.argv[1], "r", locking=False, swmr=True)["rewards"]
print(rows.shape[0] if len(sys.argv) < 3 else int((rows["problem"][()] == sys.argv[2].encode()).sum()))
' "$HPC_OUT/rewards.h5" "$@" 2>/dev/null || echo 0
}

# The generator's command line: each search whose problem the log does not yet hold
# --evaluations (--cuda-evaluations) rows of, asked for that many in all. Empty when the log
# holds them all. On a resumed log (a requeue, a job submitted again) each search goes on from
# its report (--resume), under a new seed: 1 + the rows logged, as jobs/local.sh picks it.
# Candidate ids are [cuda-]s<seed>-b<batch>-<i> with the batch count going on from the report,
# and the coordinator answers a logged id from the log: a batch still out when the run stopped
# is logged under the old seed and those batch numbers. (The restart count is no such
# seed: a job submitted again by hand starts from 0.)
hpc_generator_command() {
  local args=() c_problem cuda_problem c_left=0 cuda_left=0 seed=1
  c_problem=$(hpc_c_problem)
  cuda_problem=$(hpc_cuda_problem)
  if ! hpc_searches_cuda_only; then
    c_left=$((HPC_EVALUATIONS - $(hpc_logged_rows "$c_problem")))
  fi
  if [ "${HPC_GPU_RANK_COUNT:-0}" -gt 0 ]; then
    cuda_left=$((HPC_CUDA_EVALUATIONS - $(hpc_logged_rows "$cuda_problem")))
  fi
  if [ "$c_left" -gt 0 ]; then
    args+=(--problem "$c_problem" --evaluations "$HPC_EVALUATIONS" --out "$HPC_OUT/generator.json")
    [ "$cuda_left" -le 0 ] ||
      args+=(--cuda-problem "$cuda_problem" --cuda-evaluations "$HPC_CUDA_EVALUATIONS"
             --cuda-out "$HPC_OUT/generator-cuda.json" ${HPC_CUDA_STAGE:+--cuda-stage "$HPC_CUDA_STAGE"})
  elif [ "$cuda_left" -gt 0 ]; then
    args+=(--problem "$cuda_problem" --evaluations "$HPC_CUDA_EVALUATIONS" --out "$HPC_OUT/generator-cuda.json"
           ${HPC_CUDA_STAGE:+--stage "$HPC_CUDA_STAGE"})
  else
    return 0
  fi
  if hpc_other_catalog; then args+=(--problems-json "$HPC_OUT/problems.json"); fi
  if [ "${HPC_RESUME:-0}" -eq 1 ]; then
    seed=$((1 + $(hpc_logged_rows)))
    args+=(--resume)
  fi
  printf 'env PYTHONPATH=%q %q -m hpcreward_generator --rendezvous %q --seed %d' \
    "$HPCREWARD_REPO/train_bridge/generator:$HPCREWARD_REPO/train_bridge/python${PYTHONPATH:+:$PYTHONPATH}" \
    "$HPC_PYTHON" "$HPC_OUT" "$seed"
  printf ' %q' "${args[@]}"
}
