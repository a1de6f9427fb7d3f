#!/usr/bin/env bash
# hpcreward-prompts without a pipeline: a prompt per problem and stage, JSON Lines, the field
# list, a template of the user's, and refusals that say what to fix.
set -euo pipefail
prompts=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$prompts" dgemm-256 > "$work/text"
grep -q '^=== dgemm-256, stage o0 ===$' "$work/text" || fail "no o0 prompt: $(head -3 "$work/text")"
grep -q 'void matmul(int m, int n, int k, const double \*A, const double \*B, double \*C)' "$work/text" || fail "no signature"

"$prompts" --json --all-stages --problems gemm-kinds dgemm-tn-256 cuda-bf16-nt-4096 > "$work/lines"
[ "$(wc -l < "$work/lines")" -eq 14 ] || fail "want 6 C and 8 CUDA stages, got $(wc -l < "$work/lines") lines"
python3 - "$work/lines" <<'PY' || fail "JSON Lines"
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
assert {r["problem"] for r in rows} == {"dgemm-tn-256", "cuda-bf16-nt-4096"}, rows
assert all(set(r) == {"problem", "stage", "current_stage", "prompt"} for r in rows)
assert any(r["stage"] == "cuda-cute" and "cute/tensor.hpp" in r["prompt"] for r in rows)
PY

# Output to a file before grep -q: grep -q ends at its match, and under pipefail the writer's
# SIGPIPE would fail the test whenever it had not finished writing.
"$prompts" --fields > "$work/fields"
grep -q '^{{node}}  ' "$work/fields" || fail "--fields lists no node"
printf 'Problem {{problem}} at {{stage}}: {{signature}}\n' > "$work/mine.txt"
out=$("$prompts" --template "$work/mine.txt" --stage o3 sgemm-512)
grep -q '^Problem sgemm-512 at o3: void matmul(int m, int n, int k, const float \*A' <<< "$out" || fail "template: $out"

printf 'Hello {{problme}}\n' > "$work/typo.txt"
if "$prompts" --template "$work/typo.txt" dgemm-256 2> "$work/err"; then fail "a misspelt field passed"; fi
grep -q 'typo.txt:1: no prompt field {{problme}}' "$work/err" || fail "typo: $(cat "$work/err")"
if "$prompts" --stage cuda-smem dgemm-256 2> "$work/err"; then fail "a CUDA stage for a C problem passed"; fi
grep -q 'stage cuda-smem is for cuda problems' "$work/err" || fail "stage: $(cat "$work/err")"

printf '[{"rank": 1, "host": "n1", "cores": 4, "compiler_version": "nvcc 13.0", "blas_version": "cuBLAS", "kind": "gpu", "gpu": {"name": "NVIDIA H200", "arch": "sm_90a"}}]\n' > "$work/hosts.json"
"$prompts" --hosts "$work/hosts.json" cuda-hgemm-4096 > "$work/hosts-prompt"
grep -q 'Your code runs on: NVIDIA H200 (sm_90a); compiler nvcc 13.0.' "$work/hosts-prompt" \
  || fail "hosts: $(grep runs "$work/hosts-prompt")"
echo "prompts command line: ok"
