#!/usr/bin/env bash
# gres/gpu on a cluster of its own (slurm-cluster.sh with a stand-in device file, no GPU
# needed): a `--gres=gpu:1` step sees CUDA_VISIBLE_DEVICES=0 and jobs/lib/rank.sh makes its
# first benchmark task a GPU rank; a step without gres has none. What a GPU node's job relies
# on before any CUDA runs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rank=$here/../../jobs/lib/rank.sh
dir=$(mktemp -d /tmp/hpcreward-gres-XXXXXX)
trap '"$here/slurm-cluster.sh" stop "$dir"; rm -rf "$dir"' EXIT
HPCREWARD_SLURM_GPU_FILES=/dev/null "$here/slurm-cluster.sh" start "$dir" 2 >/dev/null
source "$dir/env.sh"
roles=$(timeout 60 srun -p bench -n2 --gres=gpu:1 sh -c "echo \$SLURM_PROCID:\$CUDA_VISIBLE_DEVICES:\$($rank --role)" | sort | paste -sd' ')
echo "with --gres=gpu:1: $roles"
[ "$roles" = "0:0:coordinator 1:0:gpu" ] || { echo "FAIL: expected '0:0:coordinator 1:0:gpu'"; exit 1; }
roles=$(timeout 60 srun -p bench -n2 sh -c "echo \$SLURM_PROCID:\${CUDA_VISIBLE_DEVICES:-}:\$($rank --role)" | sort | paste -sd' ')
echo "without gres: $roles"
[ "$roles" = "0::coordinator 1::cpu" ] || { echo "FAIL: expected '0::coordinator 1::cpu'"; exit 1; }
echo PASS
