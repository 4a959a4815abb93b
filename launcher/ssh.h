/*
 * mpirun's ssh side: one libssh2 session per remote host, running
 * tern-hostd there (protocol in launcher/hostd_proto.h).
 *
 * Lifecycle: tern_ssh_start() (launch_ssh.c) reads the settings, builds one
 * struct tern_ssh_host per remote host of the plan and sets them all up
 * before any rank starts: worker threads (at most `parallel` at once) each
 * take a host and, in blocking libssh2 calls bounded by timeouts, connect
 * (connect_ms, one retry), handshake, check the host key and authenticate
 * (ssh_auth.c), exec tern-hostd by absolute path, send the JOB and wait for
 * READY. The main thread meanwhile watches the signalfd, so Ctrl-C cancels
 * the setup (it shuts the sockets down under the workers). Then, if every
 * host is READY, job.c starts the local ranks and tern_ssh_run()
 * (ssh_run.c) switches the sessions to nonblocking, puts their sockets into
 * mpirun's epoll loop and sends START; from then on the loop moves frames:
 * output to iof, exits to tern_job_rank_exited(), signals and keepalives
 * out. tern_ssh_stop() closes what is left at exit.
 *
 * Ownership: the struct tern_ssh hangs off the job and owns the hosts,
 * their sessions, sockets and buffers. During the setup each worker owns
 * the host it took; the main thread reads a host only after its worker
 * reported it done.
 *
 * Errors: a failing host gets one line in h->err (the cause and the fix,
 * without the "host NAME (ADDR): " prefix, which the main thread adds when
 * it prints the lines in host order). In the run phase a broken connection
 * ends the job with one line naming the host.
 */
#ifndef TERN_LAUNCHER_SSH_H
#define TERN_LAUNCHER_SSH_H

#include <libssh2.h>
#include <pthread.h>

#include "launcher/launcher.h"
#include "tern/wire.h"

struct tern_ssh;

struct tern_ssh_host {
    struct tern_ssh *ssh;
    int index;                /* In job->plan.hl.hosts. */
    const char *label;        /* The host as the plan names it. */
    char user[128];
    char host[256];           /* Name or address to connect to. */
    int port;
    char where[320];          /* "h2 (10.0.0.2:22)" for messages. */
    int sock;                 /* -1 until connected. */
    LIBSSH2_SESSION *sess;
    LIBSSH2_CHANNEL *ch;
    unsigned char *job_msg;   /* Encoded JOB body. */
    size_t job_len;
    char err[1024];           /* Setup failure, or "". */
    char note[1024];          /* Setup notice (a host key added), or "". */
    int ok;                   /* hostd answered READY. */
    /* Run phase. */
    struct tern_ev ev;
    struct tern_job *job;
    struct tern_wire_writer out;
    unsigned char *in;        /* Bytes from hostd not yet parsed. */
    size_t in_len, in_cap;
    char errline[2048];       /* hostd's stderr, up to the next newline. */
    size_t errline_len;
    int running;              /* Ranks there not yet reported exited. */
    int done;                 /* DONE received. */
    int open;                 /* In the loop and not yet closed. */
    uint32_t events;          /* What the loop watches now. */
    long long last_heard, last_sent, give_up_at;
};

struct tern_ssh {
    struct tern_job *job;
    int n;
    struct tern_ssh_host *hosts;
    /* Settings (launch_ssh.c reads them once). */
    int port;                 /* TERN_SSH_PORT, default 22. */
    const char *key;          /* -i / TERN_SSH_KEY, or NULL. */
    char hostd[4096];         /* Absolute path of tern-hostd. */
    int accept_new;           /* --ssh-accept-new-hostkey. */
    int connect_ms;           /* Per connection attempt. */
    int op_ms;                /* Per blocking ssh operation during setup. */
    int keepalive_ms, timeout_ms, parallel;
    char home[4096];          /* For ~/.ssh. */
    char user[128];           /* Default login name. */
    /* Setup workers. */
    pthread_mutex_t lock;
    int next;                 /* Next host a worker takes. */
    int cancel;               /* Set by the main thread on a signal. */
    int done_fd;              /* eventfd: one count per finished host. */
    /* Forwarding mpirun's stdin to a remote rank 0. */
    struct tern_ev stdin_ev;
    struct tern_ssh_host *stdin_host;
    int stdin_mode;           /* 0 none, 1 read when allowed, 2 epoll. */
    int stdin_watched;
    size_t stdin_unacked;
};

/* ssh_connect.c (called in a worker thread) */
/* Resolves the host and connects to it, setting h->sock and h->where; 0,
 * or a TERN_E* code with h->err saying why (refused, timeout, no name). */
int tern_ssh_connect(struct tern_ssh_host *h);
/* 1 once mpirun has asked the workers to stop. */
int tern_ssh_cancelled(struct tern_ssh *s);

/* ssh_auth.c (called in a worker thread) */
/* Prefers the host key types known_hosts holds for the host. */
void tern_ssh_hostkey_prefs(struct tern_ssh_host *h);
/* Checks the server's key against known_hosts (adding an unknown one with
 * --ssh-accept-new-hostkey). 0, or TERN_EAUTH with h->err set. */
int tern_ssh_check_hostkey(struct tern_ssh_host *h);
/* ssh-agent, then -i / TERN_SSH_KEY or ~/.ssh/id_{ed25519,ecdsa,rsa}.
 * 0, or TERN_EAUTH with h->err naming what was tried. */
int tern_ssh_auth(struct tern_ssh_host *h);
/* libssh2's last error message for the session. */
const char *tern_ssh_errmsg(struct tern_ssh_host *h);

/* ssh_run.c */
/* Closes a host's channel and session; hard when the connection is bad. */
void tern_ssh_close_host(struct tern_ssh_host *h, int hard);

#endif
