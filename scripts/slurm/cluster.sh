#!/usr/bin/env bash
# A one-node Slurm cluster on the loopback, for make slurm-check (scripts/slurm-check.sh)
# and for trying the job scripts of docs/ci.md (On a Slurm cluster) by hand:
#
#   scripts/slurm/cluster.sh start STATE_DIR   # installs what is missing, starts munged, slurmctld, slurmd
#   export SLURM_CONF=STATE_DIR/etc/slurm.conf # then sbatch, squeue, sinfo, scancel talk to it
#   scripts/slurm/cluster.sh stop STATE_DIR    # stops the daemons start started (safe to call twice)
#
# Everything is under STATE_DIR: the munge key and socket, slurm.conf, the logs, the
# pid files, slurmctld's state and slurmd's spool. Nothing under /etc is written and no
# system service is started or stopped (on a machine with systemd, installing munge may
# start the system's munged on its own socket: this cluster does not use it).
#
# Settings for a container or VM without systemd and without cgroup access:
# proctrack/linuxproc (processes found through /proc, not cgroups), task/none (no
# binding), no accounting, SlurmUser and SlurmdUser root; select/cons_tres with CR_CPU
# so that each CPU runs an array task. The ports are CASTCHUNK_SLURMCTLD_PORT and
# CASTCHUNK_SLURMD_PORT (default 26817 and 26818: not Slurm's 6817 and 6818, which a
# real cluster on the machine would hold, and below Linux's ephemeral ports, 32768 up,
# which outgoing connections take); start refuses a port something listens on.
set -euo pipefail

usage() {
  echo "usage: $0 start|stop|status STATE_DIR" >&2
  exit 2
}
[ $# -eq 2 ] || usage
action=$1
state=$2
case $state in
  /*) ;;
  *) state=$PWD/$state ;;
esac

ctld_port=${CASTCHUNK_SLURMCTLD_PORT:-26817}
slurmd_port=${CASTCHUNK_SLURMD_PORT:-26818}
node=$(hostname -s)
conf=$state/etc/slurm.conf
socket=$state/munge/munge.socket.2
# A Unix socket's path is at most 107 bytes.
case $state in
  *[[:space:],#=]*) echo "cluster.sh: STATE_DIR holds white space, a comma, # or =, which slurm.conf cannot hold: $state" >&2; exit 2 ;;
esac
[ ${#socket} -le 100 ] || { echo "cluster.sh: STATE_DIR is too long for munge's socket ($socket): choose a shorter one" >&2; exit 2; }

log() { echo "cluster.sh: $*" >&2; }

# The tail of a daemon's log, after a failure.
show_log() {
  local f=$1
  if [ -s "$f" ]; then
    echo "---- last lines of $f ----" >&2
    tail -n 30 "$f" >&2
    echo "----" >&2
  else
    echo "($f is empty or missing)" >&2
  fi
}

die() {
  log "error: $*"
  exit 1
}

# The pid in a pid file when that process is alive and runs the expected program
# (a pid file left by a crash may name a pid reused since by something else).
live_pid() {
  local pidfile=$1 prog=$2 pid comm
  [ -s "$pidfile" ] || return 1
  pid=$(cat "$pidfile")
  case $pid in '' | *[!0-9]*) return 1 ;; esac
  comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
  [ "$comm" = "$prog" ] || return 1
  echo "$pid"
}

# Installs what is missing, with apt-get (update first, only when something is).
install_missing() {
  local need=() sudo=""
  command -v munged >/dev/null || [ -x /usr/sbin/munged ] || need+=(munge)
  command -v slurmctld >/dev/null || [ -x /usr/sbin/slurmctld ] || need+=(slurmctld)
  command -v slurmd >/dev/null || [ -x /usr/sbin/slurmd ] || need+=(slurmd)
  command -v sbatch >/dev/null || need+=(slurm-client)
  [ ${#need[@]} -gt 0 ] || return 0
  command -v apt-get >/dev/null || die "missing ${need[*]} and no apt-get to install them (Debian or Ubuntu packages: munge slurmctld slurmd slurm-client)"
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  local t0=$EPOCHREALTIME
  log "installing ${need[*]} with apt-get"
  $sudo apt-get update -q >&2 || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${need[@]}" >&2 ||
    die "apt-get install ${need[*]} failed"
  log "installed in $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f s", b - a }')"
}

# Refuses a port something already listens on (bash's /dev/tcp: no ss or netstat needed).
port_free() {
  local port=$1
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    die "port $port on 127.0.0.1 is taken by another program: choose others with CASTCHUNK_SLURMCTLD_PORT and CASTCHUNK_SLURMD_PORT"
  fi
}

write_config() {
  local cpus mem_mb
  cpus=$(nproc)
  # A modest RealMemory, below what the machine has: slurmd drains a node that has
  # less than its configured memory. CR_CPU does not allocate memory anyway.
  mem_mb=$(awk '/^MemTotal:/ { m = int($2 / 1024 / 2); print (m < 1024 ? m : 1024) }' /proc/meminfo)
  mkdir -p "$state/etc" "$state/log" "$state/run" "$state/ctld" "$state/spool"
  # 0711: clients other than root may reach the socket when STATE_DIR's parents let
  # them; the key is 0400.
  install -d -m 0711 "$state/munge"
  if [ ! -s "$state/munge/munge.key" ]; then
    # munged wants a key of 32 bytes or more, readable by its user only.
    (umask 077 && dd if=/dev/urandom of="$state/munge/munge.key" bs=1024 count=1 status=none)
  fi
  chmod 0400 "$state/munge/munge.key"
  cat >"$conf" <<EOF
# Written by scripts/slurm/cluster.sh: one node on the loopback, everything under $state.
ClusterName=castchunk
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/run/slurmctld.pid
SlurmdPidFile=$state/run/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No systemd, no cgroups: processes are tracked through /proc and not bound.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
MailProg=/bin/true
# A CPU per array task: two tasks at once on two CPUs.
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
# Start the next tasks as soon as CPUs are free: with batch_sched_delay's default
# (3 s), 4 short tasks on 2 CPUs and a merge after them took 6 to 9 s, 3 s without.
SchedulerParameters=batch_sched_delay=0
# A job whose dependency can no longer be met (afterok on a failed array) is
# cancelled, not left pending for ever.
DependencyParameters=kill_invalid_depend
# Without accounting, scontrol show job is the only record of a finished job's
# state and exit code: keep it an hour.
MinJobAge=3600
ReturnToService=2
SlurmdParameters=config_overrides
SlurmdTimeout=60
SlurmctldTimeout=60
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

start_munged() {
  if live_pid "$state/munge/munged.pid" munged >/dev/null; then
    return 0
  fi
  local munged
  munged=$(command -v munged || echo /usr/sbin/munged)
  # --force: munged refuses a socket not every user can reach, and STATE_DIR may lie
  # in a folder only root can enter (mktemp -d makes them 0700); only root's jobs use it.
  "$munged" --force \
    --key-file="$state/munge/munge.key" \
    --socket="$socket" \
    --pid-file="$state/munge/munged.pid" \
    --log-file="$state/log/munged.log" \
    --seed-file="$state/munge/munged.seed" ||
    { show_log "$state/log/munged.log"; die "munged did not start"; }
  for _ in $(seq 1 50); do
    [ -S "$socket" ] && live_pid "$state/munge/munged.pid" munged >/dev/null && return 0
    sleep 0.1
  done
  show_log "$state/log/munged.log"
  die "munged started but its socket $socket did not appear within 5 s"
}

start_daemon() {
  local prog=$1 pidfile=$2 logfile=$3
  shift 3
  if live_pid "$pidfile" "$prog" >/dev/null; then
    return 0
  fi
  local exe
  exe=$(command -v "$prog" || echo "/usr/sbin/$prog")
  "$exe" "$@" || { show_log "$logfile"; die "$prog did not start ($exe $*)"; }
  for _ in $(seq 1 50); do
    live_pid "$pidfile" "$prog" >/dev/null && return 0
    sleep 0.1
  done
  show_log "$logfile"
  die "$prog exited or wrote no pid file within 5 s"
}

wait_idle() {
  local st=""
  export SLURM_CONF=$conf
  # 60 tries a second apart: slurmd registers within a second or two.
  for _ in $(seq 1 60); do
    st=$(sinfo -h -N -n "$node" -o %T 2>/dev/null || true)
    case $st in
      idle | mixed | allocated) return 0 ;;
    esac
    live_pid "$state/run/slurmctld.pid" slurmctld >/dev/null || { show_log "$state/log/slurmctld.log"; die "slurmctld exited"; }
    live_pid "$state/run/slurmd.pid" slurmd >/dev/null || { show_log "$state/log/slurmd.log"; die "slurmd exited"; }
    sleep 1
  done
  show_log "$state/log/slurmctld.log"
  show_log "$state/log/slurmd.log"
  die "node $node not idle after 60 s (sinfo says: ${st:-nothing})"
}

start() {
  install_missing
  if ! live_pid "$state/run/slurmctld.pid" slurmctld >/dev/null; then
    port_free "$ctld_port"
  fi
  if ! live_pid "$state/run/slurmd.pid" slurmd >/dev/null; then
    port_free "$slurmd_port"
  fi
  write_config
  start_munged
  # -c: no state from an earlier run of this folder (jobs, node states).
  start_daemon slurmctld "$state/run/slurmctld.pid" "$state/log/slurmctld.log" -c -f "$conf"
  start_daemon slurmd "$state/run/slurmd.pid" "$state/log/slurmd.log" -f "$conf" -N "$node"
  wait_idle
  log "node $node idle; export SLURM_CONF=$conf"
}

# stop_daemons PROG PIDFILE [PROG PIDFILE...]: TERM to each at once (slurmd and
# slurmctld take about 2 s each to go), then KILL to any still there after 10 s; the
# pid files go either way.
stop_daemons() {
  local pids=() files=() pid
  while [ $# -gt 0 ]; do
    if pid=$(live_pid "$2" "$1"); then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$1:$pid")
    fi
    files+=("$2")
    shift 2
  done
  local alive
  for _ in $(seq 1 100); do
    alive=0
    for pid in "${pids[@]}"; do
      [ ! -d "/proc/${pid#*:}" ] || alive=1
    done
    [ "$alive" = 1 ] || break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do
    if [ -d "/proc/${pid#*:}" ]; then
      log "${pid%%:*} (${pid#*:}) still running 10 s after TERM: KILL"
      kill -KILL "${pid#*:}" 2>/dev/null || true
    fi
  done
  # The daemons remove their own; a crash's stays.
  rm -f "${files[@]}"
}

stop() {
  [ -d "$state" ] || return 0
  export SLURM_CONF=$conf
  # Jobs still running would leave their slurmstepd behind slurmd: cancel them
  # while the controller answers, and give them a few seconds to go.
  if live_pid "$state/run/slurmctld.pid" slurmctld >/dev/null && [ -f "$conf" ]; then
    scancel --quiet --full --user "$(id -un)" 2>/dev/null || true
    for _ in $(seq 1 20); do
      [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.5
    done
  fi
  stop_daemons slurmd "$state/run/slurmd.pid" slurmctld "$state/run/slurmctld.pid"
  stop_daemons munged "$state/munge/munged.pid"
}

status() {
  local prog pidfile pid rc=0
  for prog in munged slurmctld slurmd; do
    case $prog in
      munged) pidfile=$state/munge/munged.pid ;;
      *) pidfile=$state/run/$prog.pid ;;
    esac
    if pid=$(live_pid "$pidfile" "$prog"); then
      echo "$prog running ($pid)"
    else
      echo "$prog not running"
      rc=1
    fi
  done
  return $rc
}

case $action in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) usage ;;
esac
