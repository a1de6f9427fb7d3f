#!/usr/bin/env bash
# GPU machine, after device-build.sh: the GPU corpus (gpu_corpus.py, every case C and CUDA, the
# serving runner as the rank starts it) with each hpcreward-gpu-runner under `strace -f`, then
# the census of what its executors asked of the kernel after their seccomp filter was in
# (syscall_census.py). This is how the GPU executor's allow-list (gpu_seccomp_filter.cpp) was
# measured; run it again after a driver or CUDA upgrade and compare.
#
#   bash tests/gpu/syscall_census.sh OUT_DIR [gpu_corpus.py options ...]
#
# strace comes from fetch-device-deps.sh (Debian 12's, run through its own loader path so the
# runner's environment is untouched). The executors run slower under ptrace, so the rank's run
# timeout is raised; statuses that depend on timing may differ from an untraced run.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(realpath -m "${1:?usage: syscall_census.sh OUT_DIR [gpu_corpus.py options]}")
shift
deps=$PWD/.gpu-deps/strace
[ -x "$deps/usr/bin/strace" ] || { echo "syscall_census: no strace in $deps (run tests/gpu/fetch-device-deps.sh on the CPU machine and carry .gpu-deps)" >&2; exit 2; }
mkdir -p "$out/traces"
wrapper=$out/hpcreward-gpu-runner
# The rank limits the runner's file size to a page (RLIMIT_FSIZE), strace's too: strace writes
# to a pipe, and the collector (started here, outside the rank) writes the logs.
python3 tests/gpu/syscall_census.py --collect "$out/traces" --socket "$out/collector.sock" &
collector=$!
trap 'kill $collector 2>/dev/null' EXIT
sleep 1
cat >"$wrapper" <<EOF
#!/bin/sh
exec /lib64/ld-linux-x86-64.so.2 --library-path "$deps/usr/lib/x86_64-linux-gnu" "$deps/usr/bin/strace" \\
  -f -q -X raw -y -s 160 -e signal=none -o "|python3 $PWD/tests/gpu/syscall_census.py --send $out/collector.sock" \\
  "$PWD/build-gpu/bin/hpcreward-gpu-runner" "\$@"
EOF
chmod +x "$wrapper"
# CENSUS_SECONDS bounds the corpus run (its session is ended then; the census reads what the
# traces hold so far).
HPCREWARD_BIN=${HPCREWARD_BIN:-$PWD/build-gpu/bin} setsid python3 tests/gpu/gpu_corpus.py --out "$out/corpus" \
  --gpu-arg=--gpu-runner --gpu-arg="$wrapper" --gpu-arg=--gpu-run-timeout --gpu-arg=120 "$@" &
corpus=$!
(sleep "${CENSUS_SECONDS:-3600}"; kill -TERM -- -"$corpus" 2>/dev/null; sleep 5; kill -KILL -- -"$corpus" 2>/dev/null) &
ender=$!
wait "$corpus" || true
kill "$ender" 2>/dev/null || true
sleep 2  # the last logs' ends
python3 tests/gpu/syscall_census.py "$out"/traces/runner.* --json "$out/census.json" >"$out/census.txt"
head -c 20000 "$out/census.txt"
