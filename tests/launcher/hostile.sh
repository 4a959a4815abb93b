#!/bin/sh
# Connections to the store that fail the handshake (garbage, a wrong MAC,
# connect-then-close) are dropped and logged at verbose level; the job
# still succeeds.
. "${srcdir:-.}/tests/launcher/lib.sh"
command -v bash >/dev/null || { echo "SKIP: needs bash for /dev/tcp"; exit 77; }
cat > "$TMP/attack.sh" <<EOS
#!/bin/bash
if [ "\$TERN_RANK" = 0 ]; then
    h=\${TERN_KVS_ADDR%:*}; p=\${TERN_KVS_ADDR##*:}
    exec 3<>/dev/tcp/\$h/\$p; printf 'GET / HTTP/1.0\r\n\r\n%0100d' 0 >&3; exec 3>&-
    exec 3<>/dev/tcp/\$h/\$p; exec 3>&-
    exec 3<>/dev/tcp/\$h/\$p; head -c 40 <&3 >/dev/null; head -c 64 /dev/urandom >&3; sleep 0.2; exec 3>&-
fi
exec "$PROG" hello
EOS
chmod +x "$TMP/attack.sh"
out=$(run -v -np 2 "$TMP/attack.sh" 2>"$TMP/err") || fail "job failed: $(cat "$TMP/err")"
[ "$(printf '%s\n' "$out" | grep -c '^hello from rank')" = 2 ] || fail "output: $out"
n=$(grep -c 'dropped store connection' "$TMP/err")
[ "$n" = 3 ] || fail "expected 3 dropped connections, got $n: $(cat "$TMP/err")"
out=$(run -np 2 "$TMP/attack.sh" 2>"$TMP/err") || fail "job failed: $(cat "$TMP/err")"
[ ! -s "$TMP/err" ] || fail "drops must be quiet without -v: $(cat "$TMP/err")"
finish
