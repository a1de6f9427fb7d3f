#!/usr/bin/env bash
# A real Slurm on this one machine for the Slurm tests: munged, slurmctld and one
# `slurmd -N nI` per node, each with its own port, spool directory, pid and log file.
# Two partitions: `train` (node n1, the trainer's) and `bench` (nodes n2..nN, the
# coordinator's and the benchmark ranks'). Everything lives under DIR; nothing in /etc is
# touched, so it runs beside a cluster the machine may already belong to.
#
#   tests/slurm/slurm-cluster.sh start DIR [NODES]   (default 3 nodes; prints DIR/env.sh)
#   tests/slurm/slurm-cluster.sh stop DIR            (stops what start started, by pid)
#
# With HPCREWARD_SLURM_GPU_FILES set (device files, space-separated, e.g. "/dev/nvidia0"), the
# bench nodes offer them as gres/gpu (gres.conf), so `--gres=gpu:N` jobs get CUDA_VISIBLE_DEVICES.
#
# Clients need `source DIR/env.sh` (SLURM_CONF). Installs Debian's slurm-wlm and munge when
# they are missing (root only; from the .deb files in HPCREWARD_SLURM_DEBS when set). Exit 77
# when Slurm cannot start here at all, with the reason.
set -euo pipefail

skip() { echo "slurm-cluster: SKIP: $*" >&2; exit 77; }
fail() { echo "slurm-cluster: $*" >&2; exit 1; }

# A machine without a package registry (the GPU machine): Debian's packages fetched elsewhere
# (tests/gpu/fetch-device-deps.sh) are unpacked into /, each library package only where the
# machine has none of its libraries (its own newer ones stay). Through a staging folder and
# tar's --keep-directory-symlink: on a merged-/usr system /lib is a link to usr/lib, and
# `dpkg -x DEB /` replaces it with a folder holding only the package's files, after which the
# linker no longer finds libc (every compile on the machine fails).
unpack_into_root() {
  local stage
  stage=$(mktemp -d)
  dpkg -x "$1" "$stage"
  tar -C "$stage" -cf - . | tar -C / -xf - --keep-directory-symlink --no-overwrite-dir
  rm -rf "$stage"
}
unpack_slurm_debs() {
  local debs=$1 deb file have
  [ "$(id -u)" -eq 0 ] || skip "unpacking the packages in $debs needs root"
  for deb in "$debs"/*.deb; do
    have=0
    case "$(basename "$deb")" in
      lib*)
        for file in $(dpkg-deb -c "$deb" | awk '{print ($(NF-1) == "->") ? $(NF-2) : $NF}' | grep -E '\.so(\.[0-9]+)*$' | sed 's|^\./|/|'); do
          [ -e "$file" ] && have=1
        done ;;
    esac
    [ "$have" -eq 1 ] || unpack_into_root "$deb"
  done
  # Debian's daemons are slurmctld-wlm and slurmd-wlm; their postinst (not run here) links the
  # plain names through update-alternatives.
  for file in /usr/sbin/*-wlm; do
    [ -e "${file%-wlm}" ] || ln -s "$file" "${file%-wlm}"
  done
}

install_slurm() {
  if [ -n "${HPCREWARD_SLURM_DEBS:-}" ] && ! command -v slurmctld >/dev/null; then
    echo "slurm-cluster: unpacking the packages in $HPCREWARD_SLURM_DEBS" >&2
    unpack_slurm_debs "$HPCREWARD_SLURM_DEBS"
  fi
  command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null &&
    command -v sbatch >/dev/null && return 0
  [ "$(id -u)" -eq 0 ] || skip "slurmctld, slurmd, munged or sbatch missing and not root to install them (apt-get install slurmctld slurmd slurm-client munge)"
  command -v apt-get >/dev/null || skip "slurm is missing and there is no apt-get to install it"
  echo "slurm-cluster: installing slurmctld slurmd slurm-client munge (Debian packages)" >&2
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null 2>&1; then
    apt-get update >/dev/null 2>&1 || true
    apt-get install -y --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null ||
      skip "could not install slurmctld slurmd slurm-client munge with apt-get"
  fi
}

# Free TCP ports, one per line: the controller's and one per node.
free_ports() {
  python3 - "$1" <<'PY'
import socket, sys
sockets = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); sockets.append(s)
print("\n".join(str(s.getsockname()[1]) for s in sockets))
PY
}

wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
  local seconds=$1 what=$2
  shift 2
  for _ in $(seq $((seconds * 5))); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  return 1
}

start() {
  local dir=$1 nodes=${2:-3}
  [ "$nodes" -ge 2 ] || fail "need at least 2 nodes (one for each partition)"
  install_slurm
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  [ ! -e "$dir/slurm.conf" ] || fail "$dir already holds a cluster; stop it first: $0 stop $dir"
  # munged refuses sockets under directories others cannot search (--force allows it) and
  # keys readable by others.
  mkdir -p "$dir/munge" "$dir/state" "$dir/log"
  chmod 0755 "$dir" "$dir/munge"
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 0400 "$dir/munge/munge.key"
  munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
    --seed-file="$dir/munge/munged.seed" 2>"$dir/log/munged.stderr" ||
    skip "munged does not start: $(cat "$dir/log/munged.stderr")"

  local ports cpus
  mapfile -t ports < <(free_ports $((nodes + 1)))
  cpus=$(nproc)
  [ "$cpus" -ge 4 ] || cpus=4  # nodes may claim more CPUs than the machine (config_overrides)
  {
    echo "# Written by tests/slurm/slurm-cluster.sh: $nodes nodes on one machine."
    echo "ClusterName=hpcrtest"
    echo "SlurmctldHost=localhost(127.0.0.1)"
    echo "SlurmctldPort=${ports[0]}"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "AuthType=auth/munge"
    echo "CredType=cred/munge"
    # Short credentials and scheduler passes: a requeued job restarts in seconds.
    echo "AuthInfo=socket=$dir/munge/munge.socket,cred_expire=10"
    echo "StateSaveLocation=$dir/state"
    echo "SlurmctldPidFile=$dir/slurmctld.pid"
    echo "SlurmctldLogFile=$dir/log/slurmctld.log"
    echo "SlurmdSpoolDir=$dir/spool/%n"
    echo "SlurmdPidFile=$dir/slurmd-%n.pid"
    echo "SlurmdLogFile=$dir/log/slurmd-%n.log"
    # PMIx makes a per-step directory of the same name on every node: one TmpFS per node.
    echo "TmpFS=$dir/tmp/%n"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "MpiDefault=pmix"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_CPU"
    echo "SlurmdParameters=config_overrides"
    echo "SchedulerType=sched/backfill"
    echo "SchedulerParameters=bf_interval=1,sched_interval=2"
    echo "ReturnToService=2"
    echo "JobRequeue=1"
    echo "KillWait=5"
    echo "MinJobAge=600"
    echo "InactiveLimit=0"
    echo "SlurmctldTimeout=30"
    echo "SlurmdTimeout=30"
    echo "SlurmctldDebug=info"
    echo "SlurmdDebug=info"
    local gres=""
    if [ -n "${HPCREWARD_SLURM_GPU_FILES:-}" ]; then
      local gpu_files=($HPCREWARD_SLURM_GPU_FILES)
      echo "GresTypes=gpu"
      gres=" Gres=gpu:${#gpu_files[@]}"
      local file
      for file in "${gpu_files[@]}"; do echo "NodeName=n[2-$nodes] Name=gpu File=$file"; done >"$dir/gres.conf"
    fi
    local i
    for i in $(seq 1 "$nodes"); do
      local node_gres=$gres
      [ "$i" -gt 1 ] || node_gres=""
      echo "NodeName=n$i NodeHostname=$(hostname) NodeAddr=127.0.0.1 Port=${ports[$i]} CPUs=$cpus RealMemory=2000${node_gres} State=UNKNOWN"
    done
    echo "PartitionName=train Nodes=n1 Default=NO MaxTime=INFINITE State=UP OverSubscribe=NO"
    echo "PartitionName=bench Nodes=n[2-$nodes] Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO"
  } >"$dir/slurm.conf"
  # The cluster uses no cgroup (proctrack/linuxproc, task/none), yet Slurm 22.05's daemons load
  # a cgroup plugin: cgroup/v1's start touches nothing, where cgroup/v2's needs systemd or a
  # hierarchy it may write (a cgroup v2 container without systemd has neither).
  echo "CgroupPlugin=cgroup/v1" >"$dir/cgroup.conf"
  for i in $(seq 1 "$nodes"); do mkdir -p "$dir/spool/n$i" "$dir/tmp/n$i"; done
  printf 'export SLURM_CONF=%s\n' "$dir/slurm.conf" >"$dir/env.sh"
  export SLURM_CONF=$dir/slurm.conf

  slurmctld -i -f "$dir/slurm.conf" 2>"$dir/log/slurmctld.stderr" ||
    skip "slurmctld does not start: $(tail -3 "$dir/log/slurmctld.stderr" "$dir/log/slurmctld.log" 2>/dev/null)"
  wait_for 20 "the controller" scontrol ping || skip "slurmctld does not answer: $(tail -5 "$dir/log/slurmctld.log")"
  for i in $(seq 1 "$nodes"); do
    if ! slurmd -N "n$i" -f "$dir/slurm.conf" 2>"$dir/log/slurmd-n$i.stderr"; then
      sleep 1  # the daemon's last log lines
      local why
      why=$(cat "$dir/log/slurmd-n$i.stderr" "$dir/log/slurmd-n$i.log" 2>/dev/null | grep -i 'error' | tail -3 | tr '\n' ' ')
      if ! grep -qs cgroup /proc/mounts; then
        why="$why(Slurm 22.05's slurmd needs a mounted cgroup file system under /sys/fs/cgroup, and this machine has none)"
      fi
      skip "slurmd -N n$i does not start: ${why:-see $dir/log/slurmd-n$i.log}"
    fi
  done
  idle() { [ "$(sinfo -h -N -o '%t' | grep -c '^idle$')" -eq "$nodes" ]; }
  wait_for 30 "the nodes" idle || skip "the nodes did not come up idle: $(sinfo -N 2>&1; tail -5 "$dir/log/slurmctld.log")"
  echo "$dir/env.sh"
}

stop_pid_file() {
  local file=$1
  [ -s "$file" ] || return 0
  local pid
  pid=$(cat "$file")
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}

stop() {
  local dir=$1
  [ -e "$dir/slurm.conf" ] || return 0
  export SLURM_CONF=$dir/slurm.conf
  scancel --full --quiet --user="$(id -un)" 2>/dev/null || true
  local file
  for file in "$dir"/slurmd-*.pid; do stop_pid_file "$file"; done
  stop_pid_file "$dir/slurmctld.pid"
  stop_pid_file "$dir/munge/munged.pid"
  rm -f "$dir/slurm.conf"
}

case "${1:-}" in
  start) [ $# -ge 2 ] || fail "usage: $0 start DIR [NODES]"; start "$2" "${3:-3}" ;;
  stop) [ $# -ge 2 ] || fail "usage: $0 stop DIR"; stop "$2" ;;
  *) echo "usage: $0 start DIR [NODES] | stop DIR" >&2; exit 2 ;;
esac
