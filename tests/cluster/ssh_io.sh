#!/bin/bash
# Remote ranks behave as local ones (mpirun on h1, ranks over ssh and
# tern-hostd on h2 and h3): output arrives as whole lines per rank, tagged
# with --tag-output (a partial last line too), nothing lost in bulk, nor
# while mpirun's own stdout is not read for longer than the timeout; stdin
# reaches rank 0 when it runs on another host (from a pipe and from a file,
# byte for byte); -x VAR, -x VAR=value and a relative --wdir mean the same
# on every host; exit codes, signals, MPI_Abort and a missing MPI_Finalize
# of a remote rank end the job with the message naming rank and host (and
# what the aborting rank printed first still arrives);
# shared memory the job left is removed on every host.
: "${TERN_TEST_TIMEOUT:=150}"
. "${srcdir:-.}/tests/cluster/lib.sh"

MPIPROG=$PWD/tests/launcher/mpiprog
HF=$TERN_CLUSTER_HOSTFILE
[ -x "$MPIRUN" ] || fail "no mpirun at $MPIRUN; build first"
# A hostfile that puts rank 0 on h2, so stdin has to cross the network.
printf 'h2 slots=2\nh3 slots=2\nh1 slots=2\n' >"$TMP/hf_r0_remote"

# ---- output: tags, partial lines, bulk ----
out=$(run_mpirun -np 6 --hostfile "$HF" --tag-output sh -c \
      'echo "out $(hostname)"; printf "part-$TERN_RANK"; echo "err $(hostname)" >&2' \
      2>"$TMP/err") || fail "tagged output: mpirun failed: $(cat "$TMP/err")"
for r in 0 1 2 3 4 5; do
    h=h$((r / 2 + 1))
    printf '%s\n' "$out" | grep -qx "\[$r\] out $h" || fail "tagged output: no '[$r] out $h' in: $out"
    printf '%s\n' "$out" | grep -qx "\[$r\] part-$r" ||
        fail "tagged output: rank $r's partial line is not a tagged line of its own: $out"
    grep -qx "\[$r\] err $h" "$TMP/err" || fail "tagged output: no '[$r] err $h' on stderr"
done
run_mpirun -np 6 --hostfile "$HF" --tag-output sh -c \
    'seq 1 100000 | sed "s/^/line-$TERN_RANK-/"' >"$TMP/bulk" 2>"$TMP/err" ||
    fail "bulk output: mpirun failed: $(cat "$TMP/err")"
for r in 0 1 2 3 4 5; do
    n=$(grep -c "^\[$r\] line-$r-[0-9]*$" "$TMP/bulk")
    [ "$n" = 100000 ] || fail "bulk output: rank $r delivered $n of 100000 whole lines"
done
[ "$(wc -l <"$TMP/bulk")" = 600000 ] || fail "bulk output: mixed or extra lines"
# mpirun blocked on a stdout nobody reads for twice the hosts' timeout (as
# under "| less") is busy, not dead: nothing is lost and the job succeeds.
n=$(TERN_HOSTD_TIMEOUT_MS=2000 TERN_HOSTD_KEEPALIVE_MS=500 run_mpirun -np 6 \
    --hostfile "$HF" sh -c 'seq 1 50000' 2>"$TMP/err" | (sleep 5; wc -l))
[ "$n" = 300000 ] && [ ! -s "$TMP/err" ] ||
    fail "blocked stdout: got $n of 300000 lines: $(cat "$TMP/err")"
check_clean

# ---- stdin to a remote rank 0 ----
out=$(echo "hello stdin" | run_mpirun -np 6 --hostfile "$TMP/hf_r0_remote" sh -c \
      'if [ $TERN_RANK = 0 ]; then echo "$(hostname): $(cat)"; else cat; fi' 2>"$TMP/err") ||
    fail "stdin from a pipe: mpirun failed: $(cat "$TMP/err")"
[ "$out" = "h2: hello stdin" ] || fail "stdin from a pipe: rank 0 on h2 got [$out]"
head -c 5000000 /dev/urandom >"$TMP/stdin.bin"
want=$(md5sum <"$TMP/stdin.bin" | cut -d' ' -f1)
got=$(run_mpirun -np 6 --hostfile "$TMP/hf_r0_remote" sh -c \
      '[ $TERN_RANK != 0 ] || md5sum | cut -d" " -f1' <"$TMP/stdin.bin" 2>"$TMP/err")
[ "$got" = "$want" ] || fail "stdin from a file: rank 0 on h2 read md5 $got, want $want: $(cat "$TMP/err")"
got=$(cat "$TMP/stdin.bin" | run_mpirun -np 6 --hostfile "$TMP/hf_r0_remote" sh -c \
      '[ $TERN_RANK != 0 ] || md5sum | cut -d" " -f1' 2>"$TMP/err")
[ "$got" = "$want" ] || fail "stdin from a pipe (5 MB): md5 $got, want $want"
# A rank 0 that reads nothing stalls nothing.
cat "$TMP/stdin.bin" | run_mpirun -np 6 --hostfile "$TMP/hf_r0_remote" true 2>"$TMP/err" ||
    fail "unread stdin: mpirun failed: $(cat "$TMP/err")"
check_clean

# ---- -x and --wdir on every host ----
mkdir -p "$TMP/wd/sub"
out=$(cd "$TMP/wd" && in_host 1 env FOO=from-mpirun "$MPIRUN" -np 6 --hostfile "$HF" \
      -x FOO -x BAR=set --wdir sub sh -c 'echo "$(hostname) $FOO $BAR $PWD $TERN_NODE_RANK"' \
      2>"$TMP/err") || fail "-x and --wdir: mpirun failed: $(cat "$TMP/err")"
for k in 1 2 3; do
    n=$(printf '%s\n' "$out" | grep -cx "h$k from-mpirun set $TMP/wd/sub $((k - 1))")
    [ "$n" = 2 ] || fail "-x and --wdir: expected 2 ranks on h$k with the settings, got: $out"
done

# ---- shared memory a job leaves (as ranks killed before they unlink their
# segment do) is gone from every host when mpirun returns ----
run_mpirun -np 6 --hostfile "$HF" sh -c 'touch "/dev/shm/tern-$(id -u)-$TERN_JOBID-left"' \
    2>"$TMP/err" || fail "leftover shared memory: mpirun failed: $(cat "$TMP/err")"
check_clean

# ---- a remote rank's exit code, signal, MPI_Abort, missing MPI_Finalize ----
run_mpirun -np 6 --hostfile "$HF" "$MPIPROG" exit 4 7 >/dev/null 2>"$TMP/err"
rc=$?
[ "$rc" = 7 ] || fail "exit code: expected 7, got $rc: $(cat "$TMP/err")"
grep -q 'rank 4 (pid [0-9]*) on host h3 exited with code 7' "$TMP/err" ||
    fail "exit code: message: $(cat "$TMP/err")"
run_mpirun -np 6 --hostfile "$HF" "$MPIPROG" segv 3 >/dev/null 2>"$TMP/err"
rc=$?
[ "$rc" = 139 ] || fail "segv: expected 139, got $rc: $(cat "$TMP/err")"
grep -q 'rank 3 (pid [0-9]*) on host h2 was killed by signal 11' "$TMP/err" ||
    fail "segv: message: $(cat "$TMP/err")"
t0=$(now_ms)
run_mpirun -np 6 --hostfile "$HF" "$MPIPROG" abort 5 9 >"$TMP/out" 2>"$TMP/err"
rc=$?
t1=$(now_ms)
[ "$rc" = 9 ] || fail "MPI_Abort: expected 9, got $rc: $(cat "$TMP/err")"
grep -q 'rank 5 (pid [0-9]*) on host h3 aborted the job' "$TMP/err" ||
    fail "MPI_Abort: message: $(cat "$TMP/err")"
grep -qx 'rank 5 aborts' "$TMP/out" ||
    fail "MPI_Abort: what rank 5 printed before the call was lost: [$(cat "$TMP/out")]"
[ $((t1 - t0)) -lt 5000 ] || fail "MPI_Abort: the job took $((t1 - t0)) ms"
run_mpirun -np 6 --hostfile "$HF" "$MPIPROG" nofinalize 2 >/dev/null 2>"$TMP/err"
rc=$?
[ "$rc" = 1 ] || fail "no MPI_Finalize: expected 1, got $rc: $(cat "$TMP/err")"
grep -q 'rank 2 (pid [0-9]*) on host h2 exited without calling MPI_Finalize' "$TMP/err" ||
    fail "no MPI_Finalize: message: $(cat "$TMP/err")"
finish
