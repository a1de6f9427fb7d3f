#!/usr/bin/env bash
# Slurm with GPUs on the GPU machine: Debian's Slurm and munge unpacked from .gpu-deps/slurm
# (fetch-device-deps.sh; the machine has no package registry), a two-node cluster on this one
# machine whose bench node offers every /dev/nvidiaN as gres/gpu, then tests/slurm/gpu_requeue.sh:
# a mixed C and CUDA job with --gres=gpu:1, requeued once by SIGUSR1, every candidate logged
# exactly once. Exit 77 with the reason where there is no GPU or Slurm cannot start.
#
#   HPCREWARD_BIN=build-gpu/bin tests/gpu/slurm-gpu.sh
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
: "${HPCREWARD_BIN:?the folder of the built executables (build-gpu/bin on the GPU machine)}"
gpu_files=$(ls /dev/nvidia[0-9]* 2>/dev/null | tr '\n' ' ')
if [ -z "$gpu_files" ]; then
  echo "SKIPPED: no /dev/nvidiaN device file on this machine"
  exit 77
fi
dir=$(mktemp -d /tmp/hpcreward-slurm-gpu-XXXXXX)
trap '"$repo/tests/slurm/slurm-cluster.sh" stop "$dir"' EXIT
export HPCREWARD_SLURM_DEBS=${HPCREWARD_SLURM_DEBS:-$repo/.gpu-deps/slurm}
HPCREWARD_SLURM_GPU_FILES=$gpu_files "$repo/tests/slurm/slurm-cluster.sh" start "$dir" 2 >/dev/null
echo "slurm-gpu: cluster in $dir, gres/gpu: $gpu_files"
SLURM_TEST_CLUSTER=$dir SLURM_TEST_RUNS=${SLURM_TEST_RUNS:-$dir/runs} "$repo/tests/slurm/gpu_requeue.sh"
