#!/bin/sh
#
# mpi_h_compile.sh -- check that include/mpi.h is usable and has the standard ABI.
#
# Usage: [CC=cc] [CXX=c++] sh tests/unit/mpi_h_compile.sh [include-dir]
#
# The include directory defaults to "include" at the top of the repository.
# Each check prints one line, PASS, FAIL or SKIP, followed by the compiler's
# output when it fails. The checks:
#
#   1. a C program that uses mpi.h compiles as strict, pedantic C99;
#   2. the same program compiles as C11, where the ABI facts are checked with
#      _Static_assert (sizes, field offsets, and integer constants);
#   3. the same program, built without the function references, runs and
#      checks the predefined handle values, which are pointers and therefore
#      cannot appear in a static assertion;
#   4. every prototype sits on one line and every MPI_ function has a PMPI_
#      twin with identical parameters, which the build scripts rely on;
#   5. a C++ program that uses mpi.h compiles with warnings as errors.
#
# Exit status: 1 if any check failed; otherwise 77 (skipped, as Automake
# understands it) if no C++ compiler was found, and 0 if everything passed.

set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
incdir=${1:-$top/include}
cc=${CC:-cc}

if [ ! -r "$incdir/mpi.h" ]; then
    echo "FAIL: no mpi.h in '$incdir'"
    exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mpi_h_compile.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

failed=0
skipped=0

# run_check NAME COMMAND...: run a command, report the result in one line,
# and show the command's output only when it fails.
run_check() {
    name=$1
    shift
    if "$@" >"$tmp/out" 2>&1; then
        echo "PASS: $name"
    else
        echo "FAIL: $name"
        sed 's/^/    /' "$tmp/out"
        failed=1
    fi
}

# ---- The C program --------------------------------------------------------

cat >"$tmp/abi.c" <<'EOF'
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

/* The static checks and function references are left out of the build that
 * runs, so that it needs no MPI library and reports on the handles alone. */
#if !defined(RUN_ONLY)

/* A static assertion in C11; in C99 an array whose size turns negative. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define ABI_CHECK(cond, msg) _Static_assert(cond, msg)
#else
#define ABI_GLUE2(a, b) a##b
#define ABI_GLUE(a, b) ABI_GLUE2(a, b)
#define ABI_CHECK(cond, msg) typedef char ABI_GLUE(abi_check_, __LINE__)[(cond) ? 1 : -1]
#endif

/* The layout of the status object. */
ABI_CHECK(sizeof(MPI_Status) == 32, "MPI_Status is 8 ints");
ABI_CHECK(offsetof(MPI_Status, MPI_SOURCE) == 0, "MPI_SOURCE comes first");
ABI_CHECK(offsetof(MPI_Status, MPI_TAG) == 4, "MPI_TAG comes second");
ABI_CHECK(offsetof(MPI_Status, MPI_ERROR) == 8, "MPI_ERROR comes third");

/* The integer types and the size of handles. */
ABI_CHECK(sizeof(MPI_Aint) == sizeof(void *), "MPI_Aint is pointer-sized");
ABI_CHECK(sizeof(MPI_Offset) == 8, "MPI_Offset is 64-bit");
ABI_CHECK(sizeof(MPI_Count) == 8, "MPI_Count is 64-bit");
ABI_CHECK(sizeof(MPI_Comm) == sizeof(void *), "handles are pointers");

/* Versions. */
ABI_CHECK(MPI_VERSION == 5 && MPI_SUBVERSION == 0, "MPI 5.0");
ABI_CHECK(MPI_ABI_VERSION == 1 && MPI_ABI_SUBVERSION == 0, "ABI 1.0");

/* Integer constants. */
ABI_CHECK(MPI_SUCCESS == 0, "MPI_SUCCESS");
ABI_CHECK(MPI_ERR_UNSUPPORTED_OPERATION == 55, "MPI_ERR_UNSUPPORTED_OPERATION");
ABI_CHECK(MPI_ERR_LASTCODE == 0x3fff, "MPI_ERR_LASTCODE");
ABI_CHECK(MPI_ANY_SOURCE == -1, "MPI_ANY_SOURCE");
ABI_CHECK(MPI_ANY_TAG == -2, "MPI_ANY_TAG");
ABI_CHECK(MPI_PROC_NULL == -3, "MPI_PROC_NULL");
ABI_CHECK(MPI_ROOT == -4, "MPI_ROOT");
ABI_CHECK(MPI_UNDEFINED == -32766, "MPI_UNDEFINED");
ABI_CHECK(MPI_THREAD_SINGLE == 0, "MPI_THREAD_SINGLE");
ABI_CHECK(MPI_THREAD_FUNNELED == 1024, "MPI_THREAD_FUNNELED");
ABI_CHECK(MPI_THREAD_SERIALIZED == 2048, "MPI_THREAD_SERIALIZED");
ABI_CHECK(MPI_THREAD_MULTIPLE == 4096, "MPI_THREAD_MULTIPLE");
ABI_CHECK(MPI_MAX_PROCESSOR_NAME == 256, "MPI_MAX_PROCESSOR_NAME");

/* Typical use: the addresses of a few functions of each kind, so that their
 * prototypes are checked against these types. */
typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*send_c_fn)(const void *, MPI_Count, MPI_Datatype, int, int, MPI_Comm);
send_fn use_send = MPI_Send;
send_fn use_psend = PMPI_Send;
send_c_fn use_send_c = MPI_Send_c;
double (*use_wtime)(void) = MPI_Wtime;
MPI_Aint (*use_aint_add)(MPI_Aint, MPI_Aint) = MPI_Aint_add;
MPI_Comm (*use_fromint)(int) = MPI_Comm_fromint;
int (*use_toint)(MPI_Comm) = PMPI_Comm_toint;
int (*use_pcontrol)(const int, ...) = MPI_Pcontrol;
int (*use_tinit)(int, int *) = MPI_T_init_thread;
MPI_Comm_copy_attr_function *use_dup_fn = MPI_COMM_DUP_FN;
#endif /* !RUN_ONLY */

/* The predefined handles, compared at run time. */
#define HANDLE(h, v) { #h, (intptr_t)(h), v }
static const struct { const char *name; intptr_t got, want; } handles[] = {
    HANDLE(MPI_COMM_NULL, 0x100), HANDLE(MPI_COMM_WORLD, 0x101),
    HANDLE(MPI_COMM_SELF, 0x102), HANDLE(MPI_GROUP_EMPTY, 0x109),
    HANDLE(MPI_INFO_NULL, 0x130), HANDLE(MPI_ERRORS_RETURN, 0x142),
    HANDLE(MPI_REQUEST_NULL, 0x180), HANDLE(MPI_DATATYPE_NULL, 0x200),
    HANDLE(MPI_INT, 0x209), HANDLE(MPI_DOUBLE, 0x214),
    HANDLE(MPI_BYTE, 0x247), HANDLE(MPI_SUM, 0x21),
    HANDLE(MPI_IN_PLACE, 1), HANDLE(MPI_STATUS_IGNORE, 0)
};

int main(void)
{
    size_t i;
    int bad = 0;
    for (i = 0; i < sizeof handles / sizeof handles[0]; i++) {
        if (handles[i].got != handles[i].want) {
            printf("%s is %#lx, expected %#lx\n", handles[i].name,
                   (unsigned long)handles[i].got, (unsigned long)handles[i].want);
            bad = 1;
        }
    }
    return bad;
}
EOF

cflags="-Wall -Wextra -Werror -I$incdir"

run_check "C99 pedantic compile ($cc)" \
    $cc -std=c99 -pedantic $cflags -c "$tmp/abi.c" -o "$tmp/abi99.o"
run_check "C11 _Static_assert ABI facts ($cc)" \
    $cc -std=c11 -pedantic $cflags -c "$tmp/abi.c" -o "$tmp/abi11.o"

if $cc -std=c99 $cflags -DRUN_ONLY "$tmp/abi.c" -o "$tmp/abi_run" >"$tmp/out" 2>&1; then
    run_check "predefined handle values at run time" "$tmp/abi_run"
else
    echo "FAIL: predefined handle values at run time (build failed)"
    sed 's/^/    /' "$tmp/out"
    failed=1
fi

# ---- The format of the prototypes ------------------------------------------

# Every line that starts a function declaration must end it; every MPI_
# prototype needs exactly one PMPI_ prototype with the same text.
check_format() {
    awk '
    /^[A-Za-z_][A-Za-z0-9_ *]*[ *]P?MPI_[A-Za-z0-9_]*\(/ && !/^typedef/ {
        if ($0 !~ /\)[ \t]*;[ \t]*$/) { print "not on one line: " $0; bad = 1; next }
        line = $0
        if (match(line, /[ *]PMPI_[A-Za-z0-9_]*\(/)) {
            key = substr(line, 1, RSTART) substr(line, RSTART + 2)
            pmpi[key]++
            orig[key] = line
        } else {
            mpi[line]++
            nmpi++
        }
    }
    END {
        for (k in mpi) if (pmpi[k] != 1) { print "no single PMPI_ twin for: " k; bad = 1 }
        for (k in pmpi) if (!(k in mpi)) { print "PMPI_ prototype without MPI_: " orig[k]; bad = 1 }
        if (nmpi == 0) { print "no prototypes found"; bad = 1 }
        exit bad
    }' "$incdir/mpi.h"
}
run_check "one-line prototypes, each MPI_ with a PMPI_ twin" check_format

# ---- The C++ program -------------------------------------------------------

# $CXX may carry flags ("g++ -std=c++11"), so only its first word is looked up.
cxx=
if [ -n "${CXX:-}" ]; then
    set -- $CXX
    if command -v "$1" >/dev/null 2>&1; then
        cxx=$CXX
    fi
else
    for candidate in c++ g++ clang++; do
        if command -v "$candidate" >/dev/null 2>&1; then
            cxx=$candidate
            break
        fi
    done
fi

if [ -z "$cxx" ]; then
    echo "SKIP: C++ compile (no C++ compiler found; set CXX)"
    skipped=1
else
    cat >"$tmp/abi.cpp" <<'EOF'
#include <mpi.h>
#include <cstddef>

#if __cplusplus >= 201103L
static_assert(sizeof(MPI_Status) == 32, "MPI_Status is 8 ints");
static_assert(offsetof(MPI_Status, MPI_ERROR) == 8, "MPI_ERROR comes third");
static_assert(MPI_ERR_UNSUPPORTED_OPERATION == 55, "MPI_ERR_UNSUPPORTED_OPERATION");
static_assert(MPI_THREAD_MULTIPLE == 4096, "MPI_THREAD_MULTIPLE");
#endif

/* The functions must have C linkage and the expected types in C++ too. */
int (*use_send)(const void *, int, MPI_Datatype, int, int, MPI_Comm) = MPI_Send;
int (*use_psend)(const void *, int, MPI_Datatype, int, int, MPI_Comm) = PMPI_Send;
double (*use_wtime)(void) = MPI_Wtime;
MPI_Datatype (*use_fromint)(int) = MPI_Type_fromint;

int main()
{
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Datatype type = MPI_INT;
    MPI_Status status;
    status.MPI_SOURCE = MPI_ANY_SOURCE;
    status.MPI_TAG = MPI_ANY_TAG;
    return (comm == MPI_COMM_NULL || type == MPI_DATATYPE_NULL || status.MPI_TAG != -2) ? 1 : 0;
}
EOF
    run_check "C++ compile ($cxx)" \
        $cxx -Wall -Wextra -Werror -pedantic -I"$incdir" -c "$tmp/abi.cpp" -o "$tmp/abi_cpp.o"
fi

if [ "$failed" -ne 0 ]; then
    exit 1
fi
if [ "$skipped" -ne 0 ]; then
    exit 77
fi
exit 0
