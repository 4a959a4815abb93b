/*
 * The environment one rank starts with, the same wherever it runs.
 *
 * The list is built in three layers, a later one replacing a variable of
 * an earlier one: first every TERN_* variable of mpirun's own environment
 * (the user's tunables must reach remote ranks too), then the -x settings
 * ("-x VAR" takes mpirun's value and is skipped when mpirun has none,
 * "-x VAR=value" sets it), then the wire-up variables from the plan, which
 * nothing overrides:
 *
 *   TERN_RANK, TERN_SIZE, TERN_JOBID, TERN_KVS_ADDR, TERN_JOB_SECRET,
 *   TERN_LOCAL_RANK, TERN_LOCAL_SIZE, TERN_LOCAL_RANKS (the world ranks on
 *   the rank's host, in local-rank order), TERN_NODE_RANK (the host's index
 *   in the plan), TERN_NODE_MAP (the host index of every world rank, as
 *   runs "host*count" in rank order: "0*2,1*2,2*2" for 2 ranks on each of
 *   3 hosts; node-aware collectives read it), and the aliases tools look for: OMPI_COMM_WORLD_RANK,
 *   _SIZE, _LOCAL_RANK, _LOCAL_SIZE, _NODE_RANK (Open MPI's node rank is the
 *   rank among the processes on the node, so it equals the local rank),
 *   PMI_RANK, PMI_SIZE, MPI_LOCALRANKID and MPI_LOCALNRANKS (MPICH's).
 *
 * TERN_PGID is not in the list: the process that forks the rank knows the
 * process group and sets it, and a TERN_PGID in mpirun's own environment
 * (mpirun started by a rank of another job) is not forwarded.
 *
 * The caller owns the returned array and frees it with
 * tern_rank_env_free(); NULL means out of memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/launcher.h"
#include "tern/err.h"

extern char **environ;

struct envb {
    char **v;
    int n, cap;
    int oom;
};

/* Sets name (of length nlen) to value, replacing an earlier setting. */
static void env_set(struct envb *b, const char *name, size_t nlen, const char *value)
{
    if (b->oom)
        return;
    size_t vlen = strlen(value);
    char *s = malloc(nlen + vlen + 2);
    if (!s) {
        b->oom = 1;
        return;
    }
    memcpy(s, name, nlen);
    s[nlen] = '=';
    memcpy(s + nlen + 1, value, vlen + 1);
    for (int i = 0; i < b->n; i++) {
        if (strncmp(b->v[i], s, nlen + 1) == 0) {
            free(b->v[i]);
            b->v[i] = s;
            return;
        }
    }
    if (b->n + 2 > b->cap) {
        int cap = b->cap ? b->cap * 2 : 32;
        char **v = realloc(b->v, (size_t)cap * sizeof *v);
        if (!v) {
            free(s);
            b->oom = 1;
            return;
        }
        b->v = v;
        b->cap = cap;
    }
    b->v[b->n++] = s;
    b->v[b->n] = NULL;
}

static void env_int(struct envb *b, const char *name, int value)
{
    char buf[16];
    snprintf(buf, sizeof buf, "%d", value);
    env_set(b, name, strlen(name), buf);
}

/* Layers 1 and 2: mpirun's TERN_* variables and the -x settings. */
static void user_vars(struct envb *b, const struct tern_cli *cli)
{
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (eq && strncmp(*e, "TERN_", 5) == 0 && strncmp(*e, "TERN_PGID=", 10) != 0)
            env_set(b, *e, (size_t)(eq - *e), eq + 1);
    }
    for (int i = 0; cli && i < cli->n_env; i++) {
        const char *x = cli->env[i], *eq = strchr(x, '=');
        if (eq) {
            env_set(b, x, (size_t)(eq - x), eq + 1);
        } else {
            const char *v = getenv(x);
            if (v)
                env_set(b, x, strlen(x), v);
        }
    }
}

/* "3,4,5": the world ranks on host h in local-rank order. */
static char *rank_list(const struct tern_host *h)
{
    size_t cap = (size_t)h->nranks * 12 + 1, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (int i = 0; i < h->nranks; i++)
        len += (size_t)snprintf(s + len, cap - len, i ? ",%d" : "%d", h->ranks[i]);
    return s;
}

/* "0*2,1*2": the host index of every world rank, run-length encoded. */
static char *node_map(const struct tern_plan *p)
{
    size_t cap = (size_t)p->np * 24 + 1, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (int r = 0; r < p->np;) {
        int run = 1;
        while (r + run < p->np && p->host_of[r + run] == p->host_of[r])
            run++;
        len += (size_t)snprintf(s + len, cap - len, r ? ",%d*%d" : "%d*%d",
                                p->host_of[r], run);
        r += run;
    }
    return s;
}

/* Layer 3: the wire-up variables and their aliases. */
static void wireup_vars(struct envb *b, const struct tern_job *job, int rank)
{
    const struct tern_plan *p = &job->plan;
    int node = p->host_of[rank], lrank = p->local_rank[rank];
    const struct tern_host *h = &p->hl.hosts[node];
    char *list = rank_list(h), *map = node_map(p);
    if (!list || !map) {
        free(list);
        free(map);
        b->oom = 1;
        return;
    }
    env_int(b, "TERN_RANK", rank);
    env_int(b, "TERN_SIZE", job->size);
    env_int(b, "TERN_LOCAL_RANK", lrank);
    env_int(b, "TERN_LOCAL_SIZE", h->nranks);
    env_set(b, "TERN_LOCAL_RANKS", 16, list);
    env_int(b, "TERN_NODE_RANK", node);
    env_set(b, "TERN_NODE_MAP", 13, map);
    env_set(b, "TERN_JOBID", 10, job->jobid);
    env_set(b, "TERN_KVS_ADDR", 13, job->kvs_addr);
    env_set(b, "TERN_JOB_SECRET", 15, job->secret_hex);
    env_int(b, "OMPI_COMM_WORLD_RANK", rank);
    env_int(b, "OMPI_COMM_WORLD_SIZE", job->size);
    env_int(b, "OMPI_COMM_WORLD_LOCAL_RANK", lrank);
    env_int(b, "OMPI_COMM_WORLD_LOCAL_SIZE", h->nranks);
    env_int(b, "OMPI_COMM_WORLD_NODE_RANK", lrank);
    env_int(b, "PMI_RANK", rank);
    env_int(b, "PMI_SIZE", job->size);
    env_int(b, "MPI_LOCALRANKID", lrank);
    env_int(b, "MPI_LOCALNRANKS", h->nranks);
    free(list);
    free(map);
}

char **tern_rank_env(const struct tern_job *job, int rank)
{
    struct envb b = { NULL, 0, 0, 0 };
    if (rank < 0 || rank >= job->plan.np)
        return NULL;
    user_vars(&b, job->cli);
    wireup_vars(&b, job, rank);
    /* The array stays NULL-terminated after every addition. */
    if (b.oom) {
        tern_rank_env_free(b.v);
        return NULL;
    }
    return b.v;
}

void tern_rank_env_free(char **env)
{
    for (char **e = env; e && *e; e++)
        free(*e);
    free(env);
}
