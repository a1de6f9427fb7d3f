#!/usr/bin/env bash
# CPU machine, after a build: the honest corpus (tests/honest/cases, in gemm-kinds, as
# test_honest.py sends it) and the C answers (tests/answers/c, as test_answers.py sends them)
# through jobs/local.sh with every hpcreward-runner under `strace -f` (hpcreward-bench --runner
# names a wrapper), then the census of what their executors asked of the kernel once the seccomp
# filter was in (tests/gpu/syscall_census.py --executor hpcreward-executor). This is how the CPU
# executor's allow-list (bench_node/sandbox/seccomp_filter.cpp) was measured
# (docs/reports/syscall-census.md); run it again after a glibc, compiler or kernel upgrade and
# compare.
#
#   bash tests/honest/syscall_census_cpu.sh OUT_DIR [hpcreward-bench options ...]
#
# OUT_DIR gets traces/runner.N (one log a runner), honest/ and answers/ (the two runs), rows.tsv
# (each candidate's verdict beside its fair one), census.json and census.txt. The executors run
# slower under ptrace, so every run gets --run-timeout (CENSUS_RUN_TIMEOUT, default 120 s)
# rather than a limit derived from the problem; a verdict that depends on timing may differ from
# an untraced run. One CPU rank (CENSUS_NP): the full checks' executor takes a signal every
# forced-switch period (forced_switches.hpp) and each stops it for strace; with two ranks'
# OpenMP teams and their tracers on two cores, 6 of the 14 honest cases built with OpenMP spent
# their 120 s in those stops and never reached their timed calls (one rank: none; two OpenMP
# answers needed 150 s). Look at the timeouts in rows.tsv before reading the census.
# HPCREWARD_BIN: a copy of build/bin keeps a rebuild during the run out of it; PYTHON: a python3
# with h5py and pytest (the corpus tests' own). Start it from a shell with a process limit that
# the corpus's OpenMP teams fit in (ulimit -u).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(realpath -m "${1:?usage: syscall_census_cpu.sh OUT_DIR [hpcreward-bench options]}")
shift
bin=${HPCREWARD_BIN:-$PWD/build/bin}
python=${PYTHON:-python3}
strace=$(command -v "${STRACE:-strace}") || { echo "syscall_census_cpu: no strace on PATH (apt-get install strace)" >&2; exit 2; }
[ -x "$bin/hpcreward-runner" ] || { echo "syscall_census_cpu: no $bin/hpcreward-runner (build first)" >&2; exit 2; }
mkdir -p "$out/traces"
rm -f "$out/collector.sock"  # a run before's
wrapper=$out/hpcreward-runner
# strace writes to a pipe and the collector, outside the rank, writes the logs (as on GPU ranks,
# tests/gpu/syscall_census.sh): no limit the rank gives its runner then bounds a log.
"$python" tests/gpu/syscall_census.py --collect "$out/traces" --socket "$out/collector.sock" &
collector=$!
trap 'kill $collector 2>/dev/null' EXIT
sleep 1
cat >"$wrapper" <<EOF
#!/bin/sh
exec "$strace" -f -q -X raw -y -s 160 -e signal=none -o "|$python $PWD/tests/gpu/syscall_census.py --send $out/collector.sock" \\
  "$bin/hpcreward-runner" "\$@"
EOF
chmod +x "$wrapper"

# The candidates exactly as the two corpus tests make them.
PYTHONPATH=tests/honest:tests/answers "$python" - "$out" <<'EOF'
import json, pathlib, sys
import test_honest
from answers import answers
out = pathlib.Path(sys.argv[1])
(out / "honest.jsonl").write_text("".join(json.dumps(case) + "\n" for case in test_honest.read_cases()))
(out / "answers.jsonl").write_text("".join(json.dumps(a.line(batch_id="answers")) + "\n" for a in answers("c")))
EOF

bench=(--warmup-s 0.02 --time-cap-s 0.1 --time-limit-factor 0 --run-timeout "${CENSUS_RUN_TIMEOUT:-120}"
       --peak-margin 0 --runner "$wrapper")
status=0
HPCREWARD_BIN=$bin jobs/local.sh --candidates "$out/honest.jsonl" --np "${CENSUS_NP:-1}" --problems gemm-kinds --seed 11 \
  --out "$out/honest" -- --workdir "$out/work-honest" "${bench[@]}" "$@" || status=$?
HPCREWARD_BIN=$bin jobs/local.sh --candidates "$out/answers.jsonl" --np "${CENSUS_NP:-1}" --seed 13 \
  --out "$out/answers" -- --workdir "$out/work-answers" "${bench[@]}" "$@" || status=$?
sleep 2  # the last logs' ends

PYTHONPATH=tests/honest:tests/answers "$python" - "$out" <<'EOF'
import pathlib, sys
import h5py
import test_honest
from answers import answers
out = pathlib.Path(sys.argv[1])
fair = {case["id"]: "ok" for case in test_honest.read_cases()}
fair.update({a.name: "|".join(a.expect) for a in answers("c")})
lines, refused = ["corpus\tcandidate\tfair\tstatus\treason"], []
for corpus in ("honest", "answers"):
    path = out / corpus / "rewards.h5"
    if not path.exists():
        continue
    with h5py.File(path, "r") as log:
        for row in log["rewards"][()]:
            cid, status, reason = (row[n].decode() if isinstance(row[n], bytes) else row[n]
                                   for n in ("candidate_id", "status", "reason"))
            lines.append(f"{corpus}\t{cid}\t{fair.get(cid, '?')}\t{status}\t{reason}")
            if "SIGSYS" in reason and "forbidden" not in fair.get(cid, "").split("|"):
                refused.append(f"{cid} (fair {fair.get(cid)}): {reason}")
(out / "rows.tsv").write_text("\n".join(lines) + "\n")
print(f"{len(lines) - 1} rows (rows.tsv); killed by SIGSYS where the fair verdict is not forbidden: "
      f"{len(refused)}" + "".join(f"\n  {line}" for line in refused))
EOF
"$python" tests/gpu/syscall_census.py --executor hpcreward-executor "$out"/traces/runner.* \
  --json "$out/census.json" >"$out/census.txt" || status=$?
head -c 20000 "$out/census.txt"
exit "$status"
