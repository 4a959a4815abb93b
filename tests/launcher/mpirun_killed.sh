#!/bin/sh
# mpirun killed with SIGKILL: the ranks notice and die within a few seconds,
# also when the program is a shell-script wrapper.
. "${srcdir:-.}/tests/launcher/lib.sh"
printf '#!/bin/sh\n"%s" "$@"\necho wrapper done\n' "$PROG" > "$TMP/wrap.sh"
chmod +x "$TMP/wrap.sh"
for prog in "$PROG" "$TMP/wrap.sh"; do
    run_bg -np 3 --oversubscribe "$prog" sleep 30 >/dev/null 2>&1
    sleep 1
    [ -n "$(leftovers)" ] || fail "no ranks running before the kill"
    kill -9 "$MPIRUN_PID"
    wait "$BG_JOB" 2>/dev/null
    tries=50
    while [ -n "$(leftovers)" ] && [ $tries -gt 0 ]; do sleep 0.1; tries=$((tries - 1)); done
    [ -z "$(leftovers)" ] || fail "ranks of $prog outlived mpirun by 5 s"
done
finish
