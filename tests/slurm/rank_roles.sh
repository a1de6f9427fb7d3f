#!/usr/bin/env bash
# jobs/lib/rank.sh's choice of role per task, without Slurm: task 0 is the coordinator; on a
# node whose tasks see G GPUs the first G benchmark ranks there are GPU ranks (on the first
# node the coordinator holds local id 0); the rest are CPU ranks; --gpu-ranks none: no GPU ranks.
# `rank.sh --node-gpus`, for the job script's node check, counts by the same rule.
set -euo pipefail
rank=$(cd "$(dirname "$0")/../.." && pwd)/jobs/lib/rank.sh
failures=0
expect() {  # expect ROLE VAR=VALUE...
  local want=$1 got
  shift
  got=$(env -u CUDA_VISIBLE_DEVICES -u HPCREWARD_GPU_RANKS SLURM_NODEID=0 SLURM_LOCALID=0 "$@" "$rank" --role)
  if [ "$got" = "$want" ]; then echo "ok: $* -> $got"; else echo "FAIL: $* -> $got, expected $want"; failures=$((failures + 1)); fi
}
expect coordinator SLURM_PROCID=0
expect cpu SLURM_PROCID=1 SLURM_LOCALID=1
expect gpu SLURM_PROCID=1 SLURM_LOCALID=1 CUDA_VISIBLE_DEVICES=0,1
expect gpu SLURM_PROCID=2 SLURM_LOCALID=2 CUDA_VISIBLE_DEVICES=0,1
expect cpu SLURM_PROCID=3 SLURM_LOCALID=3 CUDA_VISIBLE_DEVICES=0,1
expect gpu SLURM_PROCID=4 SLURM_NODEID=1 SLURM_LOCALID=0 CUDA_VISIBLE_DEVICES=2,3
expect gpu SLURM_PROCID=5 SLURM_NODEID=1 SLURM_LOCALID=1 CUDA_VISIBLE_DEVICES=2,3
expect cpu SLURM_PROCID=6 SLURM_NODEID=1 SLURM_LOCALID=2 CUDA_VISIBLE_DEVICES=2,3
expect cpu SLURM_PROCID=1 SLURM_LOCALID=1 CUDA_VISIBLE_DEVICES=NoDevFiles
expect cpu SLURM_PROCID=1 SLURM_LOCALID=1 CUDA_VISIBLE_DEVICES=0 HPCREWARD_GPU_RANKS=none
# The job script's node check asks how many GPU ranks a node can hold.
gpus() {  # gpus WANT VAR=VALUE...
  local want=$1 got
  shift
  got=$(env -u CUDA_VISIBLE_DEVICES -u HPCREWARD_GPU_RANKS "$@" "$rank" --node-gpus)
  if [ "$got" = "$want" ]; then echo "ok: --node-gpus $* -> $got"; else echo "FAIL: --node-gpus $* -> $got, expected $want"; failures=$((failures + 1)); fi
}
gpus 0
gpus 2 CUDA_VISIBLE_DEVICES=0,1
gpus 0 CUDA_VISIBLE_DEVICES=NoDevFiles
gpus 0 CUDA_VISIBLE_DEVICES=0 HPCREWARD_GPU_RANKS=none
[ "$failures" -eq 0 ]
