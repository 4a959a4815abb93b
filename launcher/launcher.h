/*
 * Internal interfaces of mpirun.
 *
 * mpirun is one process around one epoll loop (only the ssh setup of a
 * multi-host job runs in worker threads, before any rank starts). cli.c turns
 * argv into a struct tern_cli (pure, unit-tested); hostfile.c, plan.c and
 * rankenv.c (plan.h) read the hosts, map the ranks onto them and build each
 * rank's environment; launch_local.c forks the ranks on this machine,
 * each in its own process group; iof.c moves their stdout/stderr to ours
 * line by line and our stdin to rank 0; launch_ssh.c, ssh_auth.c and
 * ssh_run.c (ssh.h) start the other hosts' ranks through tern-hostd over
 * ssh; kvs.c serves the wire-up store; job.c owns the loop, the signals,
 * the deadlines, the exit status and the teardown; msg.c prints mpirun's
 * one-line messages; mpirun.c is main().
 *
 * Ownership: the struct tern_job owns everything (ranks, fds, buffers) and
 * lives until exit. Every fd in the loop is a struct tern_ev embedded in the
 * object that owns the fd; its callback gets the job and the event mask.
 * Teardown: the first failure (rank death, MPI_Abort, signal, --timeout)
 * sets the exit code and prints its one line; later ones are silent.
 */
#ifndef TERN_LAUNCHER_H
#define TERN_LAUNCHER_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "tern/auth.h"
#include "tern/boot.h"
#include "launcher/plan.h"

/* Exit code of mpirun when --timeout expires (as coreutils timeout). */
#define TERN_MPIRUN_TIMEOUT_EXIT 124
/* Exit code when a rank exits 0 without calling MPI_Finalize, or on an
 * mpirun usage or start-up error. */
#define TERN_MPIRUN_FAIL_EXIT 1

/* ---- cli.c ---- */
struct tern_cli {
    int np;               /* Ranks to start; 0 if not given. */
    int tag_output;       /* --tag-output: prefix lines with "[rank] ". */
    int timeout;          /* --timeout seconds; 0 for none. */
    const char *wdir;     /* --wdir; NULL for mpirun's cwd. */
    int oversubscribe;    /* --oversubscribe given. */
    int map_by_node;      /* --map-by node (1) or slot (0, the default). */
    const char *bind_to;  /* --bind-to policy name (checked); NULL if absent. */
    int report_bindings;  /* --report-bindings given. */
    int verbose;          /* Count of -v. */
    int help, version;
    char **env;           /* -x entries, "VAR" or "VAR=value". */
    int n_env;
    char **hosts;         /* -H values as given ("a,b:2"), one per -H. */
    int n_hosts;
    const char *hostfile; /* --hostfile / --machinefile. */
    const char *ssh_key;  /* -i FILE: private key for ssh; NULL if absent. */
    int ssh_accept_new;   /* --ssh-accept-new-hostkey given. */
    const char *iface;    /* --iface: TERN_TCP_IF for mpirun and the ranks. */
    const char *port_range; /* --port-range: TERN_PORT_RANGE likewise. */
    int report_transports;  /* --report-transports. */
    char **argv;          /* The program and its arguments (into argv). */
    int argc;
};

/* Parses mpirun's arguments. On error returns TERN_EINVAL and writes a
 * one-line message naming the problem and the fix into err. */
int tern_cli_parse(int argc, char **argv, struct tern_cli *cli,
                   char *err, size_t errlen);
void tern_cli_free(struct tern_cli *cli);
void tern_cli_usage(FILE *out);

/* ---- job.c: the event loop ---- */
struct tern_job;
struct tern_ev;
typedef void (*tern_ev_cb)(struct tern_job *job, struct tern_ev *ev, uint32_t events);
struct tern_ev {
    int fd;
    tern_ev_cb cb;
    void *arg;
};
int tern_loop_add(struct tern_job *job, struct tern_ev *ev, uint32_t events);
int tern_loop_mod(struct tern_job *job, struct tern_ev *ev, uint32_t events);
void tern_loop_del(struct tern_job *job, struct tern_ev *ev);

/* ---- iof.c ---- */
struct tern_iof_stream {
    struct tern_ev ev;
    int rank;
    int out_fd;           /* 1 or 2: where its lines go. */
    char *buf;            /* Pending partial line. */
    size_t len, cap;
};

/* ---- the job ---- */
struct tern_rank {
    int rank;
    pid_t pid;            /* The process mpirun forked (group leader). */
    int running;
    int status;           /* wait status once exited. */
    int connected;        /* Authenticated to the store and said HELLO. */
    int fenced;           /* Waiting in the current fence. */
    int finalized;        /* Sent FINALIZE. */
    pid_t remote_pid;     /* Its pid on a remote host (pid stays 0 there). */
    struct tern_iof_stream out, err;
};

struct tern_kvs;
struct tern_ssh;

struct tern_job {
    const struct tern_cli *cli;
    int size;
    struct tern_rank *ranks;
    int running;          /* Ranks not yet reaped. */
    int open_streams;     /* stdout/stderr pipes not yet at EOF. */
    char jobid[64];
    unsigned char secret[TERN_AUTH_SECRET_LEN];
    char secret_hex[TERN_AUTH_SECRET_HEX];
    char kvs_addr[64];
    char hostname[TERN_HOSTNAME_MAX];
    int epfd;
    struct tern_ev sig_ev;   /* signalfd */
    struct tern_ev stdin_ev; /* mpirun's stdin, while forwarded */
    int stdin_pipe;          /* Write end of rank 0's stdin, or -1. */
    char *stdin_buf;         /* Bytes read from stdin not yet written. */
    size_t stdin_len;
    struct tern_kvs *kvs;
    struct tern_plan plan;   /* Hosts and which ranks run where. */
    struct tern_ssh *ssh;    /* Remote hosts (launch_ssh.c), or NULL. */
    int ending;              /* A failure or signal started the teardown. */
    int exit_code;
    int kill_stage;          /* 0 none, 1 SIGTERM/SIGINT sent, 2 SIGKILL sent. */
    long long timeout_at;    /* --timeout deadline, or 0. */
    long long kill_at;       /* When to send SIGKILL, or 0. */
    long long drain_at;      /* Give up waiting for pipe EOF, or 0. */
    long grace_ms;
};

/* ---- msg.c ---- */
/* Prints "mpirun: <message>" as one line on stderr. */
void tern_mpirun_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tern_mpirun_vmsg(const char *fmt, va_list ap);

/* Starts the teardown with this exit code and one-line reason (NULL for
 * none); a no-op after the first call. */
void tern_job_fail(struct tern_job *job, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Called when a rank's process has been reaped. */
void tern_job_rank_exited(struct tern_job *job, struct tern_rank *r, int status);
/* Fails the job if a fence can never complete because a rank is gone. */
void tern_job_check_fence(struct tern_job *job);
/* Where a rank runs (its plan host, or this host) and its pid there, for
 * messages. */
const char *tern_job_rank_host(const struct tern_job *job, int rank);
int tern_job_rank_pid(const struct tern_rank *r);
int tern_job_run(struct tern_job *job);

/* ---- launch_local.c ---- */
int tern_launch_local(struct tern_job *job);
/* Sends sig to the process groups of all running ranks. */
void tern_launch_signal(struct tern_job *job, int sig);
/* Reaps exited children and reports them to the job. */
void tern_launch_reap(struct tern_job *job);

/* ---- iof.c ---- */
/* Registers a rank's stdout/stderr pipes (read ends, nonblocking). */
int tern_iof_add_rank(struct tern_job *job, struct tern_rank *r, int out, int err);
/* 1 if rank 0 should inherit mpirun's stdin directly (a regular file or a
 * non-terminal device), 0 if it needs a forwarding pipe, -1 if stdin is
 * closed. */
int tern_iof_stdin_inherit(void);
/* Starts forwarding mpirun's stdin to fd (rank 0's stdin pipe). */
int tern_iof_stdin(struct tern_job *job, int fd);
/* Flushes partial lines and closes every stream (at exit). */
void tern_iof_finish(struct tern_job *job);
/* Writes a remote rank's output (whole lines, or a stream's last piece
 * when last) to out_fd, tagged as a local rank's would be. */
void tern_iof_remote(struct tern_job *job, int rank, int out_fd, const char *data,
                     size_t len, int last);

/* ---- launch_ssh.c, ssh_auth.c, ssh_run.c: remote hosts (see ssh.h) ---- */
/* Connects to every remote host of the plan, starts tern-hostd there and
 * has it check the job; prints one line per failing host and returns
 * nonzero if any failed (or a signal cancelled). 0 at once for a job on
 * this host alone. */
int tern_ssh_start(struct tern_job *job);
/* Sends START to every host and moves the connections into the loop. */
int tern_ssh_run(struct tern_job *job);
/* Forwards sig to the ranks' process groups on every host. */
void tern_ssh_signal(struct tern_job *job, int sig);
/* Handles keepalives and lost hosts; returns the next deadline, or 0. */
long long tern_ssh_deadline(struct tern_job *job, long long now);
/* Closes every connection; hostd kills whatever still runs there. */
void tern_ssh_stop(struct tern_job *job);

/* ---- kvs.c ---- */
/* Listens on 127.0.0.1, or when the plan has remote hosts on the address
 * that reaches them (tern/net.h), and writes "host:port" into
 * job->kvs_addr. */
int tern_kvs_start(struct tern_job *job);
/* Processes whatever the rank's connection has buffered (before judging
 * its exit). */
void tern_kvs_drain_rank(struct tern_job *job, int rank);
/* Earliest handshake deadline, or 0. Drops connections past it. */
long long tern_kvs_deadline(struct tern_job *job, long long now);
void tern_kvs_stop(struct tern_job *job);

#endif
