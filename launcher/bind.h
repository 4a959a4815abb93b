/*
 * Binding the ranks to CPUs (hwloc).
 *
 * Lifecycle: mpirun calls tern_bind_export() once after parsing its command
 * line. It checks the policy and puts --bind-to, --report-bindings and
 * --oversubscribe into mpirun's own environment as TERN_BIND_TO,
 * TERN_REPORT_BINDINGS and TERN_OVERSUBSCRIBE, where local ranks inherit
 * them and remote ranks get them with the other forwarded TERN_* variables;
 * a user may also set them directly. Whoever forks a rank (launch_local.c's
 * child(), tern-hostd's children) calls tern_bind_child() between fork and
 * exec, in a single-threaded child. It loads the host's topology, takes the
 * CPU set the process inherited (taskset, cgroup) as the set to work in,
 * lets tern_bind_choose() pick the rank's CPUs and binds the process, so the
 * program starts bound.
 *
 * Policies: core binds local rank i to the i-th core of the inherited set
 * (more ranks than cores is an error, or wraps around with --oversubscribe);
 * socket and numa go round-robin over the packages or NUMA nodes that have
 * CPUs in the set; none binds nothing; auto (the default) is core when the
 * host's ranks fit its cores and none when they do not.
 *
 * Ownership: tern_bind_choose() reads a topology and a CPU set the caller
 * owns and writes into a bitmap the caller allocated; nothing is kept.
 *
 * Errors: functions return 0 or a negative TERN_E* code. tern_bind_child()
 * prints its own one-line message on stderr ("mpirun: rank R on host H:
 * ...") and the caller then exits 127. Under auto, a topology that cannot be
 * read or a binding the system refuses leaves the rank unbound instead.
 *
 * Cost: one topology load per rank. On the 2-vCPU reference VM, quiet, a
 * load took 0.7 ms against 5.4 ms for hwloc's default load: the plugins
 * (PCI, OpenCL, GL, libxml) are kept from loading, since binding needs no
 * I/O objects, and the x86 backend is left out (see load_topology()).
 * Under heavy load (load average 8) the whole of tern_bind_child() took
 * 4 ms of CPU per rank against 25 ms with a default load and bind.
 */
#ifndef TERN_LAUNCHER_BIND_H
#define TERN_LAUNCHER_BIND_H

#include <stddef.h>
#include <hwloc.h>

struct tern_cli;

enum tern_bind_policy {
    TERN_BIND_AUTO,
    TERN_BIND_NONE,
    TERN_BIND_CORE,
    TERN_BIND_SOCKET,
    TERN_BIND_NUMA
};

/* The accepted policy names, for messages and --help. */
#define TERN_BIND_NAMES "core, socket, numa or none"

/* Parses a policy name (also "auto" and "package" for socket). Returns 0
 * or TERN_EINVAL. */
int tern_bind_policy_parse(const char *s, enum tern_bind_policy *policy);

/* What tern_bind_choose() decided for one rank. */
struct tern_bind_choice {
    int bound;          /* 1: bind to the chosen CPUs; 0: leave unbound. */
    const char *unit;   /* When bound: "core", "package" or "NUMA node". */
    unsigned index;     /* Which one: a core's logical index (as lstopo's
                           L#), a package's or NUMA node's OS index. */
    int ncores;         /* Cores with CPUs in the allowed set. */
    char why[96];       /* When not bound: why, e.g. "4 ranks on 2 cores". */
};

/* Chooses the CPUs of local rank local_rank of local_size on a host with
 * this topology, working inside the CPU set allowed. overload allows more
 * ranks than cores under core (they then share cores). On success fills
 * *choice and sets cpus to the CPUs to bind to (the allowed set when not
 * bound). Returns TERN_EINVAL with a message in err (without the host and
 * rank, which the caller adds) when core is asked for more ranks than
 * cores, or the allowed set holds no CPU of the topology. */
int tern_bind_choose(hwloc_topology_t topo, hwloc_const_cpuset_t allowed,
                     enum tern_bind_policy policy, int local_rank,
                     int local_size, int overload, hwloc_cpuset_t cpus,
                     struct tern_bind_choice *choice, char *err, size_t errlen);

/* mpirun: validates a TERN_BIND_TO set in the environment and exports the
 * command line's binding options (see above). Returns 0, or TERN_EINVAL
 * with a one-line message in err. */
int tern_bind_export(const struct tern_cli *cli, char *err, size_t errlen);

/* mpirun (and tern-hostd) before starting a host's local_size ranks: under
 * an explicit --bind-to core without --oversubscribe, checks that they fit
 * the cores of the inherited CPU set, so the refusal is one line instead of
 * one per rank. Returns 0 (also when the topology cannot be read: the ranks
 * then report it), or TERN_EINVAL with "host H: ..." in err. */
int tern_bind_precheck(int local_size, const char *host, char *err, size_t errlen);

/* In a forked child before exec: binds the process as TERN_BIND_TO says
 * and, if TERN_REPORT_BINDINGS is 1, prints one line on stderr saying
 * where world rank TERN_RANK runs (absolute OS CPU numbers). Returns 0 or
 * a TERN_E* code after printing the reason. */
int tern_bind_child(int local_rank, int local_size);

#endif
