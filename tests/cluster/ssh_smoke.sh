#!/bin/bash
# Proves the cluster with OpenSSH's own client, before any Tern code is
# involved: every host reaches every host by name with the run's key and
# known_hosts and lands on the right hostname; names resolve to the cluster
# addresses; a host key missing from known_hosts is refused; hosts share no
# /dev/shm; and no traffic crosses the cluster's boundary either way.
. "${srcdir:-.}/tests/cluster/lib.sh"

N=$TERN_CLUSTER_NHOSTS
SSH_OPTS=(-i "$TERN_CLUSTER_KEY" -o UserKnownHostsFile="$TERN_CLUSTER_KNOWN_HOSTS"
          -o StrictHostKeyChecking=yes -o BatchMode=yes -o ConnectTimeout=5
          -o LogLevel=ERROR)

# From h1 (where mpirun runs) to every host, and from every host to the
# next one round the ring (ranks connect between hosts too).
for a in $(seq 1 "$N"); do
    for pair in "1 $a" "$a $((a % N + 1))"; do
        set -- $pair
        out=$(in_host "$1" ssh "${SSH_OPTS[@]}" "h$2" hostname 2>&1) ||
            fail "ssh from h$1 to h$2: $out"
        [ "$out" = "h$2" ] || fail "ssh from h$1 to h$2 printed '$out', expected h$2"
    done
done

# Names resolve to the cluster's addresses inside every host, in ssh
# sessions (where ranks run) as well as through `exec` (where mpirun runs).
for b in $(seq 1 "$N"); do
    addr=$(in_host 1 getent hosts "h$b" | awk '{print $1}')
    [ "$addr" = "$TERN_CLUSTER_SUBNET.$b" ] || fail "h$b resolves to '$addr' in h1"
done
addr=$(in_host 1 ssh "${SSH_OPTS[@]}" "h$N" getent hosts h1 | awk '{print $1}')
[ "$addr" = "$TERN_CLUSTER_SUBNET.1" ] || fail "h1 resolves to '$addr' in an ssh session on h$N"

# A host whose key is not in known_hosts is refused: the known_hosts file
# is what lets the loop above through.
grep -v "^h2," "$TERN_CLUSTER_KNOWN_HOSTS" >"$TMP/known_hosts_no_h2"
out=$(in_host 1 ssh -i "$TERN_CLUSTER_KEY" -o UserKnownHostsFile="$TMP/known_hosts_no_h2" \
      -o StrictHostKeyChecking=yes -o BatchMode=yes -o ConnectTimeout=5 h2 hostname 2>&1) &&
    fail "ssh to h2 with h2's key missing from known_hosts succeeded: $out"
printf '%s\n' "$out" | grep -q 'Host key verification failed' ||
    fail "ssh to h2 with an unknown host key: unexpected message: $out"

# Each host has its own /dev/shm.
in_host 2 sh -c ': >/dev/shm/tern-cluster-smoke' || fail "cannot write /dev/shm on h2"
in_host 2 test -e /dev/shm/tern-cluster-smoke || fail "h2 does not see its own /dev/shm file"
in_host 3 test -e /dev/shm/tern-cluster-smoke && fail "h3 sees a /dev/shm file of h2"
test -e /dev/shm/tern-cluster-smoke && fail "the machine sees a /dev/shm file of h2"
in_host 2 rm -f /dev/shm/tern-cluster-smoke

# Inside: no route out of the cluster (only the cluster's /24), and sshd
# listens on the host's cluster address only, not on loopback.
for b in $(seq 1 "$N"); do
    routes=$(in_host "$b" ip -4 route show)
    [ "$(printf '%s\n' "$routes" | wc -l)" = 1 ] &&
        printf '%s\n' "$routes" | grep -q "^$TERN_CLUSTER_SUBNET\.0/24 dev eth0 " ||
        fail "h$b has routes beyond its /24: $routes"
    in_host "$b" ip route get 192.0.2.1 >/dev/null 2>&1 &&
        fail "h$b has a route to 192.0.2.1, outside the cluster"
done
in_host 1 bash -c 'exec 3<>/dev/tcp/127.0.0.1/22' 2>/dev/null &&
    fail "sshd of h1 listens on loopback"

# Outside: the machine's own namespace has no address in the cluster's
# subnet, and what answers there (if anything: a NAT may accept any
# connection) is not a cluster sshd.
ip -o -4 addr show | grep -q " $TERN_CLUSTER_SUBNET\." &&
    fail "the machine's namespace has an address in $TERN_CLUSTER_SUBNET.0/24"
addrs=$(for b in $(seq 1 "$N"); do echo "$TERN_CLUSTER_SUBNET.$b"; done)
# shellcheck disable=SC2086
timeout 10 ssh-keyscan -T 3 -t ed25519 $addrs >"$TMP/scan" 2>/dev/null
for b in $(seq 1 "$N"); do
    key=$(cut -d' ' -f2 "$TERN_CLUSTER_RUN/h$b/ssh_host_ed25519_key.pub")
    grep -qF "$key" "$TMP/scan" && fail "h$b's sshd answers from outside the cluster"
done
finish
