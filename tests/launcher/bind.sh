#!/bin/sh
# CPU binding: --bind-to core gives two ranks two different cores and
# --report-bindings prints exactly the CPUs each rank's kernel mask holds;
# more ranks than cores default to unbound; binding stays inside the CPU set
# mpirun inherited (taskset); bad policies are refused with the fix.
. "${srcdir:-.}/tests/launcher/lib.sh"
command -v taskset >/dev/null || { echo "SKIP: taskset (util-linux) is not installed"; exit 77; }

# Expands a CPU list such as "0-2,5" into one number per line.
expand() {
    printf '%s\n' "$1" | tr ',' '\n' | while IFS=- read -r a b; do
        [ -n "$a" ] && seq "$a" "${b:-$a}"
    done
}
mask_of() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$1/status"; }
core_of() {
    cat "/sys/devices/system/cpu/cpu$1/topology/core_cpus_list" 2>/dev/null ||
        cat "/sys/devices/system/cpu/cpu$1/topology/thread_siblings_list" 2>/dev/null ||
        echo "$1"
}

# Two CPUs of the set we run in that sit on different cores.
A= B=
for c in $(expand "$(mask_of self)"); do
    if [ -z "$A" ]; then A=$c
    elif [ "$(core_of "$c")" != "$(core_of "$A")" ]; then B=$c; break
    fi
done
[ -n "$B" ] || { echo "SKIP: needs two cores in the test's CPU set, has $(mask_of self)"; exit 77; }
echo "using OS CPUs $A and $B"

# run_in CPUS ARGS: run (lib.sh) with mpirun started under taskset -c CPUS.
run_in() {
    cpus=$1
    shift
    taskset -c "$cpus" sh -c 'echo $$ >>"$1"; shift; exec "$@"' sh "$TMP/pids" \
        env TERN_TEST_MARK="$MARK" "$MPIRUN" "$@"
}

# Each rank prints its rank and the CPU list of its kernel affinity mask.
SHOW='echo "$TERN_RANK $(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status)"'
reported() {   # reported RANK: the OS CPU list in that rank's report line
    sed -n "s/^mpirun: rank $1 on host [^ ]* bound to [a-zA-Z ]* [0-9]* (OS CPUs \(.*\))\$/\1/p" "$TMP/err"
}
actual() {     # actual RANK: the list the rank itself printed
    sed -n "s/^$1 //p" "$TMP/out"
}

# 1. --bind-to core, two ranks: reports match the masks, cores differ.
run_in "$A,$B" -np 2 --bind-to core --report-bindings sh -c "$SHOW" >"$TMP/out" 2>"$TMP/err" ||
    fail "--bind-to core: $(cat "$TMP/err")"
for r in 0 1; do
    rep=$(reported $r) act=$(actual $r)
    [ -n "$rep" ] || fail "no binding report for rank $r in: $(cat "$TMP/err")"
    [ "$rep" = "$act" ] || fail "rank $r reported OS CPUs '$rep' but runs on '$act'"
    grep -q "^mpirun: rank $r on host [^ ]* bound to core " "$TMP/err" ||
        fail "rank $r not bound to a core: $(cat "$TMP/err")"
done
[ "$(actual 0)" != "$(actual 1)" ] || fail "both ranks got OS CPUs $(actual 0)"
[ "$(printf '%s\n' "$(actual 0)" "$(actual 1)" | sort -n | tr '\n' ' ')" = "$A $B " ] ||
    fail "ranks 0 and 1 got '$(actual 0)' and '$(actual 1)', expected $A and $B"

# 2. Default with 4 ranks on 2 cores: not bound, the whole inherited set.
set_ab=$(taskset -c "$A,$B" sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
run_in "$A,$B" -np 4 --report-bindings sh -c "$SHOW" >"$TMP/out" 2>"$TMP/err" ||
    fail "-np 4 default: $(cat "$TMP/err")"
for r in 0 1 2 3; do
    [ "$(actual $r)" = "$set_ab" ] || fail "rank $r runs on '$(actual $r)', expected the whole set $set_ab"
    grep -qx "mpirun: rank $r on host [^ ]* not bound (4 ranks on 2 cores); may run on OS CPUs $set_ab" \
        "$TMP/err" || fail "rank $r report: $(cat "$TMP/err")"
done

# 3. Inside the inherited set: taskset -c B, one rank, --bind-to core.
run_in "$B" -np 1 --bind-to core --report-bindings sh -c "$SHOW" >"$TMP/out" 2>"$TMP/err" ||
    fail "taskset -c $B: $(cat "$TMP/err")"
[ "$(actual 0)" = "$B" ] && [ "$(reported 0)" = "$B" ] ||
    fail "taskset -c $B: rank runs on '$(actual 0)', reported '$(reported 0)'"

# 4. --bind-to core with more ranks than cores: refused, one line with the fix.
run_in "$A,$B" -np 4 --bind-to core sh -c "$SHOW" >"$TMP/out" 2>"$TMP/err"
[ $? = 1 ] || fail "--bind-to core with 4 ranks on 2 cores: expected exit 1"
[ "$(grep -c . "$TMP/err")" = 1 ] &&
    grep -q "^mpirun: host [^ ]*: --bind-to core: 4 ranks on this host but only 2 cores.*--bind-to none.*--oversubscribe" "$TMP/err" ||
    fail "oversubscribed --bind-to core message: $(cat "$TMP/err")"
[ -s "$TMP/out" ] && fail "a rank ran although binding failed: $(cat "$TMP/out")"
# ... and allowed with --oversubscribe: ranks share the two cores in turn.
run_in "$A,$B" -np 4 --bind-to core --oversubscribe sh -c "$SHOW" >"$TMP/out" 2>"$TMP/err" ||
    fail "--bind-to core --oversubscribe: $(cat "$TMP/err")"
[ "$(actual 2)" = "$(actual 0)" ] && [ "$(actual 3)" = "$(actual 1)" ] &&
    [ "$(actual 0)" != "$(actual 1)" ] ||
    fail "--oversubscribe: ranks 2 and 3 got '$(actual 2)' and '$(actual 3)'"

# 5. Policies by environment variable, and socket: the package's CPUs.
(export TERN_BIND_TO=none TERN_REPORT_BINDINGS=1; run -np 2 sh -c "$SHOW") >"$TMP/out" 2>"$TMP/err" ||
    fail "TERN_BIND_TO=none: $(cat "$TMP/err")"
[ "$(grep -c 'not bound (--bind-to none)' "$TMP/err")" = 2 ] ||
    fail "TERN_BIND_TO=none report: $(cat "$TMP/err")"
run -np 2 --bind-to socket --report-bindings sh -c "$SHOW" >"$TMP/out" 2>"$TMP/err" ||
    fail "--bind-to socket: $(cat "$TMP/err")"
for r in 0 1; do
    [ -n "$(reported $r)" ] && [ "$(reported $r)" = "$(actual $r)" ] ||
        fail "socket: rank $r reported '$(reported $r)', runs on '$(actual $r)'"
done

# 6. Round-robin over packages, on a synthetic 2-package topology that hwloc
# treats as this machine, so the binding is real (needs CPUs 0 and 1).
if [ "$A" = 0 ] && [ "$B" = 1 ]; then
    (export HWLOC_SYNTHETIC="pack:2 core:1 pu:1" HWLOC_THISSYSTEM=1
     run -np 3 --bind-to socket --report-bindings sh -c "$SHOW") >"$TMP/out" 2>"$TMP/err" ||
        fail "synthetic socket: $(cat "$TMP/err")"
    [ "$(actual 0) $(actual 1) $(actual 2)" = "0 1 0" ] ||
        fail "synthetic socket round-robin: $(cat "$TMP/out")"
    grep -q "^mpirun: rank 1 on host [^ ]* bound to package 1 (OS CPUs 1)\$" "$TMP/err" ||
        fail "synthetic socket report: $(cat "$TMP/err")"
else
    echo "note: synthetic socket check needs OS CPUs 0 and 1; skipped"
fi

# 7. An MPI program runs bound; a bad policy is refused before any rank starts.
run -np 2 --bind-to core "$PROG" hello >"$TMP/out" 2>"$TMP/err" || fail "MPI program bound: $(cat "$TMP/err")"
[ "$(grep -c 'hello from rank' "$TMP/out")" = 2 ] || fail "MPI program output: $(cat "$TMP/out")"
run -np 2 --bind-to cores true 2>"$TMP/err"
[ $? = 1 ] || fail "--bind-to cores accepted"
grep -qx "mpirun: --bind-to 'cores' is not a binding policy; use core, socket, numa or none" \
    "$TMP/err" || fail "bad --bind-to message: $(cat "$TMP/err")"
(export TERN_BIND_TO=l3; run -np 1 true) 2>"$TMP/err"
[ $? = 1 ] || fail "TERN_BIND_TO=l3 accepted"
grep -q "TERN_BIND_TO='l3'.*use core, socket, numa or none" "$TMP/err" ||
    fail "bad TERN_BIND_TO message: $(cat "$TMP/err")"
finish
