/*
 * Unit tests of the mapping of ranks onto hosts (launcher/plan.c) and of
 * each rank's environment (launcher/rankenv.c). The command line is a
 * struct tern_cli filled in directly; hostfiles go into a mkdtemp
 * directory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cunit_main.h"
#include "launcher/launcher.h"
#include "tern/err.h"

static char dir[64];
static char hostfile[128];
static char err[1024];

/* A cli with -np np, one -H value (or NULL) and a hostfile text (or NULL). */
static void make_cli(struct tern_cli *cli, int np, char **spec, const char *text)
{
    memset(cli, 0, sizeof *cli);
    cli->np = np;
    if (spec && *spec) {
        cli->hosts = spec;
        cli->n_hosts = 1;
    }
    if (text) {
        snprintf(hostfile, sizeof hostfile, "%s/hosts", dir);
        FILE *f = fopen(hostfile, "w");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        fputs(text, f);
        fclose(f);
        cli->hostfile = hostfile;
    }
}

/* Maps and returns the result; on success the plan must be freed. */
static int plan_for(struct tern_plan *p, int np, const char *spec, const char *text,
                    int by_node, int over)
{
    struct tern_cli cli;
    char *specs[1] = { (char *)spec };
    make_cli(&cli, np, specs, text);
    cli.map_by_node = by_node;
    cli.oversubscribe = over;
    err[0] = '\0';
    return tern_plan_make(&cli, p, err, sizeof err);
}

/* Checks that host h of the plan is name with exactly these ranks (a
 * comma list), and that host_of/local_rank agree. */
static void expect_host(const struct tern_plan *p, int h, const char *name,
                        const char *ranks)
{
    CU_ASSERT_FATAL(h < p->hl.n);
    const struct tern_host *host = &p->hl.hosts[h];
    CU_ASSERT_STRING_EQUAL(host->name, name);
    char got[256] = "";
    size_t len = 0;
    for (int i = 0; i < host->nranks; i++) {
        int r = host->ranks[i];
        len += (size_t)snprintf(got + len, sizeof got - len, i ? ",%d" : "%d", r);
        CU_ASSERT_EQUAL(p->host_of[r], h);
        CU_ASSERT_EQUAL(p->local_rank[r], i);
    }
    CU_ASSERT_STRING_EQUAL(got, ranks);
    if (strcmp(got, ranks) != 0)
        fprintf(stderr, "\n  host %s: ranks %s, want %s\n", name, got, ranks);
}

static void test_no_hosts(void)
{
    struct tern_plan p;
    char self[256];
    CU_ASSERT_EQUAL_FATAL(gethostname(self, sizeof self), 0);
    CU_ASSERT_EQUAL_FATAL(plan_for(&p, 3, NULL, NULL, 0, 0), 0);
    CU_ASSERT_EQUAL(p.np, 3);
    CU_ASSERT_EQUAL(p.hl.n, 1);
    CU_ASSERT_EQUAL(p.remote, 0);
    CU_ASSERT_EQUAL(p.hl.hosts[0].local, 1);
    expect_host(&p, 0, self, "0,1,2");
    tern_plan_free(&p);
    /* Without -np: one rank. Many ranks: no refusal on the local host. */
    CU_ASSERT_EQUAL_FATAL(plan_for(&p, 0, NULL, NULL, 0, 0), 0);
    CU_ASSERT_EQUAL(p.np, 1);
    tern_plan_free(&p);
    CU_ASSERT_EQUAL_FATAL(plan_for(&p, 64, NULL, NULL, 1, 0), 0);
    CU_ASSERT_EQUAL(p.hl.hosts[0].nranks, 64);
    tern_plan_free(&p);
}

static void test_map_slot(void)
{
    struct tern_plan p;
    CU_ASSERT_EQUAL_FATAL(plan_for(&p, 4, "a:2,b:2", NULL, 0, 0), 0);
    CU_ASSERT_EQUAL(p.remote, 1);
    expect_host(&p, 0, "a", "0,1");
    expect_host(&p, 1, "b", "2,3");
    tern_plan_free(&p);
    CU_ASSERT_EQUAL_FATAL(plan_for(&p, 3, "a:2,b:2", NULL, 0, 0), 0);
    expect_host(&p, 0, "a", "0,1");
    expect_host(&p, 1, "b", "2");
    tern_plan_free(&p);
    /* -np absent: the slot total. */
    CU_ASSERT_EQUAL_FATAL(plan_for(&p, 0, "a:2", "b slots=3\nc\n", 0, 0), 0);
    CU_ASSERT_EQUAL(p.np, 6);
    expect_host(&p, 0, "a", "0,1");
    expect_host(&p, 1, "b", "2,3,4");
    expect_host(&p, 2, "c", "5");
    tern_plan_free(&p);
}

static void test_map_node(void)
{
    struct tern_plan p;
    CU_ASSERT_EQUAL_FATAL(plan_for(&p, 4, "a:2,b:2", NULL, 1, 0), 0);
    expect_host(&p, 0, "a", "0,2");
    expect_host(&p, 1, "b", "1,3");
    tern_plan_free(&p);
    /* Full hosts are skipped. */
    CU_ASSERT_EQUAL_FATAL(plan_for(&p, 4, "a:1,b:3", NULL, 1, 0), 0);
    expect_host(&p, 0, "a", "0");
    expect_host(&p, 1, "b", "1,2,3");
    tern_plan_free(&p);
    CU_ASSERT_EQUAL_FATAL(plan_for(&p, 5, "a:2,b,c:2", NULL, 1, 0), 0);
    expect_host(&p, 0, "a", "0,3");
    expect_host(&p, 1, "b", "1");
    expect_host(&p, 2, "c", "2,4");
    tern_plan_free(&p);
}

static void test_dropped_hosts(void)
{
    struct tern_plan p;
    CU_ASSERT_EQUAL_FATAL(plan_for(&p, 2, "a:2,b:2,c:2", NULL, 0, 0), 0);
    CU_ASSERT_EQUAL(p.hl.n, 1);
    expect_host(&p, 0, "a", "0,1");
    tern_plan_free(&p);
    /* A remote host with no rank does not make the plan remote. */
    CU_ASSERT_EQUAL_FATAL(plan_for(&p, 2, "localhost:2,far:2", NULL, 0, 0), 0);
    CU_ASSERT_EQUAL(p.hl.n, 1);
    CU_ASSERT_EQUAL(p.remote, 0);
    tern_plan_free(&p);
    CU_ASSERT_EQUAL_FATAL(plan_for(&p, 2, "a:2,b:2,c:2", NULL, 1, 0), 0);
    CU_ASSERT_EQUAL(p.hl.n, 2);
    expect_host(&p, 0, "a", "0");
    expect_host(&p, 1, "b", "1");
    tern_plan_free(&p);
}

static void test_oversubscribe(void)
{
    struct tern_plan p;
    CU_ASSERT_EQUAL(plan_for(&p, 9, NULL, "h1 slots=2\nh2 slots=2\n", 0, 0), TERN_EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "-np 9 asks for 9 ranks but the hosts give 4 slots "
                           "(h1: 2, h2: 2); use --oversubscribe to run more ranks "
                           "than slots, or add slots in the hostfile");
    CU_ASSERT_EQUAL(p.hl.n, 0);
    CU_ASSERT_EQUAL(plan_for(&p, 3, "a,b", NULL, 1, 0), TERN_EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "-np 3 asks for 3 ranks but the hosts give 2 slots "
                           "(a: 1, b: 1); use --oversubscribe to run more ranks "
                           "than slots, or add slots with -H host:N");
    /* Slot mapping keeps each host's ranks consecutive. */
    CU_ASSERT_EQUAL_FATAL(plan_for(&p, 7, "a:2,b:2", NULL, 0, 1), 0);
    expect_host(&p, 0, "a", "0,1,2,3");
    expect_host(&p, 1, "b", "4,5,6");
    tern_plan_free(&p);
    CU_ASSERT_EQUAL_FATAL(plan_for(&p, 7, "a:2,b:2", NULL, 1, 1), 0);
    expect_host(&p, 0, "a", "0,2,4,6");
    expect_host(&p, 1, "b", "1,3,5");
    tern_plan_free(&p);
    /* The local host also refuses more ranks than slots given. */
    CU_ASSERT_EQUAL(plan_for(&p, 3, "localhost:2", NULL, 0, 0), TERN_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "(localhost: 2)"));
}

static void test_max_slots(void)
{
    struct tern_plan p;
    const char *hf = "a slots=2 max_slots=3\nb slots=2 max_slots=2\n";
    CU_ASSERT_EQUAL_FATAL(plan_for(&p, 5, NULL, hf, 0, 1), 0);
    expect_host(&p, 0, "a", "0,1,2");
    expect_host(&p, 1, "b", "3,4");
    tern_plan_free(&p);
    CU_ASSERT_EQUAL(plan_for(&p, 6, NULL, hf, 0, 1), TERN_EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "-np 6 asks for 6 ranks but max_slots allows at most "
                           "5 (a: 3, b: 2), even with --oversubscribe; raise "
                           "max_slots in the hostfile or run fewer ranks");
    /* A host without max_slots takes the rest. */
    CU_ASSERT_EQUAL_FATAL(plan_for(&p, 4, NULL, "a slots=1 max_slots=1\nb\n", 0, 1), 0);
    expect_host(&p, 0, "a", "0");
    expect_host(&p, 1, "b", "1,2,3");
    tern_plan_free(&p);
    CU_ASSERT_EQUAL_FATAL(plan_for(&p, 4, NULL, "a slots=1 max_slots=1\nb\n", 1, 1), 0);
    expect_host(&p, 0, "a", "0");
    expect_host(&p, 1, "b", "1,2,3");
    tern_plan_free(&p);
}

static void test_sources_and_errors(void)
{
    struct tern_plan p;
    /* -H first, then the hostfile; local names merge into one host. */
    CU_ASSERT_EQUAL_FATAL(plan_for(&p, 0, "far:1", "localhost slots=2\n127.0.0.1\n",
                                   0, 0), 0);
    CU_ASSERT_EQUAL(p.np, 4);
    CU_ASSERT_EQUAL(p.remote, 1);
    expect_host(&p, 0, "far", "0");
    expect_host(&p, 1, "localhost", "1,2,3");
    CU_ASSERT_EQUAL(p.hl.hosts[0].local, 0);
    CU_ASSERT_EQUAL(p.hl.hosts[1].local, 1);
    tern_plan_free(&p);
    CU_ASSERT_EQUAL(plan_for(&p, 0, NULL, "ok\nbad:0\n", 0, 0), TERN_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "/hosts:2:5: slot count"));
    CU_ASSERT_EQUAL(plan_for(&p, 0, "a:", NULL, 0, 0), TERN_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "-H 'a:', column 3"));
}

/* The value of name in env, or NULL; fails if name is there twice. */
static const char *lookup(char **env, const char *name)
{
    const char *found = NULL;
    size_t n = strlen(name);
    for (char **e = env; *e; e++) {
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=') {
            CU_ASSERT_PTR_NULL(found);
            found = *e + n + 1;
        }
    }
    return found;
}

static void expect_var(char **env, const char *name, const char *value)
{
    const char *v = lookup(env, name);
    CU_ASSERT_PTR_NOT_NULL(v);
    if (v) {
        CU_ASSERT_STRING_EQUAL(v, value);
        if (strcmp(v, value) != 0)
            fprintf(stderr, "\n  %s=%s, want %s\n", name, v, value);
    }
}

static void test_rank_env(void)
{
    struct tern_cli cli;
    struct tern_job job;
    char *spec[1] = { "a:2,b:2" };
    char *xs[] = { "X_FROM_MPIRUN", "X_SET=1=2", "X_UNSET_XYZ", "TERN_T_FWD=over",
                   "TERN_RANK=99" };
    make_cli(&cli, 4, spec, NULL);
    cli.map_by_node = 1;
    cli.env = xs;
    cli.n_env = 5;
    memset(&job, 0, sizeof job);
    job.cli = &cli;
    CU_ASSERT_EQUAL_FATAL(tern_plan_make(&cli, &job.plan, err, sizeof err), 0);
    job.size = job.plan.np;
    strcpy(job.jobid, "77-abc");
    strcpy(job.kvs_addr, "127.0.0.1:4242");
    strcpy(job.secret_hex, "00ff");
    setenv("TERN_T_FWD", "mine", 1);
    setenv("TERN_T_KEEP", "kept", 1);
    setenv("TERN_PGID", "999", 1);
    setenv("X_FROM_MPIRUN", "from mpirun", 1);
    unsetenv("X_UNSET_XYZ");
    setenv("NOT_TERN_VAR", "no", 1);

    char **env = tern_rank_env(&job, 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(env);
    expect_var(env, "TERN_RANK", "3");
    expect_var(env, "TERN_SIZE", "4");
    expect_var(env, "TERN_LOCAL_RANK", "1");
    expect_var(env, "TERN_LOCAL_SIZE", "2");
    expect_var(env, "TERN_LOCAL_RANKS", "1,3");
    expect_var(env, "TERN_NODE_RANK", "1");
    expect_var(env, "TERN_NODE_MAP", "0*1,1*1,0*1,1*1");
    expect_var(env, "TERN_JOBID", "77-abc");
    expect_var(env, "TERN_KVS_ADDR", "127.0.0.1:4242");
    expect_var(env, "TERN_JOB_SECRET", "00ff");
    expect_var(env, "OMPI_COMM_WORLD_RANK", "3");
    expect_var(env, "OMPI_COMM_WORLD_SIZE", "4");
    expect_var(env, "OMPI_COMM_WORLD_LOCAL_RANK", "1");
    expect_var(env, "OMPI_COMM_WORLD_LOCAL_SIZE", "2");
    expect_var(env, "OMPI_COMM_WORLD_NODE_RANK", "1");
    expect_var(env, "PMI_RANK", "3");
    expect_var(env, "PMI_SIZE", "4");
    expect_var(env, "MPI_LOCALRANKID", "1");
    expect_var(env, "MPI_LOCALNRANKS", "2");
    expect_var(env, "X_FROM_MPIRUN", "from mpirun");
    expect_var(env, "X_SET", "1=2");
    expect_var(env, "TERN_T_FWD", "over");
    expect_var(env, "TERN_T_KEEP", "kept");
    CU_ASSERT_PTR_NULL(lookup(env, "X_UNSET_XYZ"));
    CU_ASSERT_PTR_NULL(lookup(env, "TERN_PGID"));
    CU_ASSERT_PTR_NULL(lookup(env, "NOT_TERN_VAR"));
    /* Anything else is a TERN_* variable of ours, with our value. */
    static const char *set[] = {
        "TERN_RANK", "TERN_SIZE", "TERN_LOCAL_RANK", "TERN_LOCAL_SIZE",
        "TERN_LOCAL_RANKS", "TERN_NODE_RANK", "TERN_NODE_MAP", "TERN_JOBID", "TERN_KVS_ADDR",
        "TERN_JOB_SECRET", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
        "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE",
        "OMPI_COMM_WORLD_NODE_RANK", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID",
        "MPI_LOCALNRANKS", "X_FROM_MPIRUN", "X_SET", "TERN_T_FWD", NULL
    };
    for (char **e = env; *e; e++) {
        char name[128];
        size_t n = strcspn(*e, "=");
        snprintf(name, sizeof name, "%.*s", (int)n, *e);
        int known = 0;
        for (const char **k = set; *k; k++)
            known |= strcmp(*k, name) == 0;
        if (known)
            continue;
        CU_ASSERT_EQUAL(strncmp(name, "TERN_", 5), 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(getenv(name));
        CU_ASSERT_STRING_EQUAL(*e + n + 1, getenv(name));
    }
    tern_rank_env_free(env);

    env = tern_rank_env(&job, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(env);
    expect_var(env, "TERN_LOCAL_RANKS", "0,2");
    expect_var(env, "TERN_NODE_RANK", "0");
    expect_var(env, "TERN_LOCAL_RANK", "0");
    tern_rank_env_free(env);
    CU_ASSERT_PTR_NULL(tern_rank_env(&job, 4));
    tern_plan_free(&job.plan);
    unsetenv("TERN_T_FWD");
    unsetenv("TERN_T_KEEP");
    unsetenv("TERN_PGID");
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s", "/tmp/tern-test-plan.XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 99;
    }
    static const struct cunit_test tests[] = {
        { "no hosts: this machine", test_no_hosts },
        { "map by slot", test_map_slot },
        { "map by node", test_map_node },
        { "hosts without ranks are dropped", test_dropped_hosts },
        { "oversubscription", test_oversubscribe },
        { "max_slots", test_max_slots },
        { "sources and errors", test_sources_and_errors },
        { "rank environment", test_rank_env },
        { NULL, NULL }
    };
    int rc = cunit_run("plan", tests);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return rc;
}
