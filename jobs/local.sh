#!/usr/bin/env bash
# Starts one hpcreward run on this machine: the coordinator (rank 0) plus N CPU benchmark
# ranks (C problems) and G GPU benchmark ranks (CUDA problems, --gpus G) in one MPI world,
# writing DIR/rewards.h5 batch by batch, each problem climbing its stage ladder. Candidates
# come from the built-in generator (the default: MAP-Elites over a parametric family of C
# kernels, train_bridge/generator/; with GPU ranks also one over CUDA kernels, on those ranks
# at the same time), from a JSON Lines file
# (--candidates; exits 0 when every candidate has a row; after a crash or a stop, the same
# command with --resume goes on where it stopped), or from trainers over HTTP (--serve).
# With --serve there is no file: trainers send batches over HTTP (coordinator/README.md)
# until SIGTERM/SIGINT reaches the coordinator (or this script), which finishes what it
# accepted and exits 0.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: jobs/local.sh [--evaluations N [--cuda-problem ID] [--cuda-evaluations N] [--cuda-stage NAME]
                     [--in-flight K]
                     | --candidates FILE.jsonl | --serve [--listen HOST:PORT]
                     [--tls-cert FILE --tls-key FILE] [--prompt-template FILE]]
                     [--ladder FILE.json] [--stage NAME] [--problems NAME|FILE] [--problem ID]
                     [--reward-mode gflops|fraction|speedup:NAME] [--np N] [--gpus G]
                     [--gpu-arg ARG]... [--seed N] [--config FILE] [--resume] --out DIR
                     [-- BENCH_OPTIONS...]

  --evaluations N    the default source: the built-in generator scores N candidates in all,
                     across --resume (default 160), of --problem (default dgemm-256) through a
                     served pipeline, climbing the ladder; its report goes to
                     DIR/generator.json, rewritten after every batch. With --gpus G a CUDA
                     search runs beside it, in batches of its own, on the GPU ranks at the
                     same time: --cuda-evaluations N (default 160) of --cuda-problem ID (default
                     cuda-sgemm-4096), climbing the CUDA ladder; its report goes to
                     DIR/generator-cuda.json. With --np 0 --gpus G only the CUDA search runs.
                     --cuda-stage NAME keeps the CUDA search in that stage instead of climbing
                     (e.g. cuda-tensor, to score tensor-core kernels at once). --in-flight K:
                     batches each search keeps in flight (default 2; 1: one at a time)
  --candidates FILE  JSON Lines, one candidate per line (e.g. the shipped samples:
                     --candidates train_bridge/samples/dgemm-256.jsonl --ladder stages/demo_ladder.json)
  --serve           no candidate file: serve trainers over HTTP/JSON (coordinator/README.md);
                     DIR/coordinator.json names the URL, the token file and the coordinator's
                     pid. SIGTERM to that pid (or to this script) stops it cleanly
  --listen HOST:PORT with --serve (default 0.0.0.0:0: any free port)
  --max-request-bytes N, --max-batch-candidates N
                     with --serve: request limits (defaults 16 MiB, 1024)
  --prompt-template FILE
                     with --serve: the template GET /v1/prompts fills (prompts/README.md)
  --tls-cert FILE, --tls-key FILE
                     with --serve (or the generator): serve HTTPS with this PEM certificate
                     and its unencrypted private key (both or neither); the URL in
                     coordinator.json is https:// and its tls_cert names FILE, which the
                     Python client then trusts (coordinator/README.md, "HTTPS")
  --ladder FILE      stage ladder (default: the coordinator's built-in stages/default_ladder.json)
  --stage NAME       score lines that name no stage in this stage (default: their problem's
                     current ladder stage); a line's own stage wins
  --resume           go on with DIR/rewards.h5: logged candidates are not scored again; with
                     the generator, each search goes on from its report (its archive, best and
                     counts) until it has --evaluations (--cuda-evaluations) in all, under a
                     new seed
  --problems NAME|FILE
                     the run's problem catalog: a built-in one (default, kernelbench-level1,
                     llm-layers, gemm-kinds, cuda-l2) or a JSON file (docs/problems.md); build/bin/hpcreward-problems
                     lists one. With another catalog than the default, the built-in generator
                     needs --problem (and --cuda-problem for a second, CUDA search) from it
  --reward-mode M    what an `ok` row earns: gflops (default), fraction (GFLOPS over the best
                     yardstick the scoring rank measured for the problem: OpenBLAS on CPU ranks,
                     cuBLAS and cuBLASLt on GPU ranks) or speedup:NAME (over yardstick NAME:
                     openblas, cublas, cublaslt); docs/problems.md, reward modes
  --problem ID       problem of lines that name none (default dgemm-256; with the generator
                     and --np 0, the CUDA search's problem); with the generator, the problem of
                     its C search (a cuda-* one names the CUDA search's instead)
  --np N             CPU benchmark ranks, which score C problems (default: one per physical
                     core the GPU ranks leave, as hpcreward-bench --default-cpu-ranks G prints:
                     8 beside one GPU rank on 16 cores; 0 is allowed with --gpus)
  --gpus G           GPU benchmark ranks (hpcreward-bench --gpu), which score CUDA problems
                     (cuda-dgemm-*, cuda-sgemm-*, cuda-hgemm-*), one GPU each: the i-th GPU
                     rank on a node takes GPU i (default 0: no GPU ranks)
  --gpu-arg ARG      one more option for the GPU ranks only (repeat it: --gpu-arg --nvcc
                     --gpu-arg /usr/local/cuda/bin/nvcc)
  --seed N           run seed for benchmark inputs (default: random, recorded in the log)
  --config FILE      coordinator config file (INI, see hpcreward-coordinator --help)
  --out DIR          run directory: rewards.h5, coordinator.pid (with --serve also
                     coordinator.json and coordinator.token; the token is never printed), and
                     at the end report.html (hpcreward-results report; its path is printed)
  -- ...             options for every hpcreward-bench rank, CPU and GPU (see hpcreward-bench
                     --help)

Environment: HPCREWARD_BIN, the folder holding the built executables (default build/bin).

Exit status: the coordinator's (coordinator/README.md): 0 complete, 1 error, 2 configuration
(also a generator report that --resume cannot go on from, or one that another generator is
writing: the message says why), 3 no benchmark rank left (all quarantined as hung), 75 stopped
before the end (SIGUSR1; with a file or the built-in generator also SIGTERM/SIGINT to the
coordinator or this script): --resume goes on. DIR/coordinator.outcome.json says the same with
the reason. A signal to this script's process group (timeout, Ctrl-C) stops the pipeline in
order too, and so does a SIGKILL to this script, within a second (a watcher of its own does
what its trap would); only a SIGKILL to the watcher too leaves the pipeline running (kill -TERM
$(cat DIR/coordinator.pid) stops it). On Slurm use jobs/hpcreward.sbatch (jobs/README.md).
USAGE
}

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${HPCREWARD_BIN:-$repo/build/bin}
candidates=""
evaluations=160
ladder=""
candidates_given=0
problem=""
problems=""
cuda_problem=""
cuda_evaluations=160
cuda_stage=""
cuda_given=0
in_flight=""
resume=0
serve=0
np=""
gpus=0
out=""
coordinator_args=()
bench_args=()
gpu_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --candidates) candidates=$2; candidates_given=1; shift 2 ;;
    --ladder) ladder=$2; shift 2 ;;
    --evaluations) evaluations=$2; shift 2 ;;
    --resume) resume=1; coordinator_args+=("--resume"); shift ;;
    --serve) serve=1; coordinator_args+=("--serve"); shift ;;
    --listen|--max-request-bytes|--max-batch-candidates|--tls-cert|--tls-key|--prompt-template) coordinator_args+=("$1" "$2"); shift 2 ;;
    --problem) problem=$2; coordinator_args+=("$1" "$2"); shift 2 ;;
    --problems) problems=$2; coordinator_args+=("$1" "$2"); shift 2 ;;
    --cuda-problem) cuda_problem=$2; cuda_given=1; shift 2 ;;
    --cuda-evaluations) cuda_evaluations=$2; cuda_given=1; shift 2 ;;
    --cuda-stage) cuda_stage=$2; cuda_given=1; shift 2 ;;
    --in-flight) in_flight=$2; shift 2 ;;
    --stage|--seed|--config|--reward-mode) coordinator_args+=("$1" "$2"); shift 2 ;;
    --np) np=$2; shift 2 ;;
    --gpus) gpus=$2; shift 2 ;;
    --gpu-arg) gpu_args+=("$2"); shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; bench_args=("$@"); break ;;
    *) echo "local.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || { echo "local.sh: --out DIR is required" >&2; usage >&2; exit 2; }
[[ "$gpus" =~ ^[0-9]+$ ]] || { echo "local.sh: --gpus must be a number of GPU ranks (0 or more), not '$gpus'" >&2; exit 2; }
if [ -z "$np" ]; then
  # One CPU rank per physical core the GPU ranks' default shares leave: two ranks on one core
  # (or on SMT siblings) would time each other's work.
  [ -x "$bin/hpcreward-bench" ] || { echo "local.sh: $bin/hpcreward-bench is missing: build first (README.md)" >&2; exit 2; }
  why=$(mktemp)
  np=$("$bin/hpcreward-bench" --default-cpu-ranks "$((10#$gpus))" 2>"$why") ||
    { cat "$why" >&2; rm -f "$why"; echo "local.sh: cannot count this host's cores: give --np N" >&2; exit 2; }
  echo "local.sh: $(cat "$why") (--np N to change)"
  rm -f "$why"
fi
[[ "$np" =~ ^[0-9]+$ ]] || { echo "local.sh: --np must be a positive integer (or 0 with --gpus), not '$np'" >&2; exit 2; }
np=$((10#$np))
gpus=$((10#$gpus))
if [ "$np" -eq 0 ] && [ "$gpus" -eq 0 ]; then
  echo "local.sh: no benchmark ranks: give --np N (CPU ranks, C problems) or --gpus G (GPU ranks, CUDA problems)" >&2
  exit 2
fi
if [ "${#gpu_args[@]}" -gt 0 ] && [ "$gpus" -eq 0 ]; then
  echo "local.sh: --gpu-arg needs GPU ranks: add --gpus G" >&2
  exit 2
fi
[[ "$evaluations" =~ ^[1-9][0-9]*$ ]] || { echo "local.sh: --evaluations must be a positive integer, not '$evaluations'" >&2; exit 2; }
[[ "$cuda_evaluations" =~ ^[1-9][0-9]*$ ]] || { echo "local.sh: --cuda-evaluations must be a positive integer, not '$cuda_evaluations'" >&2; exit 2; }
if [ "$cuda_given" -eq 1 ] && [ "$gpus" -eq 0 ]; then
  echo "local.sh: --cuda-problem, --cuda-evaluations and --cuda-stage are the generator's CUDA search, which needs GPU ranks: add --gpus G" >&2
  exit 2
fi
[ -z "$in_flight" ] || [[ "$in_flight" =~ ^[1-9][0-9]*$ ]] || { echo "local.sh: --in-flight must be a positive integer, not '$in_flight'" >&2; exit 2; }
case "$cuda_problem" in
  ""|cuda-*) ;;
  *) echo "local.sh: --cuda-problem names a CUDA problem (cuda-dgemm-N, cuda-sgemm-N, cuda-hgemm-N), not '$cuda_problem'" >&2; exit 2 ;;
esac
# The generator is the default source: it talks to a served pipeline.
generate=0
generator_args=()
if [ "$serve" -eq 0 ] && [ "$candidates_given" -eq 0 ]; then
  generate=1
  serve=1
  coordinator_args+=("--serve" "--listen" "127.0.0.1:0")
  # The searches: C on the CPU ranks, CUDA on the GPU ranks, each given ranks of its kind.
  c_problem=dgemm-256
  if [ -n "$problems" ] && [ "$problems" != default ]; then
    # Another catalog: its problems have no default, and their names say nothing of their
    # language; the catalog does (hpcreward-problems), and the generator reads it whole.
    [ -n "$problem" ] || {
      echo "local.sh: with --problems $problems the generator needs --problem ID (a C or a CUDA problem of it; --cuda-problem ID adds a CUDA search beside a C one): $bin/hpcreward-problems --problems $problems lists them" >&2
      exit 2
    }
    problem_line=$("$bin/hpcreward-problems" --problems "$problems" "$problem") || exit 2
    case "$problem_line" in
      *" cuda "*) cuda_problem=$problem ;;
      *) c_problem=$problem ;;
    esac
    catalog_listing=1
  else
    case "$problem" in
      cuda-*) cuda_problem=$problem ;;
      ?*) c_problem=$problem ;;
    esac
  fi
  cuda_problem=${cuda_problem:-cuda-sgemm-4096}
  if [ "$gpus" -eq 0 ]; then
    generator_args=(--problem "$c_problem" --evaluations "$evaluations" --out "$out/generator.json")
  elif [ "$np" -eq 0 ]; then
    generator_args=(--problem "$cuda_problem" --evaluations "$cuda_evaluations" --out "$out/generator-cuda.json"
                    ${cuda_stage:+--stage "$cuda_stage"})
    # A served coordinator checks at start that some rank can score its default problem.
    [ -n "$problem" ] || coordinator_args+=(--problem "$cuda_problem")
  else
    generator_args=(--problem "$c_problem" --evaluations "$evaluations" --out "$out/generator.json"
                    --cuda-problem "$cuda_problem" --cuda-evaluations "$cuda_evaluations"
                    --cuda-out "$out/generator-cuda.json" ${cuda_stage:+--cuda-stage "$cuda_stage"})
  fi
  generator_args+=(${in_flight:+--in-flight "$in_flight"})
elif [ -n "$in_flight" ]; then
  echo "local.sh: --in-flight is the built-in generator's: drop it with --candidates or --serve" >&2
  exit 2
elif [ "$cuda_given" -eq 1 ]; then
  echo "local.sh: --cuda-problem, --cuda-evaluations and --cuda-stage are for the built-in generator: drop them with --candidates or --serve" >&2
  exit 2
fi
if [ "$serve" -eq 1 ]; then
  [ "$candidates_given" -eq 0 ] || { echo "local.sh: --serve takes batches over HTTP: drop --candidates" >&2; exit 2; }
else
  [ -r "$candidates" ] || { echo "local.sh: cannot read candidate file $candidates" >&2; exit 2; }
  coordinator_args=(--candidates "$candidates" "${coordinator_args[@]}")
fi
for program in hpcreward-coordinator hpcreward-bench hpcreward-runner; do
  [ -x "$bin/$program" ] || {
    echo "local.sh: $bin/$program not found; build first: cmake -S . -B build && cmake --build build -j" >&2
    exit 2
  }
done
command -v mpirun >/dev/null || { echo "local.sh: mpirun not found; run jobs/install-deps.sh" >&2; exit 2; }
if [ -n "$ladder" ]; then
  [ -r "$ladder" ] || { echo "local.sh: cannot read ladder file $ladder" >&2; exit 2; }
  coordinator_args+=("--ladder" "$ladder")
fi
if [ -e "$out/rewards.h5" ] && [ "$resume" -eq 0 ]; then
  echo "local.sh: $out/rewards.h5 already exists; add --resume to go on with it, or choose a new --out" >&2
  exit 2
fi
if [ ! -e "$out/rewards.h5" ] && [ "$resume" -eq 1 ]; then
  echo "local.sh: --resume: $out/rewards.h5 does not exist; start without --resume" >&2
  exit 2
fi
mkdir -p "$out"
if [ "${catalog_listing:-0}" -eq 1 ]; then
  "$bin/hpcreward-problems" --problems "$problems" --json > "$out/problems.json" || exit 2
  generator_args+=(--problems-json "$out/problems.json")
fi
# A resumed generator goes on with each search from its report, under a new seed: 1 + the rows
# logged so far, above the seed of every earlier run that logged a row. Its candidate ids
# ([cuda-]s<seed>-b<batch>-<i>, the batch count going on from the report) are then new: the
# coordinator answers a logged id from the log, and a batch still out when the run stopped is
# logged under the old seed and the batch numbers the search uses next.
if [ "$generate" -eq 1 ] && [ "$resume" -eq 1 ]; then
  logged=$("$bin/hpcreward-results" export "$out/rewards.h5" --format jsonl | wc -l) ||
    { echo "local.sh: --resume: cannot read $out/rewards.h5 (see above), so the generator cannot pick new candidate ids" >&2; exit 2; }
  generator_args+=(--resume --seed "$((1 + logged))")
fi

if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# Ranks placed by the benchmark rank itself, not by mpirun; small messages only, so the
# shared-memory transport needs no cross-process copy (which containers often forbid).
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1

# One MPMD world: rank 0 the coordinator, then the CPU ranks, then the GPU ranks. Each rank
# tells the coordinator its kind when it starts; C problems go to CPU ranks, CUDA ones to GPU ranks.
command=(mpirun --bind-to none
  -np 1 "$bin/hpcreward-coordinator" --out "$out" "${coordinator_args[@]}")
if [ "$np" -gt 0 ]; then
  command+=(: -np "$np" "$bin/hpcreward-bench" "${bench_args[@]}")
fi
if [ "$gpus" -gt 0 ]; then
  command+=(: -np "$gpus" "$bin/hpcreward-bench" --gpu "${bench_args[@]}" "${gpu_args[@]}")
fi
# The coordinator's verdict is its outcome file: mpirun's own status can hide it (after an
# MPI_Abort that ends a run with a hung rank, Open MPI 4.1's mpirun has been seen to crash in
# its own finalize, exit 139, with the run complete and the log closed).
rm -f "$out/coordinator.outcome.json"
coordinator_status() {  # coordinator_status MPIRUN_STATUS
  local code
  code=$(sed -n 's/.*"exit_code"[[:space:]]*:[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$out/coordinator.outcome.json" 2>/dev/null | head -1)
  if [ -z "$code" ]; then echo "$1"; return; fi
  if [ "$code" != "$1" ]; then
    echo "local.sh: mpirun exited $1; the coordinator's outcome ($out/coordinator.outcome.json) says $code" >&2
  fi
  echo "$code"
}
# The report a researcher opens first: plots, tables, the best sources. Written whatever the
# outcome (a stopped run's log is worth seeing); a failed report only warns, the exit status
# stays the coordinator's.
write_report() {
  [ -e "$out/rewards.h5" ] || return 0
  if "$bin/hpcreward-results" report "$out/rewards.h5" --out "$out/report.html" >/dev/null; then
    echo "local.sh: report: $out/report.html"
  else
    echo "local.sh: WARNING: could not write the report $out/report.html (see above); the run's outcome is unchanged" >&2
  fi
}
# SIGTERM/SIGINT to this script goes to the coordinator alone (its pid is in
# DIR/coordinator.pid), which stops the benchmark ranks itself once it has answered what it
# accepted (served) or the tasks its ranks hold (a file) and closed its log; mpirun would kill
# them at once, the log left open for writing. mpirun and the generator run in sessions of
# their own, so a signal to this script's whole process group (what `timeout` and Ctrl-C
# send) reaches this script only, which stops them in that order.
# Stale files of an earlier run would send trainers to a dead endpoint.
rm -f "$out/coordinator.pid" "$out/coordinator.json"
if [ "$serve" -eq 0 ] && { true <&0; } 2>/dev/null; then
  setsid "${command[@]}" <&0 &  # a file: stdin stays the script's (--candidates /dev/stdin)
else
  setsid "${command[@]}" &
fi
mpirun_pid=$!
stop_coordinator() {
  if [ -s "$out/coordinator.pid" ]; then kill -TERM "$(cat "$out/coordinator.pid")" 2>/dev/null || true; fi
}
trap stop_coordinator TERM INT
generator_status=0
if [ "$generate" -eq 1 ]; then
  # The generator waits for DIR/coordinator.json itself. A run that ends first (it failed at
  # start, or died) ends the generator, which would otherwise wait minutes for a file that
  # never comes.
  PYTHONPATH="$repo/train_bridge/generator:$repo/train_bridge/python${PYTHONPATH:+:$PYTHONPATH}" \
    setsid python3 -m hpcreward_generator --rendezvous "$out" "${generator_args[@]}" &
  generator_pid=$!
fi
# A SIGKILL to this script alone skips the trap: a watcher in a session of its own then stops
# the pipeline as the trap and the loop below do (jobs/lib/pipeline-watcher.sh).
setsid "$repo/jobs/lib/pipeline-watcher.sh" "$$" "$mpirun_pid" "$out" "${generator_pid:-}" </dev/null >/dev/null &
watcher_pid=$!
stop_watcher() { kill -TERM -- "-$watcher_pid" 2>/dev/null || true; }
if [ "$generate" -eq 1 ]; then
  generator_stopped=0
  while kill -0 "$generator_pid" 2>/dev/null; do
    if ! kill -0 "$mpirun_pid" 2>/dev/null; then
      echo "local.sh: the pipeline ended before the generator (see above): stopping the generator" >&2
      kill -TERM "$generator_pid" 2>/dev/null
      generator_stopped=1
      break
    fi
    sleep 1 || true  # a signal to the whole group ends it too: then the trap, not set -e
  done
  wait "$generator_pid" || generator_status=$?
  stop_coordinator
fi
status=0
while :; do
  wait "$mpirun_pid" && status=0 || status=$?
  if ! kill -0 "$mpirun_pid" 2>/dev/null; then
    wait "$mpirun_pid" 2>/dev/null && status=0 || status=$?
    break
  fi
done
status=$(coordinator_status "$status")
if [ "$status" -eq 0 ] && [ "${generator_stopped:-0}" -eq 1 ]; then
  # Served runs have no end of their own: stopped (SIGTERM, a time limit) before the
  # generator's evaluations were done, the main job stopped before its end.
  echo "local.sh: stopped before the generator's evaluations were done: --resume goes on with the search" >&2
  status=75
fi
[ "$status" -ne 0 ] || status=$generator_status
stop_watcher
write_report
exit "$status"
