#!/usr/bin/env bash
# The ctest fixture around slurm-cluster.sh: `start DIR` stops a cluster an earlier run left
# in DIR, then starts one; when Slurm cannot start here it records why in DIR/skipped and
# succeeds, so each Slurm test skips (exit 77) with that reason. `stop DIR` stops it.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=$2
case "$1" in
  start)
    "$here/slurm-cluster.sh" stop "$dir" || true
    rm -rf "$dir"
    mkdir -p "$dir"
    "$here/slurm-cluster.sh" start "$dir" 3 2>"$dir/start.stderr"
    status=$?
    cat "$dir/start.stderr" >&2
    if [ "$status" -eq 77 ]; then
      grep 'SKIP' "$dir/start.stderr" | tail -1 >"$dir/skipped"
      rm -f "$dir/env.sh"
      exit 0
    fi
    exit "$status" ;;
  stop) "$here/slurm-cluster.sh" stop "$dir" ;;
esac
