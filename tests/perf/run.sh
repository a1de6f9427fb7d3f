#!/usr/bin/env bash
# The benchmark suite: builds what it needs, runs every measurement, writes
# DIR/report.md and DIR/bench.json (tests/perf/README.md says how to read them).
set -euo pipefail
usage() {
  cat <<'USAGE'
usage: tests/perf/run.sh [--quick | --check] [--build DIR] [--no-build] [--only PARTS] --out DIR

  --quick      fewer pairs, rounds and clients: under 10 minutes on 2 cores
  --check      tiny corpora and runs: that each measurement runs and its bench.json fields
               exist (exit 1 otherwise); the targets are not judged (ctest perf.suite_check)
  --build DIR  the CMake build folder (default build); its bin/ holds the executables
  --no-build   do not run cmake --build (the executables must exist)
  --only PARTS comma-separated: throughput_mixed,throughput_grpo,dispatch,endpoint,fidelity,scale
  --out DIR    where report.md, bench.json and every part's files go
USAGE
}
repo=$(cd "$(dirname "$0")/../.." && pwd)
mode=full build="$repo/build" do_build=1 out="" only="" check=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) mode=quick ;;
    --check) mode=check; check=(--check) ;;
    --build) build=${2:?--build needs a folder}; shift ;;
    --no-build) do_build=0 ;;
    --only) only=${2:?--only needs a list of parts}; shift ;;
    --out) out=${2:?--out needs a folder}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$out" ] || { echo "run.sh: --out DIR is required (see --help)" >&2; exit 2; }
# The suite runs from tests/perf: folders given relative to where run.sh was called stay so.
build=$(realpath -m -- "$build") out=$(realpath -m -- "$out")
python=${HPCREWARD_PYTHON:-/usr/bin/python3}
command -v "$python" >/dev/null || { echo "run.sh: no python at $python; set HPCREWARD_PYTHON" >&2; exit 2; }
if [ "$do_build" = 1 ]; then
  [ -f "$build/CMakeCache.txt" ] || { echo "run.sh: $build is not a configured CMake build folder (see README.md)" >&2; exit 2; }
  nice cmake --build "$build" -j"$(nproc)" --target hpcreward-coordinator hpcreward-bench hpcreward-runner \
    hpcreward-results hpcreward-fidelity
fi
for exe in hpcreward-coordinator hpcreward-bench hpcreward-runner hpcreward-results hpcreward-fidelity; do
  [ -x "$build/bin/$exe" ] || { echo "run.sh: $build/bin/$exe is missing (build it or drop --no-build)" >&2; exit 2; }
done
args=(--mode "$mode" --bin "$build/bin" --out "$out")
[ -n "$only" ] && args+=(--only "$only")
cd "$repo/tests/perf"
exec "$python" suite.py "${args[@]}" "${check[@]}"
