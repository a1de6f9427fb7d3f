#!/usr/bin/env bash
# On a GPU machine: what a fresh process's CUDA context costs with each number of work queues,
# and what making and tearing contexts down does to calls timed on the same GPU and (with two
# GPUs) on the other one. About 2 minutes on one GPU, 3.5 on two. Writes context_probe.cu's lines
# into OUT and prints context_probe_report.py's tables (docs/reports/gpu-runs.md).
#   bash tests/gpu/context_probe.sh OUT
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: tests/gpu/context_probe.sh OUT" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out"
probe=$out/context_probe
"${NVCC:-/usr/local/cuda/bin/nvcc}" -O2 -std=c++17 -arch=sm_90 -o "$probe" "$here/context_probe.cu" -lcublas
gpus=$(nvidia-smi -L | wc -l)

# Contexts while another process runs short kernels on the GPU, as while a candidate verifies.
CUDA_VISIBLE_DEVICES=0 "$probe" timed 600 spin50 > /dev/null &
busy=$!
for queues in 8 4 2 1; do
  CUDA_VISIBLE_DEVICES=0 CUDA_DEVICE_MAX_CONNECTIONS=$queues "$probe" steps 30 > "$out/steps-q$queues.txt" 2> /dev/null
done
# With two GPUs: the same contexts (4 queues) beside another GPU's processes that only start the
# driver (as a GPU rank's next executor does beside its timed calls), and beside contexts made and
# torn down there (another rank's set-ups and ends).
if [ "$gpus" -ge 2 ]; then
  for beside in starts churn; do
    CUDA_VISIBLE_DEVICES=1 CUDA_DEVICE_MAX_CONNECTIONS=4 "$probe" $beside 15 > "$out/beside-$beside.txt" 2> /dev/null &
    other=$!
    sleep 0.3
    CUDA_VISIBLE_DEVICES=0 CUDA_DEVICE_MAX_CONNECTIONS=4 "$probe" steps 30 > "$out/steps-q4-beside-$beside.txt" 2> /dev/null
    wait "$other"
  done
fi
kill "$busy"; wait "$busy" 2> /dev/null || true

# Calls timed on GPU 0 alone, then beside contexts churned on the same GPU and on the other.
places=same
[ "$gpus" -ge 2 ] && places="same other"
for kind in spin50 copy sgemm; do
  CUDA_VISIBLE_DEVICES=0 "$probe" timed 6 $kind > "$out/timed-$kind-quiet.txt"
  for place in $places; do
    device=$([ $place = same ] && echo 0 || echo 1)
    for queues in 8 4; do
      CUDA_VISIBLE_DEVICES=$device CUDA_DEVICE_MAX_CONNECTIONS=$queues "$probe" churn 7 \
        > "$out/churn-$kind-$place-q$queues.txt" 2> /dev/null &
      churn=$!
      sleep 0.3
      CUDA_VISIBLE_DEVICES=0 "$probe" timed 6 $kind > "$out/timed-$kind-$place-q$queues.txt"
      wait "$churn"
    done
  done
done
python3 "$here/context_probe_report.py" "$out"
