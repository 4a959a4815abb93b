/*
 * Shared harness of Tern's collective benchmarks: option parsing, the size
 * list and its iteration counts, buffers, the timed loop, statistics over
 * the ranks, output, error checks and verification patterns.  See
 * coll_util.h for the lifecycle.  Standard MPI and C only.
 */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L       /* posix_memalign */
#endif

#include "bench_util.h"
#include "coll_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE 4096

static void usage(const struct coll_info *info, FILE *out)
{
    fprintf(out,
            "Usage: mpirun -np N %s [options]\n"
            "%s: %s over all ranks of MPI_COMM_WORLD.\n",
            info->name, info->title, info->call);
    if (info->sizes)
        fprintf(out,
                "  -m, --message-size [MIN:]MAX  sizes to run, powers of two from MIN to MAX\n"
                "                                (suffixes K, M, G)\n"
                "  -s, --sizes LIST              sizes to run, comma-separated (default %s);\n"
                "                                every size a multiple of %zu\n",
                info->sizes, info->elem);
    fprintf(out, "  -i, --iterations N            timed iterations (default %d)", info->iters);
    if (info->sizes)
        fprintf(out, ";\n                                above %zu bytes they fall as 1/size, to at least %d",
                info->large, info->min_iters);
    fprintf(out,
            "\n  -x, --warmup N                untimed iterations (default %d)\n"
            "  -T, --time-limit SEC          cut each timed loop to about SEC seconds, judged\n"
            "                                from the warm-up, to at least %d iterations\n"
            "                                (default %g; 0: never cut)\n",
            info->warmup, info->min_iters, COLL_TIME_LIMIT);
    if (info->overlap)
        fprintf(out,
                "  -t, --num-test N              MPI_Test calls spread over each compute phase\n"
                "                                (default 0: pure computation, as OSU)\n");
    fprintf(out,
            "      --barrier                 time each call alone, with an MPI_Barrier after it\n"
            "                                (as OSU's collective benchmarks do; default:\n"
            "                                a loop of back-to-back calls)\n"
            "      --csv                     print only CSV rows (times in us)\n"
            "      --verify                  fill every send buffer with a pattern and check\n"
            "                                every result; exit 1 on any error (a tenth of\n"
            "                                the default iterations, no warm-up, unless\n"
            "                                -i/-x given)\n"
            "  -h, --help                    this help\n");
}

/* "4096", "4K", "1M", "1G"; returns 0 and sets *out, or -1. */
static int parse_size(const char *s, size_t *out)
{
    return bench_parse_size(s, COLL_MAX_SIZE, out);
}

/* "8,64K,1M": the sizes in the order given. */
static int parse_list(struct coll *c, const char *arg)
{
    char buf[1024], *tok, *save = NULL;

    if (strlen(arg) >= sizeof buf)
        return -1;
    strcpy(buf, arg);
    c->nsizes = 0;
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        size_t v;

        if (c->nsizes == COLL_MAX_SIZES || parse_size(tok, &v) || v == 0 ||
            v % c->info->elem)
            return -1;
        c->sizes[c->nsizes++] = v;
    }
    return c->nsizes ? 0 : -1;
}

/* "MAX", "MIN:MAX", "MIN:", ":MAX": the powers of two from MIN to MAX that
 * are multiples of the element size (MIN itself first if it is one). */
static int parse_range(struct coll *c, const char *arg)
{
    const char *colon = strchr(arg, ':');
    size_t min = c->info->elem, max = (size_t)1 << 20, s;
    char part[64];

    if (!colon) {
        if (parse_size(arg, &max))
            return -1;
    } else {
        if ((size_t)(colon - arg) >= sizeof part)
            return -1;
        memcpy(part, arg, (size_t)(colon - arg));
        part[colon - arg] = '\0';
        if ((part[0] && parse_size(part, &min)) ||
            (colon[1] && parse_size(colon + 1, &max)))
            return -1;
    }
    if (min > max)
        return -1;
    c->nsizes = 0;
    if (min % c->info->elem == 0 && min > 0)
        c->sizes[c->nsizes++] = min;
    for (s = 1; s <= max; s <<= 1)
        if (s > min && s % c->info->elem == 0)
            c->sizes[c->nsizes++] = s;
    return c->nsizes ? 0 : -1;
}

static int parse_seconds(const char *s, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end != '\0' || !(v >= 0.0) || v > 1e6)
        return -1;
    *out = v;
    return 0;
}

static int parse_count(const char *s, int *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < 0 || v > 1000000000L)
        return -1;
    *out = (int)v;
    return 0;
}

/* One option at argv[*i]; returns NULL, or what was wrong with it. */
static const char *parse_one(struct coll *c, char **argv, int argc, int *i,
                             int *iters_given, int *warmup_given)
{
    const char *a = argv[*i], *val = (*i + 1 < argc) ? argv[*i + 1] : NULL;

    if (!strcmp(a, "--csv")) {
        c->csv = 1;
        return NULL;
    }
    if (!strcmp(a, "--verify")) {
        c->verify = 1;
        return NULL;
    }
    if (!strcmp(a, "--barrier")) {
        c->barrier = 1;
        return NULL;
    }
    (*i)++;
    if (c->info->sizes && (!strcmp(a, "-m") || !strcmp(a, "--message-size")))
        return !val || parse_range(c, val) ? "-m needs [MIN:]MAX, sizes up to 1G, e.g. -m 4:1M" : NULL;
    if (c->info->sizes && (!strcmp(a, "-s") || !strcmp(a, "--sizes")))
        return !val || parse_list(c, val)
            ? "-s needs a comma-separated list of sizes, each a multiple of the element size, e.g. -s 8,64K,1M"
            : NULL;
    if (!strcmp(a, "-i") || !strcmp(a, "--iterations")) {
        *iters_given = 1;
        return !val || parse_count(val, &c->iters) || c->iters < 1 ? "-i needs a positive count" : NULL;
    }
    if (!strcmp(a, "-x") || !strcmp(a, "--warmup")) {
        *warmup_given = 1;
        return !val || parse_count(val, &c->warmup) ? "-x needs a count >= 0" : NULL;
    }
    if (!strcmp(a, "-T") || !strcmp(a, "--time-limit"))
        return !val || parse_seconds(val, &c->time_limit) ? "-T needs seconds >= 0, e.g. -T 0.5" : NULL;
    if (c->info->overlap && (!strcmp(a, "-t") || !strcmp(a, "--num-test")))
        return !val || parse_count(val, &c->ntest) ? "-t needs a count >= 0" : NULL;
    return "unknown option";
}

/* Returns 0 to run, 1 to stop with exit 0 (help), 2 on a usage error. */
static int parse_args(struct coll *c, int argc, char **argv)
{
    int iters_given = 0, warmup_given = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *bad;

        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (c->rank == 0)
                usage(c->info, stdout);
            return 1;
        }
        bad = parse_one(c, argv, argc, &i, &iters_given, &warmup_given);
        if (bad) {
            if (c->rank == 0) {
                fprintf(stderr, "%s: %s: %s\n", c->info->name, a, bad);
                usage(c->info, stderr);
            }
            return 2;
        }
    }
    /* Verification is about correctness, not timing: a tenth of the default
     * iterations and no warm-up, unless -i / -x were given. */
    if (c->verify && !iters_given)
        c->iters = c->info->iters / 10 > 0 ? c->info->iters / 10 : 1;
    if (c->verify && !warmup_given)
        c->warmup = 0;
    return 0;
}

size_t coll_bytes(const struct coll *c, enum coll_blocks blocks, size_t size)
{
    switch (blocks) {
    case COLL_ONE: return size;
    case COLL_PER_RANK: return size * (size_t)c->nranks;
    default: return 0;
    }
}

/* A page-aligned buffer of `len` bytes (at least one page), touched. */
static unsigned char *alloc_buf(const struct coll *c, size_t len)
{
    void *p = NULL;

    len = (len + PAGE - 1) / PAGE * PAGE;
    if (len == 0)
        len = PAGE;
    if (posix_memalign(&p, PAGE, len)) {
        fprintf(stderr, "%s: rank %d: cannot allocate %zu bytes of buffers\n",
                c->info->name, c->rank, len);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* Touch every page now, so no page fault lands in a timed loop. */
    memset(p, COLL_SENTINEL, len);
    return p;
}

static void alloc_buffers(struct coll *c)
{
    size_t max = 0;

    for (int k = 0; k < c->nsizes; k++)
        if (c->sizes[k] > max)
            max = c->sizes[k];
    if (c->info->sblocks != COLL_NONE)
        c->sbuf = alloc_buf(c, coll_bytes(c, c->info->sblocks, max));
    if (c->info->rblocks != COLL_NONE) {
        c->rbuf_len = coll_bytes(c, c->info->rblocks, max) + COLL_GUARD;
        c->rbuf = alloc_buf(c, c->rbuf_len);
    }
}

static void print_header(const struct coll *c)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;

    if (c->rank != 0)
        return;
    if (c->csv) {
        printf("test,size,avg_us,min_us,max_us%s\n",
               c->info->overlap ? ",compute_us,pure_us,overlap_pct" : "");
        fflush(stdout);
        return;
    }
    MPI_Get_library_version(version, &len);
    version[strcspn(version, "\r\n")] = '\0';
    for (char *p = version; *p; p++)
        if (*p == '\t')
            *p = ' ';
    printf("# %s\n", c->info->title);
    printf("# Library: %s\n", version);
    printf("# Ranks: %d; %s%s%s\n", c->nranks, c->info->call,
           c->info->detail ? "; " : "", c->info->detail ? c->info->detail : "");
    printf("# Iterations: %d, warm-up %d", c->iters, c->warmup);
    if (c->info->sizes)
        printf(" (falling as 1/size above %zu B, to at least %d)",
               c->info->large, c->info->min_iters);
    if (c->time_limit > 0.0)
        printf("; timed loops cut to about %g s", c->time_limit);
    printf("\n");
    if (c->info->overlap)
        printf("# MPI_Test calls per compute phase: %d\n", c->ntest);
    if (c->verify)
        printf("# Verification: on (timings include filling and checking; roots rotate)\n");
    if (c->barrier)
        printf("# Timing: each call alone, MPI_Barrier after it (not timed)\n");
    printf("# %-8s%18s%18s%18s", "Size", "Avg Latency(us)", "Min Latency(us)",
           "Max Latency(us)");
    if (c->info->overlap)
        printf("%18s%18s%18s", "Compute(us)", "Pure Comm.(us)", "Overlap(%)");
    printf("%12s\n", "Iterations");
    fflush(stdout);
}

int coll_init(struct coll *c, const struct coll_info *info, int *argc, char ***argv)
{
    int rc;

    memset(c, 0, sizeof *c);
    c->info = info;
    c->iters = info->iters;
    c->warmup = info->warmup;
    c->time_limit = COLL_TIME_LIMIT;

    MPI_Init(argc, argv);
    /* Errors come back as codes, so an unimplemented call is reported by
     * name (and as "n/a" by compare.sh) instead of aborting somewhere.
     * MPI-4 sends errors not tied to a communicator to MPI_COMM_SELF's
     * handler, so that one returns too. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c->nranks);

    if (info->sizes) {
        rc = parse_list(c, info->sizes);
        if (rc) {
            fprintf(stderr, "%s: bad default size list '%s'\n", info->name, info->sizes);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    } else {
        c->nsizes = 1;                /* one row, size 0 (barrier) */
    }
    rc = parse_args(c, *argc, *argv);
    if (rc != 0) {
        MPI_Finalize();
        c->exit_code = rc == 1 ? 0 : rc;
        return 0;
    }
    alloc_buffers(c);
    print_header(c);
    return 1;
}

int coll_iters(const struct coll *c, size_t size)
{
    return bench_scaled(c->iters, size, c->info->large,
                        c->verify ? 1 : c->info->min_iters);
}

int coll_warmup(const struct coll *c, size_t size)
{
    return bench_scaled(c->warmup, size, c->info->large, 1);
}

void coll_ok(const struct coll *c, int rc, const char *fn)
{
    char msg[MPI_MAX_ERROR_STRING];
    int cls = MPI_ERR_UNKNOWN, len = 0;

    if (rc == MPI_SUCCESS)
        return;
    MPI_Error_class(rc, &cls);
    if (cls == MPI_ERR_UNSUPPORTED_OPERATION) {
        fprintf(stderr, "%s: rank %d: %s is not supported by this MPI library "
                "(MPI_ERR_UNSUPPORTED_OPERATION)\n", c->info->name, c->rank, fn);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, COLL_EXIT_UNSUPPORTED);
    }
    msg[0] = '\0';
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "%s: rank %d: %s failed: %s (error class %d)\n",
            c->info->name, c->rank, fn, msg, cls);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* One call; under --verify with its buffers prepared and its results checked. */
static void step(struct coll *c, size_t size, long it, coll_run_fn run)
{
    c->root = c->verify ? (int)(it % c->nranks) : 0;
    if (c->verify) {
        if (c->rbuf)
            memset(c->rbuf, COLL_SENTINEL, coll_bytes(c, c->info->rblocks, size) + COLL_GUARD);
        if (c->info->fill)
            c->info->fill(c, size, it);
    }
    coll_ok(c, run(c, size, it), c->info->call);
    if (c->verify && c->info->check)
        c->info->check(c, size, it);
}

/* The warm-up calls of one size, in doubling chunks.  With a time limit the
 * ranks agree after each chunk on the slowest one's time, stop warming up
 * after a quarter of the limit, and learn the seconds per call. */
static double warm_up(struct coll *c, size_t size, coll_run_fn run, long *it)
{
    int skip = coll_warmup(c, size), done = 0, chunk = 1;
    double spent = 0.0;

    while (done < skip) {
        double start = MPI_Wtime(), local, slowest;

        if (chunk > skip - done)
            chunk = skip - done;
        for (int k = 0; k < chunk; k++) {
            step(c, size, (*it)++, run);
            /* Timed as the loop will run, so that the fit to -T holds. */
            if (c->barrier)
                coll_ok(c, MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        }
        done += chunk;
        chunk *= 2;
        if (c->time_limit <= 0.0)
            continue;
        local = MPI_Wtime() - start;
        coll_ok(c, MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD),
                "MPI_Allreduce");
        spent += slowest;
        if (spent > c->time_limit / 4)
            break;
    }
    return done && c->time_limit > 0.0 ? spent / done : 0.0;
}

double coll_time(struct coll *c, size_t size, coll_run_fn run)
{
    int iters = coll_iters(c, size);
    double start, per_call;
    long it = 0, first;

    per_call = warm_up(c, size, run, &it);
    if (per_call > 0.0 && per_call * iters > c->time_limit) {
        int floor = c->info->min_iters < iters ? c->info->min_iters : iters;
        double fit = c->time_limit / per_call;

        iters = fit < floor ? floor : (int)fit;
    }
    coll_ok(c, MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    first = it;
    c->last_iters = iters;
    if (c->barrier) {
        /* Only the calls are timed; each starts with the ranks about as
         * close together as the barrier leaves them. */
        double spent = 0.0;

        for (; it < first + iters; it++) {
            start = MPI_Wtime();
            step(c, size, it, run);
            spent += MPI_Wtime() - start;
            coll_ok(c, MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        }
        c->last_calls = it;
        return spent / iters;
    }
    start = MPI_Wtime();
    for (; it < first + iters; it++)
        step(c, size, it, run);
    c->last_calls = it;
    return (MPI_Wtime() - start) / iters;
}

void coll_stats(const struct coll *c, double local, double out[3])
{
    double sum = 0.0;

    out[0] = out[1] = out[2] = local;
    coll_ok(c, MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD),
            "MPI_Reduce");
    coll_ok(c, MPI_Reduce(&local, &out[1], 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD),
            "MPI_Reduce");
    coll_ok(c, MPI_Reduce(&local, &out[2], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD),
            "MPI_Reduce");
    out[0] = sum / c->nranks;
}

void coll_row(const struct coll *c, size_t size, const double *vals, int n, int iters)
{
    if (c->rank != 0)
        return;
    if (c->csv) {
        printf("%s,%zu", c->info->name, size);
        for (int k = 0; k < n; k++)
            printf(",%.4f", vals[k]);
        printf("\n");
    } else {
        printf("%-10zu", size);
        for (int k = 0; k < n; k++)
            printf("%18.2f", vals[k]);
        printf("%12d\n", iters);
    }
    fflush(stdout);
}

int coll_finish(struct coll *c)
{
    long long local[2] = { c->errors, c->checked }, total[2] = { 0, 0 };
    int rc = 0;

    coll_ok(c, MPI_Allreduce(local, total, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD),
            "MPI_Allreduce");
    if (c->verify) {
        rc = total[0] ? 1 : 0;
        if (c->rank == 0) {
            FILE *out = c->csv ? stderr : stdout;

            /* Without sizes (barrier) a check is one iteration's ordering. */
            const char *unit = c->info->sizes ? "bytes" : "barrier orderings";

            if (rc)
                fprintf(out, "# Verification: FAILED, %lld errors in %lld %s checked\n",
                        total[0], total[1], unit);
            else
                fprintf(out, "# Verification: passed, %lld %s checked\n", total[1], unit);
            fflush(out);
        }
    }
    free(c->sbuf);
    free(c->rbuf);
    c->sbuf = c->rbuf = NULL;
    MPI_Finalize();
    return rc;
}

int coll_main(const struct coll_info *info, int argc, char **argv)
{
    struct coll c;

    if (!coll_init(&c, info, &argc, &argv))
        return c.exit_code;
    for (int k = 0; k < c.nsizes; k++) {
        size_t size = c.sizes[k];
        double stats[3];

        coll_stats(&c, coll_time(&c, size, info->run) * 1e6, stats);
        coll_row(&c, size, stats, 3, c.last_iters);
    }
    return coll_finish(&c);
}
