#!/bin/bash
# The libfabric transport across the cluster (6 ranks, 2 per host).
#   - TERN_OFI_PROVIDER=tcp with the default TERN_TRANSPORTS: shm within a
#     host and ofi (libfabric's tcp provider) between hosts, checked pair by
#     pair through --report-transports; the MPI test programs that end with
#     "OK" run that way.
#   - TERN_TRANSPORTS=self,ofi under the tcp provider: every pair over
#     libfabric, also within a host. (sockets and udp;ofi_rxd are left out,
#     as in tests/mpi/ofi_suite.test, which says why;
#     TERN_TEST_OFI_PROVIDERS="tcp sockets" puts sockets back.)
# (Without a provider named and without fabric hardware, tcp carries the
# traffic between hosts; tests/cluster/mpi.sh checks that.)
: "${TERN_TEST_TIMEOUT:=900}"
. "${srcdir:-.}/tests/cluster/lib.sh"

HF=$TERN_CLUSTER_HOSTFILE
T=$PWD/tests/mpi
[ -x "$MPIRUN" ] || fail "no mpirun at $MPIRUN; build first"
offered=$(./tools/tern-info | sed -n '/^libfabric .* providers/,/^$/p')
printf '%s\n' "$offered" | grep -q '^  tcp;ofi_rxm' ||
    skip "libfabric offers no tcp;ofi_rxm provider here"

# ---- the transport each pair uses ----
export TERN_OFI_PROVIDER=tcp
out=$(run_mpirun -np 6 --hostfile "$HF" --report-transports -x TERN_VERBOSE=1 \
      "$T/tcp_exchange" 2>"$TMP/err") ||
    fail "tcp_exchange over ofi failed: $out $(cat "$TMP/err")"
printf '%s\n' "$out" | grep -q '^OK tcp_exchange' || fail "tcp_exchange printed: $out"
for r in 0 1 2 3 4 5; do
    mate=$((r ^ 1))
    others=$(for p in 0 1 2 3 4 5; do [ $p != $r ] && [ $p != $mate ] && echo $p; done |
             awk '{ a[NR] = $1 } END { i = 1; out = ""
                 while (i <= NR) { j = i; while (j < NR && a[j + 1] == a[j] + 1) j++
                     out = out (out == "" ? "" : ",") (j > i ? a[i] "-" a[j] : a[i]); i = j + 1 }
                 print out }')
    grep -q "rank $r (h$((r / 2 + 1))): transports: self $r; shm $mate; ofi $others\$" "$TMP/err" ||
        fail "rank $r does not use ofi for [$others]: $(grep "rank $r .*transports" "$TMP/err")"
done
grep -q "ofi: provider tcp;ofi_rxm, domain " "$TMP/err" || fail "no provider line: $(cat "$TMP/err")"
grep "rank 0 .*ofi: provider" "$TMP/err"
check_clean

for prog in "p2p_sizes 4M" p2p_order p2p_anysource p2p_waittest p2p_probe p2p_modes \
            p2p_truncate p2p_cancel "dtype_p2p 2M" comm_split coll_suite_rooted \
            coll_suite_reduce coll_suite_allto coll_suite_nb; do
    run_ok "ofi between hosts" $prog
done
check_clean

# ---- every pair over libfabric ----
for prov in ${TERN_TEST_OFI_PROVIDERS:-tcp}; do
    printf '%s\n' "$offered" | grep -Eq "^  $prov(;| )" || { echo "NOTE: no $prov provider"; continue; }
    for prog in "p2p_sizes 4M" p2p_order coll_suite_nb; do
        TERN_TRANSPORTS=self,ofi TERN_OFI_PROVIDER=$prov RUN_OPTS=--report-transports \
            run_ok "all over ofi ($prov)" $prog
        grep -q "rank 3 (h2): transports: self 3; ofi 0-2,4-5" "$TMP/err" ||
            fail "not all over ofi: $(grep transports "$TMP/err")"
    done
done
finish
