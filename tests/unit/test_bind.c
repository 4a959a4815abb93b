/*
 * Unit tests of the binding choice (launcher/bind.c) on synthetic hwloc
 * topologies: which CPUs local rank i of n gets under each policy, inside
 * an inherited CPU set, and the refusals. Synthetic PUs are numbered 0..N-1
 * in order, so "pack:2 core:4 pu:2" has core k on OS CPUs 2k and 2k+1 and
 * package p on OS CPUs 8p..8p+7.
 */
#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

#include "cunit_main.h"
#include "launcher/bind.h"
#include "launcher/launcher.h"
#include "tern/err.h"

static hwloc_topology_t topo;
static hwloc_bitmap_t allowed, cpus;
static struct tern_bind_choice c;
static char err[384];

static void load(const char *synthetic)
{
    if (topo)
        hwloc_topology_destroy(topo);
    CU_ASSERT_EQUAL_FATAL(hwloc_topology_init(&topo), 0);
    CU_ASSERT_EQUAL_FATAL(hwloc_topology_set_synthetic(topo, synthetic), 0);
    CU_ASSERT_EQUAL_FATAL(hwloc_topology_load(topo), 0);
    if (!allowed) {
        allowed = hwloc_bitmap_alloc();
        cpus = hwloc_bitmap_alloc();
    }
    hwloc_bitmap_copy(allowed, hwloc_topology_get_topology_cpuset(topo));
}

/* Chooses for rank i of n; returns the code and leaves the CPU list in buf. */
static int choose(enum tern_bind_policy p, int i, int n, int overload, char *buf,
                  size_t len)
{
    err[0] = '\0';
    int rc = tern_bind_choose(topo, allowed, p, i, n, overload, cpus, &c, err,
                              sizeof err);
    hwloc_bitmap_list_snprintf(buf, len, cpus);
    return rc;
}

static void test_parse(void)
{
    enum tern_bind_policy p = TERN_BIND_NONE;
    CU_ASSERT_EQUAL(tern_bind_policy_parse("core", &p), 0);
    CU_ASSERT_EQUAL(p, TERN_BIND_CORE);
    CU_ASSERT_EQUAL(tern_bind_policy_parse("socket", &p), 0);
    CU_ASSERT_EQUAL(p, TERN_BIND_SOCKET);
    CU_ASSERT_EQUAL(tern_bind_policy_parse("numa", &p), 0);
    CU_ASSERT_EQUAL(p, TERN_BIND_NUMA);
    CU_ASSERT_EQUAL(tern_bind_policy_parse("none", &p), 0);
    CU_ASSERT_EQUAL(p, TERN_BIND_NONE);
    CU_ASSERT_EQUAL(tern_bind_policy_parse("auto", &p), 0);
    CU_ASSERT_EQUAL(p, TERN_BIND_AUTO);
    CU_ASSERT_EQUAL(tern_bind_policy_parse("cores", &p), TERN_EINVAL);
    CU_ASSERT_EQUAL(tern_bind_policy_parse("", &p), TERN_EINVAL);
    CU_ASSERT_EQUAL(tern_bind_policy_parse(NULL, &p), TERN_EINVAL);
}

/* Each rank gets its own whole core (both hyperthreads), in order. */
static void test_core_fits(void)
{
    char buf[64], want[64];
    load("pack:2 core:4 pu:2");
    for (int i = 0; i < 8; i++) {
        CU_ASSERT_EQUAL(choose(TERN_BIND_CORE, i, 8, 0, buf, sizeof buf), 0);
        snprintf(want, sizeof want, "%d-%d", 2 * i, 2 * i + 1);
        CU_ASSERT_STRING_EQUAL(buf, want);
        CU_ASSERT_EQUAL(c.bound, 1);
        CU_ASSERT_STRING_EQUAL(c.unit, "core");
        CU_ASSERT_EQUAL(c.index, (unsigned)i);
        CU_ASSERT_EQUAL(c.ncores, 8);
    }
}

static void test_core_too_many(void)
{
    char buf[64];
    load("pack:2 core:4 pu:2");
    CU_ASSERT_EQUAL(choose(TERN_BIND_CORE, 0, 9, 0, buf, sizeof buf), TERN_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "9 ranks"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "8 cores"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--bind-to none"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--oversubscribe"));
    /* With --oversubscribe the ranks wrap around the cores. */
    CU_ASSERT_EQUAL(choose(TERN_BIND_CORE, 8, 9, 1, buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "0-1");
    CU_ASSERT_EQUAL(c.index, 0);
}

static void test_auto(void)
{
    char buf[64];
    load("pack:2 core:4 pu:2");
    CU_ASSERT_EQUAL(choose(TERN_BIND_AUTO, 3, 8, 0, buf, sizeof buf), 0);
    CU_ASSERT_EQUAL(c.bound, 1);
    CU_ASSERT_STRING_EQUAL(buf, "6-7");
    /* Oversubscribed: not bound, and it says why, even with overload. */
    CU_ASSERT_EQUAL(choose(TERN_BIND_AUTO, 3, 9, 1, buf, sizeof buf), 0);
    CU_ASSERT_EQUAL(c.bound, 0);
    CU_ASSERT_STRING_EQUAL(c.why, "9 ranks on 8 cores");
    CU_ASSERT_STRING_EQUAL(buf, "0-15");
}

static void test_none(void)
{
    char buf[64];
    load("pack:2 core:4 pu:2");
    CU_ASSERT_EQUAL(choose(TERN_BIND_NONE, 0, 2, 0, buf, sizeof buf), 0);
    CU_ASSERT_EQUAL(c.bound, 0);
    CU_ASSERT_STRING_EQUAL(c.why, "--bind-to none");
    CU_ASSERT_STRING_EQUAL(buf, "0-15");
}

/* Inside an inherited set (as taskset -c 3,4,9 gives): only the cores that
 * meet it count, and a rank gets only the allowed part of its core. */
static void test_inherited_set(void)
{
    char buf[64];
    load("pack:2 core:4 pu:2");
    hwloc_bitmap_list_sscanf(allowed, "3,4,9");
    CU_ASSERT_EQUAL(choose(TERN_BIND_CORE, 0, 3, 0, buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "3");
    CU_ASSERT_EQUAL(c.index, 1);
    CU_ASSERT_EQUAL(choose(TERN_BIND_CORE, 1, 3, 0, buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "4");
    CU_ASSERT_EQUAL(c.index, 2);
    CU_ASSERT_EQUAL(choose(TERN_BIND_CORE, 2, 3, 0, buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "9");
    CU_ASSERT_EQUAL(c.index, 4);
    CU_ASSERT_EQUAL(choose(TERN_BIND_AUTO, 0, 4, 0, buf, sizeof buf), 0);
    CU_ASSERT_EQUAL(c.bound, 0);
    CU_ASSERT_STRING_EQUAL(c.why, "4 ranks on 3 cores");
    CU_ASSERT_STRING_EQUAL(buf, "3-4,9");
    /* Socket: package 0 holds 3-4, package 1 holds 9. */
    CU_ASSERT_EQUAL(choose(TERN_BIND_SOCKET, 0, 3, 0, buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "3-4");
    CU_ASSERT_EQUAL(choose(TERN_BIND_SOCKET, 1, 3, 0, buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "9");
    /* A set with no CPU of the topology is refused with the fix. */
    hwloc_bitmap_only(allowed, 100);
    CU_ASSERT_EQUAL(choose(TERN_BIND_AUTO, 0, 1, 0, buf, sizeof buf), TERN_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--bind-to none"));
}

static void test_socket_round_robin(void)
{
    char buf[64];
    load("pack:2 core:4 pu:2");
    const char *want[] = { "0-7", "8-15", "0-7", "8-15", "0-7" };
    for (int i = 0; i < 5; i++) {
        CU_ASSERT_EQUAL(choose(TERN_BIND_SOCKET, i, 5, 0, buf, sizeof buf), 0);
        CU_ASSERT_STRING_EQUAL(buf, want[i]);
        CU_ASSERT_STRING_EQUAL(c.unit, "package");
        CU_ASSERT_EQUAL(c.index, (unsigned)(i % 2));
    }
    /* More ranks than cores is fine for socket: they share the package. */
    CU_ASSERT_EQUAL(choose(TERN_BIND_SOCKET, 16, 17, 0, buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "0-7");
}

static void test_numa_round_robin(void)
{
    char buf[64];
    load("pack:1 numa:3 core:2 pu:1");
    const char *want[] = { "0-1", "2-3", "4-5", "0-1" };
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(choose(TERN_BIND_NUMA, i, 4, 0, buf, sizeof buf), 0);
        CU_ASSERT_STRING_EQUAL(buf, want[i]);
        CU_ASSERT_STRING_EQUAL(c.unit, "NUMA node");
        CU_ASSERT_EQUAL(c.index, (unsigned)(i % 3));
    }
    /* Inside 2-5 only nodes 1 and 2 count. */
    hwloc_bitmap_list_sscanf(allowed, "2-5");
    CU_ASSERT_EQUAL(choose(TERN_BIND_NUMA, 0, 2, 0, buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "2-3");
    CU_ASSERT_EQUAL(c.index, 1);
    CU_ASSERT_EQUAL(choose(TERN_BIND_NUMA, 1, 2, 0, buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "4-5");
}

/* A topology that shows no cores: each processing unit counts as one. */
static void test_no_core_level(void)
{
    char buf[64];
    load("pack:2 pu:2");
    CU_ASSERT_EQUAL(choose(TERN_BIND_CORE, 3, 4, 0, buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "3");
    CU_ASSERT_EQUAL(c.ncores, 4);
    CU_ASSERT_EQUAL(choose(TERN_BIND_AUTO, 0, 5, 0, buf, sizeof buf), 0);
    CU_ASSERT_EQUAL(c.bound, 0);
}

static void test_bad_local_rank(void)
{
    char buf[64];
    load("pack:1 core:2 pu:1");
    CU_ASSERT_EQUAL(choose(TERN_BIND_CORE, 2, 2, 0, buf, sizeof buf), TERN_EINVAL);
    CU_ASSERT_EQUAL(choose(TERN_BIND_CORE, -1, 2, 0, buf, sizeof buf), TERN_EINVAL);
    CU_ASSERT_EQUAL(choose(TERN_BIND_CORE, 0, 0, 0, buf, sizeof buf), TERN_EINVAL);
}

/* mpirun's options: --bind-to is checked while parsing. */
static void test_cli(void)
{
    struct tern_cli cli;
    char *ok[] = { "mpirun", "--bind-to=socket", "--report-bindings", "prog", NULL };
    CU_ASSERT_EQUAL_FATAL(tern_cli_parse(4, ok, &cli, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(cli.bind_to, "socket");
    CU_ASSERT_EQUAL(cli.report_bindings, 1);
    tern_cli_free(&cli);
    char *bad[] = { "mpirun", "--bind-to", "hwthread", "prog", NULL };
    CU_ASSERT_EQUAL(tern_cli_parse(4, bad, &cli, err, sizeof err), TERN_EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "--bind-to 'hwthread' is not a binding policy; "
                           "use core, socket, numa or none");
    tern_cli_free(&cli);
    char *none[] = { "mpirun", "prog", NULL };
    CU_ASSERT_EQUAL_FATAL(tern_cli_parse(2, none, &cli, err, sizeof err), 0);
    CU_ASSERT_PTR_NULL(cli.bind_to);
    CU_ASSERT_EQUAL(cli.report_bindings, 0);
    tern_cli_free(&cli);
}

int main(void)
{
    static const struct cunit_test tests[] = {
        { "policy names", test_parse },
        { "core, ranks fit", test_core_fits },
        { "core, more ranks than cores", test_core_too_many },
        { "auto", test_auto },
        { "none", test_none },
        { "inside an inherited set", test_inherited_set },
        { "socket round-robin", test_socket_round_robin },
        { "numa round-robin", test_numa_round_robin },
        { "no core level", test_no_core_level },
        { "local rank out of range", test_bad_local_rank },
        { "mpirun options", test_cli },
        { NULL, NULL },
    };
    int rc = cunit_run("bind", tests);
    if (topo)
        hwloc_topology_destroy(topo);
    hwloc_bitmap_free(allowed);
    hwloc_bitmap_free(cpus);
    return rc;
}
