#!/bin/sh
# The mpicc wrapper: -show prints the command with Tern's include and link
# flags; -c compiles without link flags; an ordinary MPI program compiles,
# links and runs as a singleton; -compile-info/-link-info answer.
top=${TERN_TOP_BUILDDIR:-$(pwd)}
src=${TERN_TOP_SRCDIR:-$top}
mpicc="$top/tools/mpicc-uninstalled"
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

show=$("$mpicc" -show -O2 -o "$tmp/hello" "$src/examples/hello.c")
check "-show names the include dir" 'echo "$show" | grep -q -- "-I$src/include"'
check "-show links the library with an rpath" 'echo "$show" | grep -q -- "-Wl,-rpath,.* -lmpi_abi"'
check "-show keeps the user's arguments" 'echo "$show" | grep -q -- "-O2 -o $tmp/hello"'
check "-show runs nothing" '[ ! -e "$tmp/hello" ]'
cshow=$("$mpicc" -show -c -o "$tmp/hello.o" "$src/examples/hello.c")
check "-c adds no link flags" '! echo "$cshow" | grep -q -- "-lmpi"'
check "-c compiles" '"$mpicc" -c -o "$tmp/hello.o" "$src/examples/hello.c" && [ -s "$tmp/hello.o" ]'
check "links an object" '"$mpicc" -o "$tmp/hello" "$tmp/hello.o"'
check "the program runs as a singleton" '"$tmp/hello" | grep -q "Hello from rank 0 of 1"'
check "-compile-info" '"$mpicc" -compile-info | grep -q -- "-I"'
check "-link-info" '"$mpicc" -link-info | grep -q -- "-lmpi_abi"'
exit $fail
