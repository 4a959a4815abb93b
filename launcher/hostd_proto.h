/*
 * The protocol between mpirun and tern-hostd, spoken over the ssh channel
 * (mpirun writes hostd's stdin and reads its stdout).
 *
 * hostd first writes the 8 bytes TERN_HOSTD_MAGIC, so mpirun can skip what
 * a chatty login shell printed before hostd started (and name it). Then
 * every message is one frame of tern/wire.h (8-byte header: body length and
 * type). Integers in bodies are 32-bit big-endian; a string is its length
 * followed by its bytes (no NUL). The conversation:
 *
 *   mpirun -> hostd   JOB      the ranks of this host, argv, --wdir and the
 *                              timing knobs (tern_hostd_job below); it holds
 *                              the job secret inside the ranks' environment,
 *                              which is why it never travels on a command line
 *   hostd -> mpirun   READY    the preflight passed (program and working
 *                              directory found), or ERROR with one line
 *   mpirun -> hostd   START    fork the ranks (only after every host is READY,
 *                              so a failing host leaves no rank anywhere)
 *   hostd -> mpirun   STARTED  rank, pid (once per rank)
 *                     OUTPUT   rank, stream (1 stdout, 2 stderr), flags,
 *                              bytes: whole lines only, except the last
 *                              piece of a stream (flag TERN_HOSTD_OUT_LAST)
 *                              or a line longer than the line limit
 *                     EXIT     rank, wait status (as waitpid gives it)
 *                     DONE     every rank reaped and its output sent; hostd
 *                              exits right after
 *   mpirun -> hostd   SIGNAL   signal number for every rank's process group
 *                     STDIN    bytes for the stdin of the job's rank 0 (an
 *                              empty body closes it); hostd answers with
 *                              STDIN_ACK (bytes written) for flow control
 *   both ways         PING     keepalive; mpirun treats a hostd it hears
 *                              nothing from for the job's timeout as gone
 *
 * Before READY, hostd also connects to mpirun's store (the TERN_KVS_ADDR of
 * its ranks, so the ranks will reach it too) and sends TERN_HOSTD_KVS_WATCH;
 * that connection has TCP keepalive bounded by the job's timeout. When
 * hostd's stdin reaches EOF (mpirun exited, the ssh connection broke) or
 * the watch connection breaks (mpirun's host or the network is gone),
 * hostd kills every rank's process group
 * (SIGTERM, then SIGKILL after the grace period) and exits.
 *
 * Ownership: tern_hostd_job_decode() allocates every string of the job and
 * tern_hostd_job_free() releases them; the encoder allocates the body it
 * returns. Errors: 0, TERN_ENOMEM, or TERN_EPROTO for a malformed body.
 */
#ifndef TERN_LAUNCHER_HOSTD_PROTO_H
#define TERN_LAUNCHER_HOSTD_PROTO_H

#include <stddef.h>
#include <stdint.h>

/* Bumped whenever a message changes; hostd refuses another version. */
#define TERN_HOSTD_VERSION 1
/* hostd's first bytes on stdout. */
#define TERN_HOSTD_MAGIC "TERNHD01"
#define TERN_HOSTD_MAGIC_LEN 8

enum tern_hostd_msg {
    TERN_HOSTD_JOB = 101,
    TERN_HOSTD_START = 102,
    TERN_HOSTD_SIGNAL = 103,
    TERN_HOSTD_STDIN = 104,
    TERN_HOSTD_PING = 105,
    TERN_HOSTD_READY = 110,
    TERN_HOSTD_ERROR = 111,
    TERN_HOSTD_STARTED = 112,
    TERN_HOSTD_OUTPUT = 113,
    TERN_HOSTD_EXIT = 114,
    TERN_HOSTD_DONE = 115,
    TERN_HOSTD_STDIN_ACK = 116
};

/* Sent to mpirun's store (launcher/kvs.c) by tern-hostd after the job-secret
 * handshake, instead of a rank's HELLO: the connection then only tells
 * hostd, through TCP keepalive, that mpirun's host is still there (the
 * kernel answers even while mpirun is busy). Nothing else is sent on it. */
#define TERN_HOSTD_KVS_WATCH 120

/* OUTPUT flags. */
#define TERN_HOSTD_OUT_LAST 1u

/* Largest frame mpirun sends (JOB: every rank's environment). */
#define TERN_HOSTD_TO_HOSTD_MAX (64u << 20)
/* Largest frame hostd sends: one output piece plus its header fields. */
#define TERN_HOSTD_LINE_MAX (1u << 20)
#define TERN_HOSTD_FROM_HOSTD_MAX (TERN_HOSTD_LINE_MAX + 64)

struct tern_hostd_rank {
    int rank;          /* World rank. */
    int local_rank;    /* Index among this host's ranks. */
    int n_env;
    char **env;        /* "NAME=value" additions to hostd's environment. */
};

struct tern_hostd_job {
    int version;
    char *host;        /* The host's name as mpirun's messages give it. */
    char *wdir;        /* Working directory; "" for none. */
    int wdir_explicit; /* 1 if --wdir gave it (must exist); 0 if it is
                          mpirun's cwd (hostd falls back to $HOME). */
    int grace_ms;      /* SIGTERM -> SIGKILL delay. */
    int keepalive_ms;  /* PING interval. */
    int timeout_ms;    /* Silence after which the peer is gone. */
    int stdin_rank;    /* World rank whose stdin comes as STDIN, or -1. */
    int local_size;    /* Ranks on this host. */
    int argc;
    char **argv;       /* NULL-terminated. */
    int nranks;
    struct tern_hostd_rank *ranks;
};

/* Encodes a job into a malloc'ed body. */
int tern_hostd_job_encode(const struct tern_hostd_job *job, unsigned char **body,
                          size_t *len);
/* Decodes a body into *job (zeroed first); frees partial work on error. */
int tern_hostd_job_decode(const unsigned char *body, size_t len,
                          struct tern_hostd_job *job);
void tern_hostd_job_free(struct tern_hostd_job *job);

/* preflight.c, shared by mpirun and hostd: 0 if prog can be executed by
 * ranks starting in dir (NULL or "" for the current directory) with this
 * PATH, else TERN_EINVAL with one line in err (cause and fix). */
int tern_preflight_program(const char *dir, const char *prog, const char *path,
                           char *err, size_t errlen);

#endif
