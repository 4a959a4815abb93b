/*
 * Binding the ranks to CPUs with hwloc: the policy choice (pure, unit-tested
 * on synthetic topologies), mpirun's export of the options, and the binding
 * done in each rank's child before exec. See bind.h for the design.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/bind.h"
#include "launcher/launcher.h"
#include "tern/err.h"

int tern_bind_policy_parse(const char *s, enum tern_bind_policy *policy)
{
    static const struct { const char *name; enum tern_bind_policy p; } names[] = {
        { "auto", TERN_BIND_AUTO }, { "none", TERN_BIND_NONE },
        { "core", TERN_BIND_CORE }, { "socket", TERN_BIND_SOCKET },
        { "package", TERN_BIND_SOCKET }, { "numa", TERN_BIND_NUMA },
    };
    for (size_t i = 0; s && i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(s, names[i].name) == 0) {
            *policy = names[i].p;
            return 0;
        }
    }
    return TERN_EINVAL;
}

/*
 * The n-th object of this type whose CPUs meet the allowed set (n < 0 only
 * counts). Sets *count to how many there are and returns the n-th or NULL.
 */
static hwloc_obj_t nth_unit(hwloc_topology_t topo, hwloc_obj_type_t type,
                            hwloc_const_cpuset_t allowed, int n, int *count)
{
    hwloc_obj_t found = NULL;
    int k = 0;
    for (hwloc_obj_t o = hwloc_get_next_obj_by_type(topo, type, NULL); o;
         o = hwloc_get_next_obj_by_type(topo, type, o)) {
        if (!o->cpuset || !hwloc_bitmap_intersects(o->cpuset, allowed))
            continue;
        if (k == n)
            found = o;
        k++;
    }
    *count = k;
    return found;
}

/* Cores, or processing units on a topology that shows no cores. */
static hwloc_obj_type_t core_type(hwloc_topology_t topo)
{
    return hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE
                                                              : HWLOC_OBJ_PU;
}

static unsigned os_or_logical(hwloc_obj_t o)
{
    return o->os_index != HWLOC_UNKNOWN_INDEX ? o->os_index : o->logical_index;
}

/* Binds to the unit of type round-robin by local rank. */
static void choose_unit(hwloc_topology_t topo, hwloc_const_cpuset_t allowed,
                        hwloc_obj_type_t type, int local_rank, hwloc_cpuset_t cpus,
                        struct tern_bind_choice *c)
{
    int n;
    nth_unit(topo, type, allowed, -1, &n);
    if (n == 0) {
        /* A topology without packages or NUMA nodes: nothing to choose. */
        snprintf(c->why, sizeof c->why, "the topology shows no %s",
                 type == HWLOC_OBJ_PACKAGE ? "packages" : "NUMA nodes");
        return;
    }
    hwloc_obj_t o = nth_unit(topo, type, allowed, local_rank % n, &n);
    hwloc_bitmap_and(cpus, o->cpuset, allowed);
    c->bound = 1;
    c->unit = type == HWLOC_OBJ_PACKAGE ? "package" : "NUMA node";
    c->index = os_or_logical(o);
}

int tern_bind_choose(hwloc_topology_t topo, hwloc_const_cpuset_t allowed,
                     enum tern_bind_policy policy, int local_rank,
                     int local_size, int overload, hwloc_cpuset_t cpus,
                     struct tern_bind_choice *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    if (local_rank < 0 || local_size < 1 || local_rank >= local_size) {
        snprintf(err, errlen, "local rank %d of %d is out of range (a bug in the "
                 "launcher)", local_rank, local_size);
        return TERN_EINVAL;
    }
    hwloc_obj_type_t ctype = core_type(topo);
    nth_unit(topo, ctype, allowed, -1, &c->ncores);
    if (c->ncores == 0) {
        char *set = NULL;
        hwloc_bitmap_list_asprintf(&set, allowed);
        snprintf(err, errlen, "the inherited CPU set (OS CPUs %s) holds no CPU "
                 "of this host; check taskset or the cgroup cpuset, or use "
                 "--bind-to none", set ? set : "?");
        free(set);
        return TERN_EINVAL;
    }
    hwloc_bitmap_copy(cpus, allowed);
    if (policy == TERN_BIND_AUTO) {
        if (local_size > c->ncores) {
            snprintf(c->why, sizeof c->why, "%d ranks on %d cores", local_size,
                     c->ncores);
            return 0;
        }
        policy = TERN_BIND_CORE;
    }
    switch (policy) {
    case TERN_BIND_NONE:
        snprintf(c->why, sizeof c->why, "--bind-to none");
        return 0;
    case TERN_BIND_CORE:
        if (local_size > c->ncores && !overload) {
            snprintf(err, errlen, "--bind-to core: %d ranks on this host but only "
                     "%d cores in the CPU set it inherited; use --bind-to none, "
                     "or --oversubscribe to let ranks share cores", local_size,
                     c->ncores);
            return TERN_EINVAL;
        }
        hwloc_obj_t o = nth_unit(topo, ctype, allowed, local_rank % c->ncores,
                                 &c->ncores);
        hwloc_bitmap_and(cpus, o->cpuset, allowed);
        c->bound = 1;
        c->unit = "core";
        c->index = o->logical_index;
        return 0;
    case TERN_BIND_SOCKET:
        choose_unit(topo, allowed, HWLOC_OBJ_PACKAGE, local_rank, cpus, c);
        return 0;
    case TERN_BIND_NUMA:
        choose_unit(topo, allowed, HWLOC_OBJ_NUMANODE, local_rank, cpus, c);
        return 0;
    case TERN_BIND_AUTO:
        break;
    }
    return TERN_EINTERN;
}

int tern_bind_export(const struct tern_cli *cli, char *err, size_t errlen)
{
    enum tern_bind_policy p;
    const char *env = getenv("TERN_BIND_TO");
    int rc = 0;
    if (cli->bind_to)
        rc = setenv("TERN_BIND_TO", cli->bind_to, 1);
    else if (env && *env && tern_bind_policy_parse(env, &p)) {
        snprintf(err, errlen, "TERN_BIND_TO='%s' in the environment is not a "
                 "binding policy; use " TERN_BIND_NAMES, env);
        return TERN_EINVAL;
    }
    if (!rc && cli->report_bindings)
        rc = setenv("TERN_REPORT_BINDINGS", "1", 1);
    if (!rc && cli->oversubscribe)
        rc = setenv("TERN_OVERSUBSCRIBE", "1", 1);
    if (rc) {
        snprintf(err, errlen, "cannot set the binding options in the environment: "
                 "%s", strerror(errno));
        return TERN_ENOMEM;
    }
    return 0;
}

/* The settings a rank's child reads from its environment. */
struct settings {
    enum tern_bind_policy policy;
    int explicit;        /* The policy was asked for, not auto. */
    int report;
    int overload;
    int rank;            /* World rank, for messages. */
    char host[256];
};

static int flag(const char *name)
{
    const char *v = getenv(name);
    return v && strcmp(v, "1") == 0;
}

static int read_settings(struct settings *s, int local_rank)
{
    const char *v = getenv("TERN_BIND_TO");
    const char *r = getenv("TERN_RANK");
    s->rank = r && *r ? atoi(r) : local_rank;
    if (gethostname(s->host, sizeof s->host) != 0)
        strcpy(s->host, "localhost");
    s->host[sizeof s->host - 1] = '\0';
    s->report = flag("TERN_REPORT_BINDINGS");
    s->overload = flag("TERN_OVERSUBSCRIBE");
    s->policy = TERN_BIND_AUTO;
    if (v && *v && tern_bind_policy_parse(v, &s->policy)) {
        fprintf(stderr, "mpirun: rank %d on host %s: TERN_BIND_TO='%s' is not a "
                "binding policy; use " TERN_BIND_NAMES "\n", s->rank, s->host, v);
        return TERN_EINVAL;
    }
    s->explicit = s->policy != TERN_BIND_AUTO;
    return 0;
}

/*
 * Loads this host's topology without hwloc's plugins: they only find I/O
 * devices, which binding does not need, and loading them is most of the
 * cost. HWLOC_PLUGINS_PATH is put back before the program starts. The x86
 * backend is left out too: it moves the process onto every CPU in turn to
 * read CPUID, for cache and CPU-kind details that binding does not use;
 * Linux's sysfs gives the packages, cores and NUMA nodes.
 */
static int load_topology(hwloc_topology_t *topo)
{
    const char *old = getenv("HWLOC_PLUGINS_PATH");
    char *saved = old ? strdup(old) : NULL;
    setenv("HWLOC_PLUGINS_PATH", "", 1);
    int rc = hwloc_topology_init(topo);
    if (rc == 0) {
#if HWLOC_API_VERSION >= 0x20100
        hwloc_topology_set_components(*topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST,
                                      "x86");
#endif
        hwloc_topology_set_io_types_filter(*topo, HWLOC_TYPE_FILTER_KEEP_NONE);
        hwloc_topology_set_cache_types_filter(*topo, HWLOC_TYPE_FILTER_KEEP_NONE);
        hwloc_topology_set_icache_types_filter(*topo, HWLOC_TYPE_FILTER_KEEP_NONE);
        rc = hwloc_topology_load(*topo);
        if (rc)
            hwloc_topology_destroy(*topo);
    }
    int e = errno;
    if (saved)
        setenv("HWLOC_PLUGINS_PATH", saved, 1);
    else
        unsetenv("HWLOC_PLUGINS_PATH");
    free(saved);
    errno = e;
    return rc ? TERN_EIO : 0;
}

static void report(const struct settings *s, const struct tern_bind_choice *c,
                   hwloc_const_cpuset_t cpus)
{
    char list[512];
    hwloc_bitmap_list_snprintf(list, sizeof list, cpus);
    if (c->bound)
        fprintf(stderr, "mpirun: rank %d on host %s bound to %s %u (OS CPUs %s)\n",
                s->rank, s->host, c->unit, c->index, list);
    else
        fprintf(stderr, "mpirun: rank %d on host %s not bound (%s); may run on "
                "OS CPUs %s\n", s->rank, s->host, c->why, list);
}

/* Reports an unbound rank when its topology or binding failed under auto. */
static void report_unbound(const struct settings *s, const char *why)
{
    if (s->report)
        fprintf(stderr, "mpirun: rank %d on host %s not bound (%s)\n", s->rank,
                s->host, why);
}

/* Chooses and binds once the topology and the inherited set are known. */
static int bind_in(const struct settings *s, hwloc_topology_t topo,
                   hwloc_const_cpuset_t allowed, hwloc_cpuset_t cpus,
                   int local_rank, int local_size)
{
    struct tern_bind_choice c;
    char err[384];
    int rc = tern_bind_choose(topo, allowed, s->policy, local_rank, local_size,
                              s->overload, cpus, &c, err, sizeof err);
    if (rc) {
        /* Every rank of the host fails alike, and each says why: mpirun may
         * end the job as soon as the first one exits. */
        fprintf(stderr, "mpirun: rank %d on host %s: %s\n", s->rank, s->host, err);
        return rc;
    }
    /* The child is single-threaded: binding this thread binds the program,
     * and every thread it creates inherits the set. */
    if (c.bound && hwloc_set_cpubind(topo, cpus, HWLOC_CPUBIND_THREAD) != 0) {
        char list[256], msg[384];
        hwloc_bitmap_list_snprintf(list, sizeof list, cpus);
        snprintf(msg, sizeof msg, "cannot bind to OS CPUs %s: %s", list,
                 strerror(errno));
        if (!s->explicit) {
            report_unbound(s, msg);
            return 0;
        }
        fprintf(stderr, "mpirun: rank %d on host %s: --bind-to: %s; use --bind-to "
                "none\n", s->rank, s->host, msg);
        return TERN_EIO;
    }
    if (s->report)
        report(s, &c, cpus);
    return 0;
}

int tern_bind_child(int local_rank, int local_size)
{
    struct settings s;
    int rc = read_settings(&s, local_rank);
    if (rc || (s.policy == TERN_BIND_NONE && !s.report))
        return rc;
    hwloc_topology_t topo;
    if (load_topology(&topo)) {
        char msg[256];
        snprintf(msg, sizeof msg, "cannot read the CPU topology with hwloc: %s",
                 strerror(errno));
        if (!s.explicit || s.policy == TERN_BIND_NONE) {
            report_unbound(&s, msg);
            return 0;
        }
        fprintf(stderr, "mpirun: rank %d on host %s: --bind-to: %s; use --bind-to "
                "none\n", s.rank, s.host, msg);
        return TERN_EIO;
    }
    hwloc_bitmap_t allowed = hwloc_bitmap_alloc(), cpus = hwloc_bitmap_alloc();
    if (!allowed || !cpus) {
        fprintf(stderr, "mpirun: rank %d on host %s: out of memory choosing its "
                "CPUs\n", s.rank, s.host);
        rc = TERN_ENOMEM;
    } else if (hwloc_get_cpubind(topo, allowed, HWLOC_CPUBIND_THREAD) != 0) {
        /* Without the inherited set, work in what hwloc says is allowed. */
        hwloc_bitmap_copy(allowed, hwloc_topology_get_allowed_cpuset(topo));
    }
    if (!rc)
        rc = bind_in(&s, topo, allowed, cpus, local_rank, local_size);
    hwloc_bitmap_free(allowed);
    hwloc_bitmap_free(cpus);
    hwloc_topology_destroy(topo);
    return rc;
}

int tern_bind_precheck(int local_size, const char *host, char *err, size_t errlen)
{
    enum tern_bind_policy p;
    const char *v = getenv("TERN_BIND_TO");
    if (local_size < 1 || !v || tern_bind_policy_parse(v, &p) ||
        p != TERN_BIND_CORE || flag("TERN_OVERSUBSCRIBE"))
        return 0;
    hwloc_topology_t topo;
    if (load_topology(&topo))
        return 0; /* Each rank says why when it tries. */
    hwloc_bitmap_t allowed = hwloc_bitmap_alloc(), cpus = hwloc_bitmap_alloc();
    struct tern_bind_choice c;
    char why[384];
    int rc = 0;
    if (allowed && cpus &&
        hwloc_get_cpubind(topo, allowed, HWLOC_CPUBIND_THREAD) == 0 &&
        tern_bind_choose(topo, allowed, p, 0, local_size, 0, cpus, &c, why,
                         sizeof why)) {
        snprintf(err, errlen, "host %s: %s", host, why);
        rc = TERN_EINVAL;
    }
    hwloc_bitmap_free(allowed);
    hwloc_bitmap_free(cpus);
    hwloc_topology_destroy(topo);
    return rc;
}
