/*
 * tern-hostd's internals: the per-host agent mpirun starts over ssh.
 *
 * hostd.c reads the job from stdin, runs the preflight, answers READY or
 * ERROR, waits for START and then runs one single-threaded epoll loop over
 * a signalfd, its stdin (frames from mpirun), its stdout (frames to mpirun,
 * queued in a nonblocking writer), the ranks' pipes and the watch
 * connection to mpirun's store (hostd_watch.c). hostd_rank.c forks
 * the ranks (each in its own process group, with PR_SET_PDEATHSIG), turns
 * their output into OUTPUT frames of whole lines, reaps them, forwards
 * signals and feeds rank 0's stdin.
 *
 * Ownership: one struct hostd lives for the whole process and owns every fd
 * and buffer. Errors: functions return 0 or a negative TERN_E* code; what
 * mpirun must see goes out as an ERROR frame or on stderr (which the ssh
 * channel carries to mpirun), one line each.
 */
#ifndef TERN_LAUNCHER_HOSTD_H
#define TERN_LAUNCHER_HOSTD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "launcher/hostd_proto.h"
#include "tern/wire.h"

/* What an epoll entry refers to. */
enum hostd_ev_kind { HEV_SIGNAL, HEV_FROM_MPIRUN, HEV_TO_MPIRUN, HEV_STREAM, HEV_STDIN,
                     HEV_WATCH };

struct hostd_ev {
    int fd;
    enum hostd_ev_kind kind;
    void *arg;
};

struct hostd_stream {
    struct hostd_ev ev;
    int rank;             /* World rank. */
    int stream;           /* 1 stdout, 2 stderr. */
    char *buf;            /* Pending partial line. */
    size_t len, cap;
};

struct hostd_rank {
    int rank, local_rank;
    char **env;
    pid_t pid;
    int running;
    struct hostd_stream out, err;
};

struct hostd {
    struct tern_hostd_job job;
    struct hostd_rank *ranks;
    int nranks;
    int epfd;
    struct hostd_ev sig_ev, in_ev, out_ev, stdin_ev;
    struct hostd_ev watch_ev;     /* Connection to mpirun's store, or -1. */
    struct tern_wire_reader rd;   /* Frames from mpirun (fd 0). */
    struct tern_wire_writer wr;   /* Frames to mpirun (fd 1). */
    int in_eof;                   /* mpirun is gone (EOF, or the watch broke). */
    int out_dead;                 /* Writing to mpirun failed. */
    int out_waiting;              /* fd 1 is watched for EPOLLOUT. */
    int paused;                   /* Rank pipes unwatched: writer is full. */
    int running;                  /* Ranks not yet reaped. */
    int open_streams;             /* Rank pipes not yet at EOF. */
    int kill_stage;               /* 0, 1 SIGTERM sent, 2 SIGKILL sent. */
    long long last_sent, kill_at, drain_at;
    /* Rank 0's stdin, when it runs here and mpirun forwards its stdin. */
    int stdin_fd;
    unsigned char *stdin_buf;
    size_t stdin_len;
    int stdin_closing;            /* Close once the buffer is written. */
};

/* hostd.c */
/* Prints "tern-hostd (host): message" on stderr, which mpirun relays. */
void tern_hostd_msg(const struct hostd *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Queues a frame to mpirun and writes what fd 1 takes. */
void tern_hostd_send(struct hostd *d, uint32_t type, const void *body, size_t len);
/* Writes queued frames; watches fd 1 while some remain. */
void tern_hostd_flush(struct hostd *d);
int tern_hostd_watch(struct hostd *d, struct hostd_ev *ev, uint32_t events);

/* hostd_watch.c */
/* Connects to mpirun's store and says WATCH (nothing to do without one).
 * 0, or an error with one line in err. */
int tern_hostd_watch_open(struct hostd *d, char *err, size_t errlen);

/* hostd_rank.c */
/* Forks every rank; sends STARTED for each. */
int tern_hostd_spawn(struct hostd *d);
/* Reads a rank pipe and sends its complete lines. */
void tern_hostd_stream_read(struct hostd *d, struct hostd_stream *s);
/* Reaps exited ranks and sends EXIT for each. */
void tern_hostd_reap(struct hostd *d);
/* Sends sig to the process group of every running rank. */
void tern_hostd_signal_all(struct hostd *d, int sig);
/* Stops or resumes reading the rank pipes (output flow control). */
void tern_hostd_pause(struct hostd *d, int pause);
/* Rank 0's stdin: queue bytes (len 0: close after the queue) and write. */
void tern_hostd_stdin_data(struct hostd *d, const unsigned char *p, size_t len);
void tern_hostd_stdin_writable(struct hostd *d);

#endif
