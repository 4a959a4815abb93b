#!/bin/bash
# The ssh side of mpirun's preflight (mpirun on h1, remote hosts h2, h3):
# --ssh-accept-new-hostkey adds an unknown key (a later run needs no flag)
# but never a changed one, whose message names the known_hosts line; keys
# from -i and TERN_SSH_KEY; a rejected key names every method tried; port=
# in the hostfile and TERN_SSH_PORT (a refused port says so); a name that
# does not resolve; tern-hostd missing (TERN_HOSTD); a --wdir missing on
# the remote hosts. Every failure: one line per failing host naming it,
# a non-zero exit, no rank started anywhere.
: "${TERN_TEST_TIMEOUT:=150}"
. "${srcdir:-.}/tests/cluster/lib.sh"

HF=$TERN_CLUSTER_HOSTFILE
[ -x "$MPIRUN" ] || fail "no mpirun at $MPIRUN; build first"
H=$TMP/home
mkdir -p -m 0700 "$H/.ssh"

# mpirun_as_h HOME-DIR [options]: runs a job that marks a file per rank.
ran() {
    ls "$TMP/ran" 2>/dev/null | wc -l
}
job() {
    rm -rf "$TMP/ran"
    mkdir -p "$TMP/ran"
    IN_HOST_HOME=$H run_mpirun "$@" sh -c 'touch '"$TMP"'/ran/$TERN_RANK' \
        >"$TMP/out" 2>"$TMP/err"
}
# expect_fail NAME PATTERN...: the last job failed, started no rank, and
# its messages match every pattern.
expect_fail() {
    local name=$1 p
    shift
    [ "$RC" != 0 ] || fail "$name: mpirun exited 0"
    [ "$(ran)" = 0 ] || fail "$name: $(ran) rank(s) ran anyway"
    for p in "$@"; do
        grep -q -- "$p" "$TMP/err" || fail "$name: no '$p' in: $(cat "$TMP/err")"
    done
    echo "$name: exit $RC: $(tr '\n' ' ' <"$TMP/err")"
}

# ---- unknown key: refused, then accepted with the flag, then known ----
cp "$TERN_CLUSTER_KEY" "$H/.ssh/id_ed25519"
grep -v '^h3,' "$TERN_CLUSTER_KNOWN_HOSTS" >"$H/.ssh/known_hosts"
job -np 6 --hostfile "$HF"; RC=$?
expect_fail "unknown key" 'host h3 (.*): host key unknown' '--ssh-accept-new-hostkey'
job -np 6 --hostfile "$HF" --ssh-accept-new-hostkey; RC=$?
[ "$RC" = 0 ] && [ "$(ran)" = 6 ] || fail "accept-new: exit $RC, $(ran) ranks: $(cat "$TMP/err")"
grep -q 'host h3 .*added its ed25519 host key' "$TMP/err" || fail "accept-new: no notice: $(cat "$TMP/err")"
grep -q '^h3 ssh-ed25519 ' "$H/.ssh/known_hosts" || fail "accept-new: known_hosts has no h3 line"
job -np 6 --hostfile "$HF"; RC=$?
[ "$RC" = 0 ] && [ ! -s "$TMP/err" ] || fail "after accept-new: exit $RC: $(cat "$TMP/err")"

# ---- changed key: refused even with the flag, the line is named ----
{
    grep -v '^h3' "$TERN_CLUSTER_KNOWN_HOSTS"
    echo "# a comment line"
    echo "h3 $(cut -d' ' -f1,2 "$TERN_CLUSTER_RUN/h2/ssh_host_ed25519_key.pub")"
} >"$H/.ssh/known_hosts"
line=$(grep -n '^h3 ' "$H/.ssh/known_hosts" | cut -d: -f1)
job -np 6 --hostfile "$HF" --ssh-accept-new-hostkey; RC=$?
expect_fail "changed key" "host h3 (.*): host key CHANGED.*known_hosts line $line"
cp "$TERN_CLUSTER_KNOWN_HOSTS" "$H/.ssh/known_hosts"

# ---- keys: -i, TERN_SSH_KEY, a rejected key ----
mv "$H/.ssh/id_ed25519" "$TMP/key"
job -np 6 --hostfile "$HF"; RC=$?
expect_fail "no key" 'host h2 (.*): ssh authentication as .* failed; tried ssh-agent' \
    'none of ~/.ssh/id_ed25519, id_ecdsa, id_rsa exists' 'host h3 '
job -np 6 --hostfile "$HF" -i "$TMP/key"; RC=$?
[ "$RC" = 0 ] && [ "$(ran)" = 6 ] || fail "-i: exit $RC: $(cat "$TMP/err")"
TERN_SSH_KEY=$TMP/key job -np 6 --hostfile "$HF"; RC=$?
[ "$RC" = 0 ] && [ "$(ran)" = 6 ] || fail "TERN_SSH_KEY: exit $RC: $(cat "$TMP/err")"
ssh-keygen -q -t ed25519 -N '' -f "$TMP/other" || fail "ssh-keygen failed"
job -np 6 --hostfile "$HF" -i "$TMP/other"; RC=$?
expect_fail "rejected key" "tried ssh-agent (SSH_AUTH_SOCK not set), $TMP/other (rejected by the server)"
mv "$TMP/key" "$H/.ssh/id_ed25519"

# ---- ports ----
printf 'h1 slots=2\nh2 slots=2 port=2222\n' >"$TMP/hf_port"
job -np 4 --hostfile "$TMP/hf_port"; RC=$?
expect_fail "port=" 'host h2 (.*:2222): ssh connection refused; is sshd running there'
TERN_SSH_PORT=2222 job -np 6 --hostfile "$HF"; RC=$?
expect_fail "TERN_SSH_PORT" 'host h2 (.*:2222): ssh connection refused' 'host h3 (.*:2222)'
printf 'h1 slots=2\nh2 slots=2 port=22\n' >"$TMP/hf_port"
TERN_SSH_PORT=2222 job -np 4 --hostfile "$TMP/hf_port"; RC=$?
[ "$RC" = 0 ] || fail "port= over TERN_SSH_PORT: exit $RC: $(cat "$TMP/err")"

# ---- names, tern-hostd, --wdir ----
printf 'h1 slots=2\nno-such-host.invalid slots=2\n' >"$TMP/hf_name"
job -np 4 --hostfile "$TMP/hf_name"; RC=$?
expect_fail "unresolvable" 'host no-such-host.invalid .*cannot resolve the host name'
TERN_HOSTD=/nonexistent/tern-hostd job -np 6 --hostfile "$HF"; RC=$?
expect_fail "no tern-hostd" 'host h2 (.*): cannot run tern-hostd at /nonexistent/tern-hostd' \
    'host h3 '
# A login shell that prints to stdout would garble the protocol: named.
printf '#!/bin/sh\necho "Welcome to $(hostname)"\nexec %s\n' \
    "$(dirname "$MPIRUN")/tern-hostd" >"$TMP/chatty"
chmod 755 "$TMP/chatty"
TERN_HOSTD=$TMP/chatty job -np 6 --hostfile "$HF"; RC=$?
expect_fail "chatty shell" 'host h2 (.*): the login shell there printed "Welcome to h2 "'
mkdir -p "$TMP/only-h1/wd"
hide_path 2 "$TMP/only-h1"
job -np 6 --hostfile "$HF" --wdir "$TMP/only-h1/wd"; RC=$?
expect_fail "--wdir missing on h2" \
    "host h2 (.*): the working directory '$TMP/only-h1/wd' (--wdir) cannot be entered"
grep -q 'host h3' "$TMP/err" && fail "--wdir missing on h2: h3 reported too: $(cat "$TMP/err")"
finish
