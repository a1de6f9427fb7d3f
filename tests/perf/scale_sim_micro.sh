#!/usr/bin/env bash
# Builds and runs the micro-benchmarks whose numbers feed scale_sim.py (docs/reports/scale.md):
#   scale_sim_micro.cpp   rank 0's wire encoding, scheduler/watch steps, HDF5 append (product code)
#   scale_sim_pingpong.c  MPI round trip of task-sized and result-sized messages
# Usage: tests/perf/scale_sim_micro.sh [BUILD_DIR (default /work/main/build)] [OUT_DIR]
# Needs a configured and built tree (libhpcreward_*.a), mpicc, mpirun. Runs under nice.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
build="${1:-/work/main/build}"
out="${2:-$(mktemp -d)}"
mkdir -p "$out"
sample="$repo/train_bridge/samples/c/$(ls "$repo/train_bridge/samples/c" | grep -m1 '\.c$' || true)"
c++ -O2 -DNDEBUG -std=c++20 -I"$repo" -isystem /usr/include/hdf5/serial "$here/scale_sim_micro.cpp" \
  -o "$out/scale_sim_micro" -Wl,-rpath,/usr/lib/x86_64-linux-gnu/hdf5/serial \
  "$build/coordinator/libhpcreward_coordinator.a" "$build/results/libhpcreward_results.a" \
  "$build/common/libhpcreward_common.a" /usr/lib/x86_64-linux-gnu/hdf5/serial/libhdf5.so -lcrypto
nice -n 10 "$out/scale_sim_micro" "$sample" "$out" | tee "$out/micro.json"
mpicc -O2 "$here/scale_sim_pingpong.c" -o "$out/scale_sim_pingpong"
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  nice -n 10 mpirun -np 2 --oversubscribe "$out/scale_sim_pingpong" | tee "$out/pingpong.json"
