#!/usr/bin/env bash
# pipeline-watcher.sh SCRIPT_PID MPIRUN_PID RUN_DIR [GENERATOR_PID]: jobs/local.sh starts this
# in a session of its own. A SIGKILL to local.sh alone (an OOM kill, a harness's hard limit)
# skips its trap; the coordinator would go on serving and the generator on searching, following
# the next run on the directory and writing its report beside that run's generator. Once the
# script is gone this stops them as the trap does: the coordinator (it answers what it accepted
# and closes its log), then, once mpirun has ended, the generator. local.sh ends it on its way out.
set -u
script=$1 mpirun=$2 out=$3 generator=${4:-}
# Gone: no process, or a zombie its parent has not reaped yet (kill -0 still finds one).
alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}
while alive "$script"; do sleep 1; done
if alive "$mpirun"; then  # mpirun outlives the coordinator: with it gone, so is the coordinator
  echo "local.sh: ended without stopping its pipeline (killed): stopping it" >&2
  [ ! -s "$out/coordinator.pid" ] || kill -TERM "$(cat "$out/coordinator.pid")" 2>/dev/null
  while alive "$mpirun"; do sleep 1; done
fi
if [ -n "$generator" ] && alive "$generator"; then kill -TERM "$generator" 2>/dev/null; fi
exit 0
