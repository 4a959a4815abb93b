/*
 * Hosts and the mapping of ranks onto them.
 *
 * hostfile.c turns a hostfile and -H values into a struct tern_hostlist
 * (Open MPI "host slots=N max_slots=M port=P", MPICH "host:N", plain "host"
 * with repeats adding up, comments, CRLF, IPv6 in brackets). plan.c maps the
 * ranks onto those hosts (--map-by slot|node, --oversubscribe) and drops the
 * hosts that get no rank. rankenv.c builds the environment one rank starts
 * with, wherever it runs.
 *
 * Ownership: a plan owns its host list and arrays until tern_plan_free().
 * Errors: TERN_EINVAL with one line in err saying where (file:line:col or
 * the -H value), what and the accepted forms or the flag to use.
 */
#ifndef TERN_LAUNCHER_PLAN_H
#define TERN_LAUNCHER_PLAN_H

#include <stddef.h>

struct tern_cli;
struct tern_job;

struct tern_host {
    char *name;        /* As written, without IPv6 brackets. */
    int slots;         /* Slots given; 1 when the entry gives none. */
    int max_slots;     /* Hard limit, or 0 when not given. */
    int ssh_port;      /* port= in the hostfile; 0 for the default. */
    char *ssh_user;    /* user@ in the hostfile; NULL for mpirun's user. */
    int local;         /* 1 if the name denotes this machine (fork, no ssh). */
    int nranks;        /* Filled by the plan: ranks mapped to this host. */
    int *ranks;        /* Their world ranks, in local-rank order. */
};

struct tern_hostlist {
    struct tern_host *hosts; /* Distinct hosts in order of first mention. */
    int n;
};

/* Adds the entries of a hostfile. */
int tern_hostfile_read(const char *path, struct tern_hostlist *hl,
                       char *err, size_t errlen);
/* Adds the entries of one -H value ("a,b:2,[fe80::1]:4"). */
int tern_hostlist_add_spec(const char *spec, struct tern_hostlist *hl,
                           char *err, size_t errlen);
void tern_hostlist_free(struct tern_hostlist *hl);
/* 1 if name denotes this machine: localhost, a loopback address, our
 * hostname (short or full) or one of our interface addresses. */
int tern_hostfile_is_local(const char *name);

struct tern_plan {
    int np;
    struct tern_hostlist hl; /* Only the hosts that got ranks, in node order. */
    int *host_of;            /* World rank -> index in hl.hosts (node rank). */
    int *local_rank;         /* World rank -> index among its host's ranks. */
    int remote;              /* 1 if any host is not this machine. */
};

/* Maps cli->np ranks (or the slot total when -np is absent) onto the hosts
 * of -H and --hostfile, or onto this machine alone when neither is given. */
int tern_plan_make(const struct tern_cli *cli, struct tern_plan *plan,
                   char *err, size_t errlen);
void tern_plan_free(struct tern_plan *plan);

/* The environment additions for one rank, as a NULL-terminated array of
 * malloc'ed "NAME=value" strings: -x settings (a bare -x VAR takes mpirun's
 * value), the TERN_* wire-up variables (rank, size, local rank and size,
 * the local rank list, node rank, node map, job id, store address, job secret), and
 * the OMPI_COMM_WORLD_* / PMI_* aliases tools look for. */
char **tern_rank_env(const struct tern_job *job, int rank);
void tern_rank_env_free(char **env);

#endif
