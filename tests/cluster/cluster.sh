#!/bin/bash
# A cluster of hosts on this one machine, for the multi-host tests.
#
#   cluster.sh up               build the cluster (cleans a stale one of the
#                               same id first) and print its variables
#   cluster.sh env              print the variables of a running cluster
#   cluster.sh exec HOST CMD... run CMD inside HOST (h2 or 2)
#   cluster.sh link HOST up|down  plug or pull HOST's cable at the bridge
#   cluster.sh status           show each host, its address and its sshd
#   cluster.sh down             remove everything `up` made
#   cluster.sh gc               remove clusters whose owning process died
#
# Lifecycle: `up` makes, for one run id (TERN_CLUSTER_ID, default 0):
#   - a run directory $TERN_CLUSTER_ROOT/tern-cluster-ID (default /tmp),
#     mode 0700, holding every file below;
#   - a network namespace ternID-br with the bridge br0, and for each host K
#     (1..TERN_CLUSTER_HOSTS, default 3) a namespace ternID-hK joined to it by
#     a veth pair (eth0 in the host, hK on the bridge). Addresses are
#     SUBNET.K/24 (TERN_CLUSTER_SUBNET, default 10.213.0). Loopback is up;
#     there is no default route, and the bridge lives in its own namespace,
#     so the machine's namespace has no interface and no route to the hosts
#     and no host can reach anything outside the cluster. Clusters of
#     different ids never share a bridge, so they run side by side on the
#     same subnet;
#   - per host, an sshd (/usr/sbin/sshd -f hK/sshd_config) listening on the
#     host's address only, in its own UTS namespace (hostname hK) and its own
#     mount namespace, where a run-local hosts file is bind-mounted over
#     /etc/hosts (so hK resolves to its address for mpirun, hostd and ranks
#     alike; the machine's /etc/hosts is untouched), the run's home over
#     root's home (a home shared by all hosts, as on a real cluster, and
#     free of the machine's shell start-up files, which bash reads for every
#     ssh command) and a private tmpfs over /dev/shm (hosts share no shared
#     memory, as real ones). Everything run through sshd or `exec` inherits
#     these namespaces;
#   - home/.ssh/id_ed25519 (the user key for root), home/.ssh/known_hosts
#     (every host's ed25519 key under its name and address), the
#     authorized_keys file the sshds read, and `hostfile` ("hK slots=S",
#     S from TERN_CLUSTER_SLOTS, default 2). libssh2 reads no ssh config, so
#     HOME=$run/home alone is enough for mpirun. Inside the hosts that is
#     root's home too, so OpenSSH's client (which takes its home from the
#     password database, not HOME) finds the same key and known_hosts.
# Ownership: `down` kills every process in the cluster's namespaces, deletes
# the namespaces and removes the run directory. If TERN_CLUSTER_OWNER names
# a process at `up`, `gc` later removes the cluster once that process is
# gone (a test killed before its own teardown).
# Errors: one line "cluster.sh: <what>: <cause>; <fix>" on stderr and exit
# status 1; exit status 2 for a usage error. `exec` returns the command's
# status.
set -u

ID=${TERN_CLUSTER_ID:-0}
ROOTDIR=${TERN_CLUSTER_ROOT:-/tmp}
RUN=$ROOTDIR/tern-cluster-$ID
P=tern$ID
SSHD=/usr/sbin/sshd

# A failing `up` removes what it made so far.
die() {
    echo "cluster.sh: $*" >&2
    [ -z "${UP_STARTED:-}" ] || cmd_down
    exit 1
}

usage() {
    sed -n '4,11s/^# \{0,1\}//p' "$0" >&2
    exit 2
}

# Values fixed at `up` time are read back from the run directory, so a
# changed environment between `up` and `down` does no harm.
load() {
    [ -f "$RUN/config" ] || die "no cluster with id $ID (no $RUN/config); run 'cluster.sh up' first or set TERN_CLUSTER_ID"
    # shellcheck disable=SC1091
    . "$RUN/config"
}

# host_index HOST: prints K for "hK" or "K"; dies if out of range.
host_index() {
    local k=${1#h}
    case $k in ''|*[!0-9]*) die "host '$1': not a host name; use h1..h$N or 1..$N" ;; esac
    [ "$k" -ge 1 ] && [ "$k" -le "$N" ] || die "host '$1': no such host; this cluster has h1..h$N"
    echo "$k"
}

check_prereqs() {
    [ "$(id -u)" = 0 ] || die "up: needs root (network namespaces, sshd); run as root"
    local t
    for t in ip unshare nsenter ssh-keygen mount hostname; do
        command -v "$t" >/dev/null || die "up: '$t' not found; install util-linux, iproute2 and openssh-client"
    done
    [ -x "$SSHD" ] || die "up: $SSHD not found; install openssh-server"
    case $ID in ''|*[!A-Za-z0-9]*) die "up: TERN_CLUSTER_ID '$ID' must be letters and digits" ;; esac
}

# sshd_pid K: prints the pid of host K's sshd if it is alive and really in
# host K's network namespace (a stale pid file may name a reused pid).
sshd_pid() {
    local f=$RUN/h$1/sshd.pid pid
    [ -s "$f" ] || return 1
    pid=$(cat "$f")
    [ -e "/proc/$pid/ns/net" ] || return 1
    [ "$(stat -L -c %i "/proc/$pid/ns/net" 2>/dev/null)" = \
      "$(stat -L -c %i "/run/netns/$P-h$1" 2>/dev/null)" ] || return 1
    echo "$pid"
}

# Kills every process in the namespaces of run id $P and deletes them.
remove_namespaces() {
    local ns pids _
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$P-"); do
        for _ in 1 2 3 4 5 6 7 8 9 10; do
            pids=$(ip netns pids "$ns" 2>/dev/null | grep -vx "$$")
            [ -n "$pids" ] || break
            # shellcheck disable=SC2086
            kill -9 $pids 2>/dev/null
            sleep 0.1
        done
        ip netns del "$ns" 2>/dev/null
    done
}

cmd_down() {
    remove_namespaces
    rm -rf "$RUN"
}

make_keys() {
    local k
    mkdir -m 0700 "$RUN/home" "$RUN/home/.ssh" || die "up: cannot create $RUN; check TERN_CLUSTER_ROOT"
    ssh-keygen -q -t ed25519 -N '' -C "tern-cluster-$ID" -f "$RUN/home/.ssh/id_ed25519" ||
        die "up: ssh-keygen failed for the user key"
    cp "$RUN/home/.ssh/id_ed25519.pub" "$RUN/authorized_keys"
    : >"$RUN/home/.ssh/known_hosts"
    for k in $(seq 1 "$N"); do
        mkdir -m 0700 "$RUN/h$k"
        ssh-keygen -q -t ed25519 -N '' -C "h$k" -f "$RUN/h$k/ssh_host_ed25519_key" ||
            die "up: ssh-keygen failed for the host key of h$k"
        echo "h$k,$SUBNET.$k $(cut -d' ' -f1,2 "$RUN/h$k/ssh_host_ed25519_key.pub")" \
            >>"$RUN/home/.ssh/known_hosts"
    done
}

write_files() {
    local k
    {
        echo "127.0.0.1 localhost"
        echo "::1 localhost ip6-localhost ip6-loopback"
        for k in $(seq 1 "$N"); do echo "$SUBNET.$k h$k"; done
    } >"$RUN/hosts"
    for k in $(seq 1 "$N"); do echo "h$k slots=$SLOTS"; done >"$RUN/hostfile"
    {
        echo "N=$N"
        echo "SUBNET=$SUBNET"
        echo "SLOTS=$SLOTS"
    } >"$RUN/config"
    [ -n "${TERN_CLUSTER_OWNER:-}" ] || return 0
    local start
    start=$(awk '{print $22}' "/proc/$TERN_CLUSTER_OWNER/stat" 2>/dev/null)
    [ -n "$start" ] || die "up: TERN_CLUSTER_OWNER=$TERN_CLUSTER_OWNER is no running process; give the pid of the test that owns the cluster"
    echo "$TERN_CLUSTER_OWNER $start" >"$RUN/owner"
}

make_network() {
    local k br=$P-br hn
    ip netns add "$br" || die "up: ip netns add $br failed; a cluster with id $ID may be in use"
    ip -n "$br" link set lo up
    ip -n "$br" link add br0 type bridge || die "up: cannot create a bridge; load the bridge module"
    ip -n "$br" link set br0 up
    for k in $(seq 1 "$N"); do
        hn=$P-h$k
        ip netns add "$hn" || die "up: ip netns add $hn failed"
        ip -n "$hn" link set lo up
        ip -n "$hn" link add eth0 type veth peer name "h$k" netns "$br" ||
            die "up: cannot create a veth pair for h$k; load the veth module"
        ip -n "$br" link set "h$k" master br0 up
        ip -n "$hn" addr add "$SUBNET.$k/24" dev eth0 || die "up: cannot give h$k the address $SUBNET.$k"
        ip -n "$hn" link set eth0 up
    done
}

write_sshd_config() {
    local d=$RUN/h$1
    cat >"$d/sshd_config" <<EOF
# sshd of cluster host h$1 (run $ID), written by cluster.sh.
ListenAddress $SUBNET.$1:22
HostKey $d/ssh_host_ed25519_key
PidFile $d/sshd.pid
AuthorizedKeysFile $RUN/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
StrictModes no
UsePAM no
UseDNS no
PrintMotd no
PrintLastLog no
X11Forwarding no
AllowAgentForwarding no
AllowTcpForwarding no
PermitTunnel no
MaxStartups 64:30:128
MaxSessions 64
LogLevel VERBOSE
EOF
}

# Starts host K's sshd inside its namespaces; it daemonizes and writes its
# pid file, which is what `exec` enters through.
start_sshd() {
    local k=$1 d=$RUN/h$1 _
    write_sshd_config "$k"
    $SSHD -t -f "$d/sshd_config" 2>"$d/sshd.log" ||
        die "up: sshd rejects the configuration of h$k: $(tail -n 1 "$d/sshd.log")"
    ip netns exec "$P-h$k" unshare --uts --mount --propagation private sh -c '
        hostname "$1" && mount --bind "$2/hosts" /etc/hosts &&
        mount --bind "$2/home" "$3" &&
        mount -t tmpfs -o mode=1777 tern-shm /dev/shm &&
        exec "$4" -f "$5" -E "$6"' sh "h$k" "$RUN" "$ROOT_HOME" "$SSHD" \
        "$d/sshd_config" "$d/sshd.log" ||
        die "up: sshd of h$k did not start: $(tail -n 1 "$d/sshd.log")"
    for _ in $(seq 1 50); do
        sshd_pid "$k" >/dev/null && return 0
        sleep 0.1
    done
    die "up: sshd of h$k wrote no pid file in 5 s: $(tail -n 1 "$d/sshd.log")"
}

cmd_env() {
    load
    cat <<EOF
TERN_CLUSTER_ID='$ID'
TERN_CLUSTER_RUN='$RUN'
TERN_CLUSTER_NHOSTS='$N'
TERN_CLUSTER_SUBNET='$SUBNET'
TERN_CLUSTER_HOSTFILE='$RUN/hostfile'
TERN_CLUSTER_HOME='$RUN/home'
TERN_CLUSTER_KEY='$RUN/home/.ssh/id_ed25519'
TERN_CLUSTER_KNOWN_HOSTS='$RUN/home/.ssh/known_hosts'
EOF
}

cmd_up() {
    check_prereqs
    N=${TERN_CLUSTER_HOSTS:-3}
    SUBNET=${TERN_CLUSTER_SUBNET:-10.213.0}
    SLOTS=${TERN_CLUSTER_SLOTS:-2}
    case $N in ''|*[!0-9]*) die "up: TERN_CLUSTER_HOSTS '$N' is not a number; give 2 to 200" ;; esac
    [ "$N" -ge 2 ] && [ "$N" -le 200 ] || die "up: TERN_CLUSTER_HOSTS=$N; give 2 to 200"
    # Debian's sshd refuses to start without its privilege separation
    # directory, which only its service unit creates.
    [ -d /run/sshd ] || mkdir -m 0755 /run/sshd
    ROOT_HOME=$(getent passwd root | cut -d: -f6)
    [ -d "$ROOT_HOME" ] || die "up: root's home directory '$ROOT_HOME' does not exist; create it"
    cmd_down
    UP_STARTED=1
    mkdir -m 0700 "$RUN" || die "up: cannot create $RUN; check TERN_CLUSTER_ROOT"
    write_files
    make_keys
    make_network
    local k
    for k in $(seq 1 "$N"); do start_sshd "$k"; done
    UP_STARTED=
    cmd_env
}

cmd_exec() {
    [ $# -ge 2 ] || usage
    load
    local k pid
    k=$(host_index "$1") || exit 1
    shift
    pid=$(sshd_pid "$k") || die "exec: the sshd of h$k is not running; run 'cluster.sh up' again"
    # cwd stays as it is: the hosts share the machine's file system.
    exec nsenter -t "$pid" --net --uts --mount --wd="$PWD" -- "$@"
}

cmd_link() {
    [ $# = 2 ] || usage
    load
    local k
    k=$(host_index "$1") || exit 1
    case $2 in up|down) ;; *) usage ;; esac
    ip -n "$P-br" link set "h$k" "$2" || die "link: cannot set the port of h$k $2"
}

cmd_status() {
    load
    local k pid
    echo "cluster $ID: $N hosts, run directory $RUN"
    for k in $(seq 1 "$N"); do
        if pid=$(sshd_pid "$k"); then
            echo "h$k $SUBNET.$k sshd $pid"
        else
            echo "h$k $SUBNET.$k sshd not running"
        fi
    done
}

# Removes clusters whose owner (pid and start time) no longer exists.
cmd_gc() {
    local f pid start id
    for f in "$ROOTDIR"/tern-cluster-*/owner; do
        [ -f "$f" ] || continue
        read -r pid start <"$f"
        [ -n "$start" ] && [ "$(awk '{print $22}' "/proc/$pid/stat" 2>/dev/null)" = "$start" ] &&
            continue
        id=${f%/owner}
        id=${id##*/tern-cluster-}
        TERN_CLUSTER_ID=$id "$0" down
    done
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
    up) [ $# = 0 ] || usage; cmd_up ;;
    down) [ $# = 0 ] || usage; cmd_down ;;
    env) cmd_env ;;
    exec) cmd_exec "$@" ;;
    link) cmd_link "$@" ;;
    status) cmd_status ;;
    gc) cmd_gc ;;
    *) usage ;;
esac
