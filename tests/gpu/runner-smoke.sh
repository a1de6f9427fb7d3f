#!/usr/bin/env bash
# GPU machine: every case in tests/gpu/cases/ straight through nvcc and hpcreward-gpu-runner
# (no rank, no audit): the harness's own verdicts and timings, and the canary after each.
# Each case's first line says what it expects: `// expect: STATUS   problem: ID`.
set -uo pipefail
cd "$(dirname "$0")/../.."
. ./build-gpu.env
bin=build-gpu/bin
work=$(mktemp -d)
"$bin/hpcreward-gpu-runner" --probe --ceiling-size 8192 --result-fd 3 --token-fd 4 3>"$work/probe.json" 4< <(echo probe)
echo "probe: $(cat "$work/probe.json")"
pass=0; fail=0
# NvccCompiler's command line (bench_node/cuda/nvcc_compiler.hpp), its version script too.
printf '{\n  global: matmul; _Z6matmul*;\n  local: *;\n};\n' >"$work/cand.exports"
for case in tests/gpu/cases/*.cu; do
  name=$(basename "$case" .cu)
  expect=$(sed -n '1s/.*expect: *\([a-z_]*\).*/\1/p' "$case")
  problem=$(sed -n '1s/.*problem: *\([a-z0-9-]*\).*/\1/p' "$case")
  case $expect in forbidden|constraint_violation|compile_error|format_error) continue ;; esac
  precision=f32; [[ $problem == cuda-dgemm* ]] && precision=f64; [[ $problem == cuda-hgemm* ]] && precision=f16
  size=${problem##*-}
  tol=2e-3; etol=1e-2; [ $precision = f64 ] && { tol=1e-12; etol=1e-10; }
  nvcc -shared -Xcompiler -fPIC -cudart shared -gencode=arch=compute_90a,code=sm_90a -O3 \
    -Xcompiler -ffunction-sections -Xlinker --gc-sections,--version-script="$work/cand.exports" -Xlinker -z,defs \
    -o "$work/$name.so" "$case" 2>"$work/$name.nvcc" || { echo "$name: nvcc failed"; cat "$work/$name.nvcc"; fail=$((fail+1)); continue; }
  start=$(date +%s.%N)
  # The rank's RLIMIT_DATA (--gpu-host-memory-mb 16384): host_memory_bomb must meet it here too.
  ( cd "$work" && ulimit -d $((16384 << 10)) && timeout 25 env CUDA_VISIBLE_DEVICES=0 CUDA_CACHE_DISABLE=1 "$OLDPWD/$bin/hpcreward-gpu-runner" --object "$work/$name.so" \
      --precision $precision --nominal ${size}x${size}x${size} --check $((size+1))x$((size-1))x$((size+7)) --check 31x17x23 \
      --tolerance $tol --element-tolerance $etol --warmup-s 0.2 --min-reps 5 --max-reps 200 --target-rse 0.01 \
      --time-cap-s 2 --l2-bytes 52428800 --ring-bytes 4294967296 3>"$work/$name.json" 4< <(echo tok) >"$work/$name.out" 2>&1 )
  rc=$?
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  got=$(python3 -c "import json,sys; d=json.load(open('$work/$name.json')); m=d['measurement']; print(m['status'], round(m['gflops'],1), round(m['verify_s'],2), round(m['time_s'],2), m['reps'], '|', m['reason'][:150])" 2>/dev/null || echo "no-result rc=$rc")
  [ $rc -eq 124 ] && got="timeout (killed at 25 s)"
  canary=$("$bin/hpcreward-gpu-runner" --canary --result-fd 3 --token-fd 4 3>&1 4< <(echo c) 2>/dev/null)
  status=${got%% *}; [ "$status" = "$expect" ] && pass=$((pass+1)) || fail=$((fail+1))
  printf '%-22s expect %-14s got %s  [wall %.1f s] canary=%s\n' "$name" "$expect" "$got" "$wall" "$canary"
done
echo "runner-smoke: $pass as expected, $fail not"
