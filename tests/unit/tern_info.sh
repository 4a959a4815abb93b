#!/bin/sh
# tern-info lists the version, the transports and every tunable, and says
# where a value came from.
top=${TERN_TOP_BUILDDIR:-$(pwd)}
out=$(TERN_EAGER_MAX=1234 "$top/tools/tern-info") || { echo "FAIL: tern-info exited $?"; exit 1; }
fail=0
for want in "MPI standard 5.0, standard ABI 1.0" "transports allowed: self shm" \
        "TERN_WAIT=auto (default)" "TERN_EAGER_MAX=1234 (from the environment; default 0)" \
        "TERN_SHM_CMA=auto (default)" "TERN_SHM_CELL_SIZE=" "TERN_VERBOSE=0 (default)"; do
    if printf '%s\n' "$out" | grep -qF -- "$want"; then echo "ok: $want"
    else echo "FAIL: no '$want' in:"; printf '%s\n' "$out"; fail=1; fi
done
exit $fail
