#!/usr/bin/env bash
# One task of the pipeline step (srun starts this on every task): task 0 of the step is the
# coordinator; on a node with GPUs for this step, the first G other tasks there are GPU
# ranks (G = the node's GPUs: CUDA_VISIBLE_DEVICES as Slurm set it); every other task is a
# CPU rank. The argument lists come from HPCREWARD_RUN_DIR/.step/*.args (NUL-separated),
# written by the job script. `rank.sh --role` prints the role instead of starting it;
# `rank.sh --node-gpus` the number of GPU ranks this node's tasks can hold (its GPUs).
set -euo pipefail

# The GPUs this node's tasks may use as GPU ranks (0 with --gpu-ranks none).
node_gpus() {
  if [ "${HPCREWARD_GPU_RANKS:-auto}" = auto ] && [ -n "${CUDA_VISIBLE_DEVICES:-}" ] &&
     [ "${CUDA_VISIBLE_DEVICES}" != "NoDevFiles" ]; then
    awk -F, '{print NF}' <<<"$CUDA_VISIBLE_DEVICES"
  else
    echo 0
  fi
}

role() {
  local task=${SLURM_PROCID:?rank.sh runs under srun}
  local local_id=${SLURM_LOCALID:-0}
  if [ "$task" -eq 0 ]; then echo coordinator; return; fi
  local gpus
  gpus=$(node_gpus)
  # Node-local index among benchmark ranks: task 0, the coordinator, holds local id 0 of the
  # step's first node (Slurm's block distribution).
  local bench_index=$local_id
  if [ "${SLURM_NODEID:-0}" -eq 0 ]; then bench_index=$((local_id - 1)); fi
  if [ "$bench_index" -lt "$gpus" ]; then echo gpu; else echo cpu; fi
}

args_file() {
  local file="${HPCREWARD_RUN_DIR:?set by the job script}/.step/$1.args"
  [ -r "$file" ] || { echo "rank.sh: $file missing: start the step with jobs/hpcreward.sbatch" >&2; exit 2; }
  local -n into=$2
  mapfile -d '' -t into <"$file"
}

if [ "${1:-}" = "--node-gpus" ]; then  # the job script's node check: GPU ranks this node can hold
  node_gpus
  exit 0
fi
which_role=$(role)
if [ "${1:-}" = "--role" ]; then
  echo "$which_role"
  exit 0
fi
case "$which_role" in
  coordinator) args_file coordinator command ;;
  gpu) args_file gpu command ;;
  cpu) args_file bench command
       # The step's GPUs are for GPU ranks; a CPU rank's candidates never see one.
       export CUDA_VISIBLE_DEVICES= ;;
esac
# Open MPI names its shared-memory segments by host name and node-local rank: Slurm nodes
# that share one host (test clusters, some virtual clusters) would collide. Each gets a
# directory of its own then; on ordinary clusters nothing changes.
if [ -n "${SLURMD_NODENAME:-}" ] && [ "$SLURMD_NODENAME" != "$(hostname -s)" ] &&
   [ -z "${OMPI_MCA_btl_vader_backing_directory:-}" ] && [ -d /dev/shm ]; then
  shm_dir="/dev/shm/hpcreward-$(id -u)-$SLURMD_NODENAME"
  mkdir -p -m 0700 "$shm_dir" && export OMPI_MCA_btl_vader_backing_directory=$shm_dir
fi
# srun forwards SIGUSR1 (stop for a requeue) and SIGUSR2 (the trainer is done) to every
# task. Benchmark ranks end when the coordinator tells them, so they ignore both (an ignored
# signal stays ignored across exec); the coordinator installs its own handlers, and until it
# has, a signal is lost rather than fatal (the job script repeats it).
trap '' USR1 USR2
exec "${command[@]}"
