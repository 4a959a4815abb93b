/*
 * Shared harness of Tern's collective benchmarks (coll_<name>.c): the
 * timing side in coll_util.c, the verification helpers in coll_verify.c.
 *
 * The benchmarks use only the standard MPI C API, so the same source builds
 * with Tern's mpicc, Open MPI's or MPICH's; benchmarks/compare.sh runs them
 * side by side.  They follow OSU's osu_<collective> in what they print: a
 * header naming the test, then per size the average, minimum and maximum over
 * the ranks of each rank's average time per call, in microseconds.
 *
 * A benchmark describes itself in a `struct coll_info`: its default sizes,
 * iteration counts, how large its buffers must be, and three callbacks.
 * `run` makes one call of the collective and returns its MPI error code;
 * `fill` and `check` prepare the send buffers and check the results of one
 * call under --verify (they are never called otherwise).  Most benchmarks
 * are then just `return coll_main(&info, argc, argv);`.  The overlap
 * benchmark (coll_iallreduce.c) writes its own size loop from the parts:
 *
 *   coll_init()     MPI_Init, MPI_ERRORS_RETURN on MPI_COMM_WORLD, option
 *                   parsing, buffers, the header.  It returns 0 when the
 *                   program should stop (help, bad option); MPI is then
 *                   finalized and `c.exit_code` holds main()'s status.
 *   coll_time()     one measurement: warm-up calls, a barrier, then a timed
 *                   loop of calls; returns this rank's average seconds per call.
 *                   The warm-up also tells how long a call takes (the slowest
 *                   rank's average, agreed with MPI_Allreduce outside the
 *                   timing): the timed loop is cut to about `-T` seconds, to
 *                   no fewer than `min_iters` calls, so a slow MPI or a loaded
 *                   machine cannot stretch a run to minutes.
 *   coll_stats()    average, minimum and maximum of a value over the ranks
 *                   (MPI_Reduce to rank 0, outside the timed loop).
 *   coll_row()      prints one result row (rank 0 only).
 *   coll_finish()   verification summary, frees buffers, MPI_Finalize, and
 *                   returns the exit status.
 *
 * Sizes are bytes; what a size means for each collective is in its file's
 * opening comment (the whole vector for allreduce, the block per rank for
 * allgather, ...).  Every MPI call's result is checked: a failure prints the
 * call and the MPI error string and aborts the job, with exit status
 * COLL_EXIT_UNSUPPORTED when the MPI reports MPI_ERR_UNSUPPORTED_OPERATION
 * (compare.sh shows such a benchmark as "n/a").
 *
 * Verification (--verify) fills every send buffer with a pattern derived from
 * the size, the iteration, the sending rank and (for personalized
 * collectives) the receiving rank, presets receive buffers with a sentinel,
 * and after every call checks every result byte or element against values
 * computed independently on the checking rank, plus a guard zone behind the
 * result that must keep the sentinel.  Reductions use MPI_FLOAT / MPI_SUM on
 * small integer values, whose sums are exact in any order.  Rooted
 * collectives rotate the root over the ranks under --verify (root 0 in
 * timing runs, like OSU).
 */
#ifndef TERN_COLL_UTIL_H
#define TERN_COLL_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

/* At most this many sizes per run (-m 1:1G gives 31). */
#define COLL_MAX_SIZES 64

/* The largest size accepted by -m / -s (counts must fit in an int). */
#define COLL_MAX_SIZE ((size_t)1 << 30)

/* Bytes behind each result that --verify checks for the sentinel, and the
 * sentinel byte that presets receive buffers. */
#define COLL_GUARD 64
#define COLL_SENTINEL 0xA5

/* Default -T: seconds one size's timed loop may take, roughly. */
#define COLL_TIME_LIMIT 1.0

/* Exit status when the MPI does not implement a call the benchmark needs. */
#define COLL_EXIT_UNSUPPORTED 3

/* Buffer sizes, in multiples of the benchmark's size. */
enum coll_blocks {
    COLL_NONE = 0,           /* no buffer */
    COLL_ONE = 1,            /* `size` bytes */
    COLL_PER_RANK = 2        /* `size` bytes per rank of the job */
};

struct coll;

typedef int (*coll_run_fn)(struct coll *c, size_t size, long it);
typedef void (*coll_step_fn)(struct coll *c, size_t size, long it);

struct coll_info {
    const char *name;        /* short name: CSV "test" field and messages */
    const char *title;       /* header line, e.g. "Tern Allreduce Latency Test" */
    const char *call;        /* the MPI function measured, e.g. "MPI_Allreduce" */
    const char *detail;      /* header line: datatype, op, what a size is */
    const char *sizes;       /* default size list ("8,64K,1M"); NULL: no sizes */
    size_t elem;             /* every size is a multiple of this (1, or 4) */
    enum coll_blocks sblocks;  /* send buffer */
    enum coll_blocks rblocks;  /* receive buffer */
    int iters;               /* timed iterations for small sizes */
    int warmup;              /* untimed iterations for small sizes */
    size_t large;            /* above this size the counts fall as 1/size */
    int min_iters;           /* the timed count never falls below this */
    int overlap;             /* accepts -t (calls to MPI_Test during compute) */
    coll_run_fn run;         /* one call of the collective */
    coll_step_fn fill;       /* --verify: fill send buffers before `run` */
    coll_step_fn check;      /* --verify: check results after `run` */
};

struct coll {
    const struct coll_info *info;
    int rank;
    int nranks;
    int root;                /* root of this call: 0, or rotating under --verify */
    size_t sizes[COLL_MAX_SIZES];
    int nsizes;
    int iters;               /* base iteration count (-i or the default) */
    int warmup;              /* base warm-up count (-x or the default) */
    int ntest;               /* -t: MPI_Test calls during compute (overlap) */
    double time_limit;       /* -T: seconds per timed loop, roughly; 0: none */
    int last_iters;          /* timed calls of the last coll_time() */
    long last_calls;         /* all calls of the last coll_time(), warm-up too */
    int csv;                 /* --csv: CSV rows only */
    int verify;              /* --verify: fill and check every call */
    int barrier;             /* --barrier: time calls one by one, barrier between */
    int exit_code;           /* what main() returns when coll_init() says stop */
    long long errors;        /* wrong bytes or elements seen by this rank */
    long long checked;       /* bytes checked by this rank (barrier: iterations) */
    unsigned char *sbuf;     /* send buffer (NULL if COLL_NONE) */
    unsigned char *rbuf;     /* receive buffer (NULL if COLL_NONE) */
    size_t rbuf_len;         /* bytes of rbuf, guard zone included */
};

int coll_init(struct coll *c, const struct coll_info *info, int *argc, char ***argv);
int coll_finish(struct coll *c);
int coll_main(const struct coll_info *info, int argc, char **argv);

int coll_iters(const struct coll *c, size_t size);
int coll_warmup(const struct coll *c, size_t size);
double coll_time(struct coll *c, size_t size, coll_run_fn run);
void coll_stats(const struct coll *c, double local, double out[3]);
void coll_row(const struct coll *c, size_t size, const double *vals, int n, int iters);

/* Checks an MPI return code; on failure reports `fn` and aborts the job. */
void coll_ok(const struct coll *c, int rc, const char *fn);

/* Bytes in a buffer of `blocks` for one size. */
size_t coll_bytes(const struct coll *c, enum coll_blocks blocks, size_t size);

/* Verification patterns.  A byte stream is named by a seed from the size,
 * iteration, sender and receiver (-1 when the data goes to every rank). */
uint64_t coll_seed(size_t size, long it, int from, int to);
void coll_fill_bytes(void *buf, size_t len, uint64_t seed);
void coll_check_bytes(struct coll *c, const void *buf, size_t len, uint64_t seed,
                      size_t size, long it, const char *what);

/* Reduction inputs: element j of rank r's vector, an integer in 1..256. */
float coll_value(size_t size, long it, int rank, size_t j);
void coll_fill_values(float *v, size_t count, size_t size, long it, int rank,
                      size_t first);
/* Checks got[0..count) == sum over ranks of coll_value(.., first + j);
 * the _upto form sums over ranks 0 .. last only (a prefix, for Scan). */
void coll_check_sums(struct coll *c, const float *got, size_t count, size_t size,
                     long it, size_t first, const char *what);
void coll_check_sums_upto(struct coll *c, const float *got, size_t count, size_t size,
                          long it, size_t first, int last, const char *what);

/* The receive buffer must still hold the sentinel in [len, len + COLL_GUARD). */
void coll_check_guard(struct coll *c, const void *buf, size_t len, size_t size,
                      long it, const char *what);

/* Reports one verification error (at most a few lines per rank are printed). */
void coll_error(struct coll *c, size_t size, long it, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif /* TERN_COLL_UTIL_H */
