/*
 * Shared helpers for Tern's point-to-point benchmarks.
 *
 * The benchmarks use only the standard MPI C API, so the same source builds
 * with Tern's mpicc, Open MPI's or MPICH's; benchmarks/compare.sh runs them
 * side by side.  Each benchmark describes itself in a `struct bench_info`
 * and then follows the same lifecycle:
 *
 *   bench_init()    MPI_Init, option parsing, the two-rank check, buffer
 *                   allocation and the header lines.  It returns 0 when the
 *                   program should stop (help, bad option, wrong rank count);
 *                   MPI is then already finalized and `b.exit_code` holds the
 *                   status to return from main().
 *   size loop       for (s = bench_size_first(&b); s != BENCH_SIZE_END;
 *                        s = bench_size_next(&b, s))
 *                   with bench_iters()/bench_warmup() giving the counts for
 *                   that size (they fall as the size grows, like OSU's).
 *   bench_fill()    before a send, and bench_check() after a receive; both do
 *                   nothing unless --verify was given.
 *   bench_report()  prints one result row (rank 0 only).
 *   bench_finish()  verification summary, frees the buffers, MPI_Finalize,
 *                   and returns the exit status (1 if any byte was wrong).
 *
 * The helpers own the buffers: slots of the largest size, one per message
 * of the window.  Under --verify every slot is distinct; in timing runs the
 * send slots share one buffer (allowed since MPI-3) and the receive slots are
 * distinct up to BENCH_BUF_CAP bytes in all, then reused round-robin.  Errors in
 * option parsing are reported by rank 0 only; every rank parses the same argv.
 */
#ifndef TERN_BENCH_UTIL_H
#define TERN_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

/* Returned by bench_size_next() after the last size. */
#define BENCH_SIZE_END SIZE_MAX

/* Messages in flight per iteration in the bandwidth tests (OSU's default). */
#define BENCH_WINDOW 64

/* Receive buffers of a timing run stop being distinct above this total. */
#define BENCH_BUF_CAP ((size_t)64 << 20)

/* The largest message size accepted by -m (a count must fit in an int). */
#define BENCH_MAX_SIZE ((size_t)1 << 30)

struct bench_info {
    const char *name;        /* short name: CSV "test" field and messages */
    const char *title;       /* header line, e.g. "Tern Latency Test" */
    const char *column;      /* value column, e.g. "Latency (us)" */
    size_t default_min;      /* first size when -m gives none (0 or 1) */
    size_t default_max;      /* last size when -m gives none */
    int iters;               /* timed iterations for small messages */
    int warmup;              /* untimed iterations for small messages */
    size_t large;            /* above this size the counts fall as 1/size */
    int min_iters;           /* the counts never fall below this */
    int window;              /* buffer slots needed (1, or BENCH_WINDOW) */
};

struct bench {
    const struct bench_info *info;
    int rank;                /* 0 or 1 */
    int peer;                /* the other rank */
    size_t min_size;
    size_t max_size;
    int iters;               /* base iteration count (-i or the default) */
    int warmup;              /* base warm-up count (-x or the default) */
    int csv;                 /* --csv: "test,size,value" rows only */
    int verify;              /* --verify: fill and check every byte */
    int exit_code;           /* what main() returns when bench_init() says stop */
    long long errors;        /* wrong bytes or sizes seen by this rank */
    long long checked;       /* bytes checked by this rank */
    size_t slot_size;        /* bytes per buffer slot */
    int send_slots;          /* distinct send buffers (slots wrap around) */
    int recv_slots;          /* distinct receive buffers */
    unsigned char *sbuf;     /* window send slots */
    unsigned char *rbuf;     /* window receive slots */
};

/* "4096", "4K", "1M", "1G" (a B suffix allowed), at most max; returns 0 and
 * sets *out, or -1. Shared with the collective benchmarks (coll_util.c). */
int bench_parse_size(const char *s, size_t max, size_t *out);

int bench_init(struct bench *b, const struct bench_info *info,
               int *argc, char ***argv);
int bench_finish(struct bench *b);

size_t bench_size_first(const struct bench *b);
size_t bench_size_next(const struct bench *b, size_t size);
int bench_iters(const struct bench *b, size_t size);
/* `base` for sizes up to `large`, falling as 1/size above it, never below
 * `floor` (nor above base); shared with coll_util.c. */
int bench_scaled(int base, size_t size, size_t large, int floor);
int bench_warmup(const struct bench *b, size_t size);

void *bench_sbuf(const struct bench *b, int slot);
void *bench_rbuf(const struct bench *b, int slot);

/* Message number `seq` of one size from `rank`: fill / check its pattern. */
void bench_fill(struct bench *b, void *buf, size_t size, long seq);
void bench_check(struct bench *b, const void *buf, size_t size, long seq,
                 int src_rank, const MPI_Status *status);

void bench_report(const struct bench *b, size_t size, double value);

#endif /* TERN_BENCH_UTIL_H */
