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
cat >"$wrapper" <<EOF
#!/bin/sh
exec /lib64/ld-linux-x86-64.so.2 --library-path "$deps/usr/lib/x86_64-linux-gnu" "$deps/usr/bin/strace" \\
  -f -q -X raw -y -s 160 -e signal=none -o "$out/traces/runner.\$\$" "$PWD/build-gpu/bin/hpcreward-gpu-runner" "\$@"
EOF
chmod +x "$wrapper"
HPCREWARD_BIN=${HPCREWARD_BIN:-$PWD/build-gpu/bin} python3 tests/gpu/gpu_corpus.py --out "$out/corpus" \
  --gpu-arg=--gpu-runner --gpu-arg="$wrapper" --gpu-arg=--gpu-run-timeout --gpu-arg=120 "$@" || true
python3 tests/gpu/syscall_census.py "$out"/traces/runner.* --json "$out/census.json" >"$out/census.txt"
head -c 20000 "$out/census.txt"
