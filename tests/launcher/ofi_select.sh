#!/bin/sh
# Which transport carries traffic when ofi is allowed, and what users are
# told when libfabric cannot give them the provider they asked for:
#   - ofi required (TERN_TRANSPORTS=self,ofi) with an unknown provider, by
#     TERN_OFI_PROVIDER or by FI_PROVIDER: the job fails at MPI_Init with one
#     line naming the providers libfabric offers (none under FI_PROVIDER);
#   - tcp allowed too: the job runs over tcp and rank 0 alone prints a
#     one-line notice;
#   - no provider named, no fabric hardware: tcp, silently;
#   - a provider named: ofi;
#   - two ranks with different providers: tcp for that pair, or an error
#     naming both providers when ofi is required.
# Shared memory is left out (TERN_TRANSPORTS without shm), so that ranks on
# this one host need a network transport, as ranks on two hosts would.
. "${srcdir:-.}/tests/launcher/lib.sh"
prog=./tests/mpi/tcp_exchange
[ -x "$prog" ] || fail "missing $prog"
offered=$(./tools/tern-info | sed -n '/^libfabric .* providers/,/^$/p')
printf '%s\n' "$offered" | grep -q '^  tcp;ofi_rxm' ||
    { echo "SKIP: libfabric offers no tcp;ofi_rxm provider here"; exit 77; }

# ofi required, unknown provider.
TERN_TRANSPORTS=self,ofi TERN_OFI_PROVIDER=nosuch run -np 2 "$prog" >"$TMP/out" 2>"$TMP/err" &&
    fail "a job with an unknown required provider succeeded: $(cat "$TMP/err")"
grep -q "ofi: TERN_TRANSPORTS allows no other network transport, but provider 'nosuch' (TERN_OFI_PROVIDER or FI_PROVIDER) is not usable here; libfabric offers .*tcp;ofi_rxm" "$TMP/err" ||
    fail "no error listing the providers: $(cat "$TMP/err")"
echo "ok: required, TERN_OFI_PROVIDER=nosuch: $(grep -m1 'ofi:' "$TMP/err")"
TERN_TRANSPORTS=self,ofi FI_PROVIDER=nosuch run -np 2 "$prog" >"$TMP/out" 2>"$TMP/err" &&
    fail "a job under FI_PROVIDER=nosuch succeeded: $(cat "$TMP/err")"
grep -q "ofi: .*libfabric offers no provider" "$TMP/err" ||
    fail "no error under FI_PROVIDER=nosuch: $(cat "$TMP/err")"
echo "ok: required, FI_PROVIDER=nosuch"

# tcp allowed: fallback with one notice.
TERN_TRANSPORTS=self,ofi,tcp TERN_OFI_PROVIDER=nosuch run -np 3 --report-transports "$prog" \
    >"$TMP/out" 2>"$TMP/err" || fail "the fallback job failed: $(cat "$TMP/err")"
grep -q '^OK tcp_exchange' "$TMP/out" || fail "fallback job printed: $(cat "$TMP/out")"
n=$(grep -c "provider 'nosuch' (TERN_OFI_PROVIDER or FI_PROVIDER) is not usable here (libfabric offers .*tcp;ofi_rxm.*); using the tcp transport" "$TMP/err")
[ "$n" = 1 ] || fail "expected one fallback notice, got $n: $(cat "$TMP/err")"
grep -q "rank 0 (.*): transports: self 0; tcp 1-2" "$TMP/err" ||
    fail "the fallback job did not use tcp: $(cat "$TMP/err")"
echo "ok: fallback to tcp with one notice"

TERN_TRANSPORTS=self,ofi,tcp FI_PROVIDER=nosuch run -np 2 --report-transports "$prog" \
    >"$TMP/out" 2>"$TMP/err" || fail "the FI_PROVIDER fallback job failed: $(cat "$TMP/err")"
grep -q "provider 'nosuch' (TERN_OFI_PROVIDER or FI_PROVIDER) is not usable here (libfabric offers no provider); using the tcp transport" "$TMP/err" &&
    grep -q "rank 0 (.*): transports: self 0; tcp 1" "$TMP/err" ||
    fail "no fallback notice under FI_PROVIDER=nosuch: $(cat "$TMP/err")"
echo "ok: FI_PROVIDER=nosuch: fallback to tcp with a notice"

# Nothing named: ofi only for fabric hardware.
TERN_TRANSPORTS=self,ofi,tcp run -np 2 --report-transports "$prog" >"$TMP/out" 2>"$TMP/err" ||
    fail "job without a provider named failed: $(cat "$TMP/err")"
# The places fabric hardware shows itself (transports/ofi/provider.c).
want=tcp
for d in /sys/class/infiniband /dev/cxi0 /dev/hfi1 /dev/hfi1_0 /dev/kgni0; do
    [ -e "$d" ] && want=ofi
done
grep -q "rank 0 (.*): transports: self 0; $want 1" "$TMP/err" ||
    fail "expected $want without a provider named: $(cat "$TMP/err")"
grep -q "not usable" "$TMP/err" && fail "a notice without a provider named: $(cat "$TMP/err")"
echo "ok: no provider named: $want"

# A provider named: ofi.
TERN_TRANSPORTS=self,ofi,tcp TERN_OFI_PROVIDER=tcp run -np 3 --report-transports "$prog" \
    >"$TMP/out" 2>"$TMP/err" || fail "job with TERN_OFI_PROVIDER=tcp failed: $(cat "$TMP/err")"
grep -q "rank 1 (.*): transports: self 1; ofi 0,2" "$TMP/err" ||
    fail "TERN_OFI_PROVIDER=tcp did not use ofi: $(cat "$TMP/err")"
echo "ok: TERN_OFI_PROVIDER=tcp: ofi"

# Rank 1 names another provider than ranks 0 and 2.
cat >"$TMP/wrap.sh" <<EOS
#!/bin/sh
[ "\$TERN_RANK" = 1 ] && export TERN_OFI_PROVIDER=sockets
exec $PWD/$prog "\$@"
EOS
chmod +x "$TMP/wrap.sh"
if printf '%s\n' "$offered" | grep -q '^  sockets '; then
    TERN_TRANSPORTS=self,ofi,tcp TERN_OFI_PROVIDER=tcp run -np 3 --report-transports \
        "$TMP/wrap.sh" >"$TMP/out" 2>"$TMP/err" || fail "mixed providers failed: $(cat "$TMP/err")"
    grep -q "rank 0 (.*): transports: self 0; ofi 2; tcp 1" "$TMP/err" &&
        grep -q "rank 1 (.*): transports: self 1; tcp 0,2" "$TMP/err" ||
        fail "mixed providers: $(cat "$TMP/err")"
    TERN_TRANSPORTS=self,ofi TERN_OFI_PROVIDER=tcp run -np 2 "$TMP/wrap.sh" >"$TMP/out" \
        2>"$TMP/err" && fail "mixed providers with ofi required succeeded"
    # Both ranks see the mismatch; the first to say so ends the job.
    grep -q -e "ofi: rank 1 (host .*) uses sockets with .*, this rank (0) tcp;ofi_rxm" \
        -e "ofi: rank 0 (host .*) uses tcp;ofi_rxm with .*, this rank (1) sockets" "$TMP/err" ||
        fail "no error naming both providers: $(cat "$TMP/err")"
    echo "ok: mixed providers"
fi

# Rank 1 with other buffer sizes than rank 0: tcp for the pair, or an
# error naming both when ofi is required.
cat >"$TMP/chunk.sh" <<EOS
#!/bin/sh
[ "\$TERN_RANK" = 1 ] && export TERN_OFI_CHUNK=8192
exec $PWD/$prog "\$@"
EOS
chmod +x "$TMP/chunk.sh"
TERN_TRANSPORTS=self,ofi,tcp TERN_OFI_PROVIDER=tcp run -np 2 --report-transports "$TMP/chunk.sh" \
    >"$TMP/out" 2>"$TMP/err" || fail "mixed buffer sizes failed: $(cat "$TMP/err")"
grep -q "rank 0 (.*): transports: self 0; tcp 1" "$TMP/err" || fail "mixed buffer sizes: $(cat "$TMP/err")"
TERN_TRANSPORTS=self,ofi TERN_OFI_PROVIDER=tcp run -np 2 "$TMP/chunk.sh" >"$TMP/out" 2>"$TMP/err" &&
    fail "mixed buffer sizes with ofi required succeeded"
grep -q -e "ofi: rank 1 (host .*) uses tcp;ofi_rxm with 8192-byte buffers.*this rank (0) tcp;ofi_rxm with 16384-byte buffers" \
    -e "ofi: rank 0 (host .*) uses tcp;ofi_rxm with 16384-byte buffers.*this rank (1) tcp;ofi_rxm with 8192-byte buffers" \
    "$TMP/err" ||
    fail "no error naming both buffer sizes: $(cat "$TMP/err")"
echo "ok: mixed buffer sizes"

# Loading libfabric leaves the program's signal dispositions alone: a rank
# that dies of SIGSEGV or SIGTERM ends with that signal, not an exit code.
TERN_TRANSPORTS=self,ofi TERN_OFI_PROVIDER=tcp run -np 2 "$TESTDIR/mpiprog" segv 1 \
    >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc = 139 ] && grep -q "rank 1 .* killed by signal 11" "$TMP/err" ||
    fail "segv under ofi: exit $rc: $(cat "$TMP/err")"
TERN_TRANSPORTS=self,ofi TERN_OFI_PROVIDER=tcp TERN_VERBOSE=1 run_bg -np 2 "$TESTDIR/mpiprog" \
    sleep 30 >"$TMP/out" 2>"$TMP/err"
tries=100
while [ "$(grep -c 'ofi: provider' "$TMP/err")" -lt 2 ] && [ $tries -gt 0 ]; do
    sleep 0.1; tries=$((tries - 1))
done
victim=
for p in $(leftovers); do
    tr '\0' ' ' </proc/$p/cmdline 2>/dev/null | grep -q "mpiprog sleep" && victim=$p
done
[ -n "$victim" ] || fail "no rank to signal: $(cat "$TMP/err")"
kill -TERM "$victim"
wait "$BG_JOB"
grep -q "killed by signal 15" "$TMP/err" || fail "SIGTERM under ofi: $(cat "$TMP/err")"
echo "ok: ranks under ofi die of their signals"

# tern-info: the providers, the choice and the tunables.
out=$(TERN_OFI_EAGER=4096 ./tools/tern-info)
for want in "tcp;ofi_rxm      domain lo" "ofi would" "TERN_OFI_PROVIDER=" \
        "TERN_OFI_EAGER=4096 (from the environment" "TERN_OFI_CHUNK=16384 (default)" \
        "TERN_OFI_RMA=1 (default)"; do
    printf '%s\n' "$out" | grep -qF -- "$want" || fail "tern-info lacks '$want': $out"
done
echo "ok: tern-info"
finish
