/*
 * mpirun (and mpiexec, the same program): main().
 *
 * Parses the command line, maps the ranks onto the hosts (plan.c; job.c
 * starts the remote ones through launch_ssh.c), makes the job's identity
 * (job id, secret), prints the one-line notices (more ranks than cores)
 * and hands over to job.c, whose exit code becomes ours.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/bind.h"
#include "launcher/launcher.h"
#include "tern/log.h"
#include "tern/shmname.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1.0"
#endif

static int core_count(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* Ranks the plan puts on this machine. */
static int local_rank_count(const struct tern_plan *plan)
{
    int n = 0;
    for (int i = 0; i < plan->hl.n; i++)
        if (plan->hl.hosts[i].local)
            n += plan->hl.hosts[i].nranks;
    return n;
}

/* Job id: pid and 64 random bits, safe in file names ("4711-9f3a..."). */
static int make_identity(struct tern_job *job)
{
    unsigned char rnd[8];
    char hex[17];
    if (tern_auth_random(rnd, sizeof rnd) || tern_auth_secret_new(job->secret)) {
        tern_mpirun_msg("cannot get random bytes for the job secret: %s",
                        strerror(errno));
        return -1;
    }
    tern_auth_hex(rnd, sizeof rnd, hex);
    snprintf(job->jobid, sizeof job->jobid, "%d-%s", (int)getpid(), hex);
    tern_auth_hex(job->secret, sizeof job->secret, job->secret_hex);
    if (gethostname(job->hostname, sizeof job->hostname) != 0)
        strcpy(job->hostname, "localhost");
    job->hostname[sizeof job->hostname - 1] = '\0';
    return 0;
}

/* Network options become the TERN_* variables that mpirun's own listeners
 * and every rank read (the rank environment forwards TERN_* to remote
 * hosts). */
static void export_network_options(const struct tern_cli *cli)
{
    if (cli->iface)
        setenv("TERN_TCP_IF", cli->iface, 1);
    if (cli->port_range)
        setenv("TERN_PORT_RANGE", cli->port_range, 1);
    if (cli->report_transports)
        setenv("TERN_REPORT_TRANSPORTS", "1", 1);
}

int main(int argc, char **argv)
{
    struct tern_cli cli;
    char err[512];
    tern_log_set_prefix("mpirun");
    if (tern_cli_parse(argc, argv, &cli, err, sizeof err)) {
        tern_mpirun_msg("%s", err);
        return TERN_MPIRUN_FAIL_EXIT;
    }
    if (cli.help) {
        tern_cli_usage(stdout);
        return 0;
    }
    if (cli.version) {
        printf("mpirun (Tern) %s\n", PACKAGE_VERSION);
        return 0;
    }
    if (cli.verbose > tern_verbose)
        tern_verbose = cli.verbose;
    if (tern_bind_export(&cli, err, sizeof err)) {
        tern_mpirun_msg("%s", err);
        return TERN_MPIRUN_FAIL_EXIT;
    }
    export_network_options(&cli);
    struct tern_job job;
    memset(&job, 0, sizeof job);
    job.cli = &cli;
    if (tern_plan_make(&cli, &job.plan, err, sizeof err)) {
        tern_mpirun_msg("%s", err);
        return TERN_MPIRUN_FAIL_EXIT;
    }
    job.size = job.plan.np;
    job.ranks = calloc((size_t)job.size, sizeof *job.ranks);
    if (!job.ranks || make_identity(&job))
        return TERN_MPIRUN_FAIL_EXIT;
    for (int i = 0; i < job.size; i++) {
        job.ranks[i].rank = i;
        job.ranks[i].out.ev.fd = job.ranks[i].err.ev.fd = -1;
    }
    if (tern_bind_precheck(local_rank_count(&job.plan), job.hostname, err,
                           sizeof err)) {
        tern_mpirun_msg("%s", err);
        return TERN_MPIRUN_FAIL_EXIT;
    }
    int cores = core_count(), here = local_rank_count(&job.plan);
    if (here > cores && !cli.oversubscribe)
        tern_mpirun_msg("note: %d ranks on %d cores; ranks will share cores "
                        "(--oversubscribe silences this)", here, cores);
    if (geteuid() == 0)
        TERN_LOG(1, "running as root");
    int code = tern_job_run(&job);
    /* Ranks killed before they unlinked their segment leave it behind. */
    int stale = tern_shmname_remove_all(job.jobid);
    if (stale)
        TERN_LOG(1, "removed %d shared-memory segment(s) the job left behind", stale);
    free(job.ranks);
    free(job.stdin_buf);
    tern_plan_free(&job.plan);
    tern_cli_free(&cli);
    return code;
}
