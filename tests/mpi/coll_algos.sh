# coll_algos.sh: sourced by the tests/mpi/coll_suite_*.test wrappers (POSIX sh).
#
# coll_algos NAME FALLBACK...
#   Prints the algorithm names of TERN_COLL_<NAME>, as the build tree's
#   tools/tern-info lists them (its help line "Algorithm of MPI_x: auto, a, b
#   or c"), less two_level (see below); when tern-info does not list the
#   variable, the FALLBACK names the wrapper keeps, less those tern-info
#   refuses (it logs "names no algorithm" for them). Prints nothing if no
#   name is left.
#
# coll_suite PROG NPLIST AUTO_NPLIST TIMEOUT SPEC... [-- PROG_ARGS...]
#   Runs PROG through tests/run-mpi-test.sh once per algorithm index i: the
#   run forces, for every SPEC "NAME:fallback1,fallback2,...", the i-th
#   algorithm of TERN_COLL_<NAME> (a collective with fewer algorithms runs
#   its choice unforced), at every rank count of NPLIST. Then once more
#   unforced at AUTO_NPLIST (skipped if empty). A collective whose algorithm
#   list comes out empty is a failure, not a silent pass: the wrapper would
#   test nothing. Returns 0 if every run passed, 77 if every run was skipped
#   (no launcher), 1 otherwise.

coll_algos() {
    _name=$1
    shift
    _list=""
    if [ -x tools/tern-info ]; then
        _list=$(tools/tern-info 2>/dev/null | awk -v v="TERN_COLL_$_name=" '
            found { sub(/^.*: auto/, ""); gsub(/,/, " "); gsub(/ or /, " "); print; exit }
            { sub(/^ +/, "") }
            index($0, v) == 1 { found = 1 }')
    fi
    # two_level needs a communicator over several hosts: on one host it
    # gives way to the automatic choice, so a run forcing it would repeat
    # the unforced run. tests/cluster/coll_nodes.sh forces it on hosts.
    _list=$(echo $_list | tr ' ' '\n' | grep -vx two_level)
    if [ -n "$(echo $_list)" ]; then
        echo $_list
        return
    fi
    # The wrapper's list, without the names this library does not know
    # (tern-info says so on stderr when the variable names no algorithm).
    _list=""
    for _a in "$@"; do
        if [ -x tools/tern-info ] &&
            env "TERN_COLL_$_name=$_a" tools/tern-info 2>&1 >/dev/null |
            grep -q "names no algorithm"; then
            echo "note: TERN_COLL_$_name=$_a is not an algorithm of this library; not run" >&2
            continue
        fi
        _list="$_list $_a"
    done
    echo $_list
}

coll_suite() {
    _prog=$1 _np=$2 _autonp=$3 _timeout=$4
    shift 4
    _specs=""
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do
        _specs="$_specs $1"
        shift
    done
    [ "${1:-}" = "--" ] && shift
    _driver="$(dirname "$0")/../run-mpi-test.sh"
    _max=0 _j=0
    for _s in $_specs; do
        _j=$((_j + 1))
        _l=$(coll_algos "${_s%%:*}" $(echo "${_s#*:}" | tr ',' ' '))
        eval "_algos_$_j=\"\$_l\""
        _n=$(echo $_l | wc -w)
        if [ "$_n" -eq 0 ]; then
            echo "FAIL $_prog: no algorithm of TERN_COLL_${_s%%:*} is known (tern-info lists none and the wrapper's list has none it accepts)"
            return 1
        fi
        [ "$_n" -gt "$_max" ] && _max=$_n
    done
    _status=0 _runs=0 _skips=0
    _i=1
    while [ $_i -le $_max ]; do
        _envs="" _j=0
        for _s in $_specs; do
            _j=$((_j + 1))
            eval "_l=\$_algos_$_j"
            _a=$(echo $_l | awk -v i=$_i '{ print $i }')
            [ -n "$_a" ] && _envs="$_envs --env TERN_COLL_${_s%%:*}=$_a"
        done
        echo "== $_prog:$_envs"
        "$_driver" --np "$_np" --timeout "$_timeout" $_envs -- "tests/mpi/$_prog" "$@"
        _rc=$?
        _runs=$((_runs + 1))
        [ $_rc -eq 77 ] && _skips=$((_skips + 1))
        [ $_rc -ne 0 ] && [ $_rc -ne 77 ] && _status=1
        _i=$((_i + 1))
    done
    if [ -n "$_autonp" ]; then
        echo "== $_prog: algorithms chosen by the library"
        "$_driver" --np "$_autonp" --timeout "$_timeout" -- "tests/mpi/$_prog" "$@"
        _rc=$?
        _runs=$((_runs + 1))
        [ $_rc -eq 77 ] && _skips=$((_skips + 1))
        [ $_rc -ne 0 ] && [ $_rc -ne 77 ] && _status=1
    fi
    [ $_status -ne 0 ] && return 1
    [ $_skips -eq $_runs ] && return 77
    return 0
}
