#!/usr/bin/env bash
# Runs a GPU test's command when this machine has an NVIDIA GPU, else skips with the reason
# (exit 77, ctest's SKIP_RETURN_CODE): CI has the CUDA Toolkit but no GPU. The GPU machine
# runs these (tests/gpu/README.md), and docs/reports/gpu-runs.md records each run.
set -uo pipefail
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "SKIPPED: no NVIDIA GPU on this machine (nvidia-smi lists none); run tests/gpu/README.md's recipe on a GPU machine"
  exit 77
fi
exec "$@"
