/*
 * Shared helpers for Tern's point-to-point benchmarks: option parsing, the
 * size loop and its iteration counts, buffers, verification patterns and
 * output.  See bench_util.h for the lifecycle.  Standard MPI and C only.
 */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L       /* posix_memalign */
#endif

#include "bench_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE 4096
#define MAX_ERROR_LINES 10            /* per rank; the count is always exact */
#define GOLDEN 0x9E3779B97F4A7C15ULL

static void usage(const struct bench_info *info, FILE *out)
{
    fprintf(out,
            "Usage: mpirun -np 2 %s [options]\n"
            "%s: point-to-point benchmark between exactly two ranks.\n"
            "  -m, --message-size [MIN:]MAX  sizes to run, powers of two from MIN to MAX\n"
            "                                (suffixes K, M, G; default %zu:%zu)\n"
            "  -i, --iterations N            timed iterations for small messages (default %d);\n"
            "                                above %zu bytes they fall as 1/size, to at least %d\n"
            "  -x, --warmup N                untimed iterations for small messages (default %d)\n"
            "      --csv                     print only \"test,size,value\" rows\n"
            "      --verify                  fill every message with a pattern and check every\n"
            "                                received byte; exit 1 on any error (a tenth of the\n"
            "                                default iterations, no warm-up, unless -i/-x given)\n"
            "  -h, --help                    this help\n",
            info->name, info->title, info->default_min, info->default_max,
            info->iters, info->large, info->min_iters, info->warmup);
}

int bench_parse_size(const char *s, size_t max, size_t *out)
{
    char *end;
    unsigned long long v;

    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    default: break;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end != '\0' || v > max)
        return -1;
    *out = (size_t)v;
    return 0;
}

static int parse_size(const char *s, size_t *out)
{
    return bench_parse_size(s, BENCH_MAX_SIZE, out);
}

/* "MAX", "MIN:MAX", "MIN:", ":MAX". */
static int parse_range(struct bench *b, const char *arg)
{
    const char *colon = strchr(arg, ':');
    char min_s[64];

    if (!colon)
        return parse_size(arg, &b->max_size);
    if ((size_t)(colon - arg) >= sizeof min_s)
        return -1;
    memcpy(min_s, arg, (size_t)(colon - arg));
    min_s[colon - arg] = '\0';
    if (min_s[0] && parse_size(min_s, &b->min_size))
        return -1;
    if (colon[1] && parse_size(colon + 1, &b->max_size))
        return -1;
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

/* Returns 0 to run, 1 to stop with exit 0 (help), 2 on a usage error. */
static int parse_args(struct bench *b, int argc, char **argv)
{
    int iters_given = 0, warmup_given = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = (i + 1 < argc) ? argv[i + 1] : NULL;
        const char *bad = NULL;

        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (b->rank == 0)
                usage(b->info, stdout);
            return 1;
        } else if (!strcmp(a, "--csv")) {
            b->csv = 1;
        } else if (!strcmp(a, "--verify")) {
            b->verify = 1;
        } else if (!strcmp(a, "-m") || !strcmp(a, "--message-size")) {
            if (!val || parse_range(b, val))
                bad = "-m needs [MIN:]MAX, sizes up to 1G, e.g. -m 1:4M";
            i++;
        } else if (!strcmp(a, "-i") || !strcmp(a, "--iterations")) {
            if (!val || parse_count(val, &b->iters) || b->iters < 1)
                bad = "-i needs a positive count";
            iters_given = 1;
            i++;
        } else if (!strcmp(a, "-x") || !strcmp(a, "--warmup")) {
            if (!val || parse_count(val, &b->warmup))
                bad = "-x needs a count >= 0";
            warmup_given = 1;
            i++;
        } else {
            bad = "unknown option";
        }
        if (bad) {
            if (b->rank == 0) {
                fprintf(stderr, "%s: %s: %s\n", b->info->name, a, bad);
                usage(b->info, stderr);
            }
            return 2;
        }
    }
    /* Verification is about correctness, not timing: a tenth of the default
     * iterations and no warm-up, unless -i / -x were given. */
    if (b->verify && !iters_given)
        b->iters = b->info->iters / 10;
    if (b->verify && !warmup_given)
        b->warmup = 0;
    if (b->min_size > b->max_size) {
        if (b->rank == 0)
            fprintf(stderr, "%s: -m: MIN (%zu) is larger than MAX (%zu)\n",
                    b->info->name, b->min_size, b->max_size);
        return 2;
    }
    return 0;
}

static void print_header(const struct bench *b)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;

    if (b->rank != 0)
        return;
    if (b->csv) {
        printf("test,size,value\n");
        fflush(stdout);
        return;
    }
    MPI_Get_library_version(version, &len);
    version[strcspn(version, "\r\n")] = '\0';
    for (char *c = version; *c; c++)
        if (*c == '\t')
            *c = ' ';
    printf("# %s\n", b->info->title);
    printf("# Library: %s\n", version);
    printf("# Iterations: %d, warm-up %d (falling as 1/size above %zu B)",
           b->iters, b->warmup, b->info->large);
    if (b->info->window > 1)
        printf(", window %d", b->info->window);
    printf("\n");
    if (b->verify)
        printf("# Verification: on (timings include filling and checking)\n");
    printf("# %-8s%18s\n", "Size", b->info->column);
    fflush(stdout);
}

static int alloc_buffers(struct bench *b)
{
    size_t slot = b->max_size ? b->max_size : 1;
    size_t ssize, rsize;
    void *s = NULL, *r = NULL;
    int window = b->info->window;

    slot = (slot + PAGE - 1) / PAGE * PAGE;
    /* Pending sends may share a buffer (MPI-3), so timing runs use one; a
     * verifying run gives each message of the window its own pattern.  Each
     * pending receive gets its own buffer up to BENCH_BUF_CAP bytes in all;
     * above that, timing runs reuse slots (as OSU reuses one buffer), since
     * first-touching hundreds of MB costs seconds on some machines. */
    b->send_slots = b->verify ? window : 1;
    b->recv_slots = window;
    if (!b->verify && slot * (size_t)window > BENCH_BUF_CAP) {
        b->recv_slots = (int)(BENCH_BUF_CAP / slot);
        if (b->recv_slots < 1)
            b->recv_slots = 1;
    }
    ssize = slot * (size_t)b->send_slots;
    rsize = slot * (size_t)b->recv_slots;
    if (posix_memalign(&s, PAGE, ssize) || posix_memalign(&r, PAGE, rsize)) {
        free(s);
        fprintf(stderr, "%s: rank %d: cannot allocate %zu + %zu bytes of buffers\n",
                b->info->name, b->rank, ssize, rsize);
        return -1;
    }
    /* Touch every page now, so no page fault lands in a timed loop.  A
     * verifying run skips it: its timings do not count, and pages a rank
     * never uses (rank 0's receive slots in bw) then cost nothing. */
    if (!b->verify) {
        memset(s, 'a', ssize);
        memset(r, 'b', rsize);
    }
    b->slot_size = slot;
    b->sbuf = s;
    b->rbuf = r;
    return 0;
}

int bench_init(struct bench *b, const struct bench_info *info,
               int *argc, char ***argv)
{
    int nranks, rc;

    memset(b, 0, sizeof *b);
    b->info = info;
    b->min_size = info->default_min;
    b->max_size = info->default_max;
    b->iters = info->iters;
    b->warmup = info->warmup;

    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &b->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    b->peer = 1 - b->rank;

    rc = parse_args(b, *argc, *argv);
    if (rc == 0 && nranks != 2) {
        if (b->rank == 0)
            fprintf(stderr,
                    "%s: this benchmark needs exactly 2 ranks, but it was started "
                    "with %d; run it as: mpirun -np 2 %s\n",
                    info->name, nranks, (*argv)[0]);
        rc = 2;
    }
    if (rc == 0 && alloc_buffers(b))
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (rc != 0) {
        MPI_Finalize();
        b->exit_code = rc == 1 ? 0 : rc;
        return 0;
    }
    print_header(b);
    return 1;
}

size_t bench_size_first(const struct bench *b)
{
    return b->min_size;
}

size_t bench_size_next(const struct bench *b, size_t size)
{
    size_t next = 1;

    /* The next power of two above `size`, so every run shares the same rows. */
    while (next <= size)
        next <<= 1;
    return next > b->max_size ? BENCH_SIZE_END : next;
}

int bench_scaled(int base, size_t size, size_t large, int floor)
{
    double n;

    if (size <= large || base == 0)
        return base;
    n = (double)base * (double)large / (double)size;
    if (floor > base)
        floor = base;
    return n < floor ? floor : (int)n;
}

int bench_iters(const struct bench *b, size_t size)
{
    return bench_scaled(b->iters, size, b->info->large,
                        b->verify ? 1 : b->info->min_iters);
}

int bench_warmup(const struct bench *b, size_t size)
{
    return bench_scaled(b->warmup, size, b->info->large, 1);
}

void *bench_sbuf(const struct bench *b, int slot)
{
    return b->sbuf + (size_t)(slot % b->send_slots) * b->slot_size;
}

void *bench_rbuf(const struct bench *b, int slot)
{
    return b->rbuf + (size_t)(slot % b->recv_slots) * b->slot_size;
}

/* A well-mixed 64-bit seed from the size, message number and sender. */
static uint64_t pattern_seed(size_t size, long seq, int rank)
{
    uint64_t x = (uint64_t)size * 0x100000001B3ULL ^ (uint64_t)seq * GOLDEN ^
                 ((uint64_t)rank + 1) * 0xC2B2AE3D27D4EB4FULL;

    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDULL;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ULL;
    x ^= x >> 33;
    return x;
}

/* Word k of the pattern; byte i of the message is byte (i % 8) of word i / 8. */
static inline uint64_t pattern_word(uint64_t seed, size_t k)
{
    return seed + (uint64_t)k * GOLDEN;
}

static inline unsigned char pattern_byte(uint64_t seed, size_t i)
{
    return (unsigned char)(pattern_word(seed, i / 8) >> (8 * (i % 8)));
}

void bench_fill(struct bench *b, void *buf, size_t size, long seq)
{
    unsigned char *p = buf;
    uint64_t seed;
    size_t k, words = size / 8;

    if (!b->verify)
        return;
    seed = pattern_seed(size, seq, b->rank);
    for (k = 0; k < words; k++) {
        uint64_t w = pattern_word(seed, k);
        for (int j = 0; j < 8; j++)
            p[8 * k + j] = (unsigned char)(w >> (8 * j));
    }
    for (size_t i = words * 8; i < size; i++)
        p[i] = pattern_byte(seed, i);
}

/* Counts wrong bytes in p[0..size) against the pattern; *first gets the first. */
static long long count_wrong(const unsigned char *p, size_t size, uint64_t seed,
                             size_t *first)
{
    long long wrong = 0;
    size_t k, words = size / 8;

    for (k = 0; k < words; k++) {
        uint64_t w = pattern_word(seed, k);
        for (int j = 0; j < 8; j++) {
            if (p[8 * k + j] != (unsigned char)(w >> (8 * j)) && wrong++ == 0)
                *first = 8 * k + (size_t)j;
        }
    }
    for (size_t i = words * 8; i < size; i++) {
        if (p[i] != pattern_byte(seed, i) && wrong++ == 0)
            *first = i;
    }
    return wrong;
}

void bench_check(struct bench *b, const void *buf, size_t size, long seq,
                 int src_rank, const MPI_Status *status)
{
    static int lines;                 /* error lines printed by this rank */
    const unsigned char *p = buf;
    uint64_t seed;
    long long wrong;
    size_t first = 0;
    int count = -1;

    if (!b->verify)
        return;
    MPI_Get_count(status, MPI_BYTE, &count);
    if (count < 0 || (size_t)count != size) {
        if (lines++ < MAX_ERROR_LINES)
            fprintf(stderr, "%s: verify: rank %d: size %zu, message %ld from rank %d: "
                    "received %d bytes, expected %zu\n",
                    b->info->name, b->rank, size, seq, src_rank, count, size);
        b->errors++;
    }
    seed = pattern_seed(size, seq, src_rank);
    wrong = count_wrong(p, size, seed, &first);
    if (wrong) {
        if (lines++ < MAX_ERROR_LINES)
            fprintf(stderr, "%s: verify: rank %d: size %zu, message %ld from rank %d: "
                    "%lld byte(s) wrong, the first at offset %zu is 0x%02x, expected 0x%02x\n",
                    b->info->name, b->rank, size, seq, src_rank, wrong, first,
                    p[first], pattern_byte(seed, first));
        b->errors += wrong;
    }
    b->checked += (long long)size;
}

void bench_report(const struct bench *b, size_t size, double value)
{
    if (b->rank != 0)
        return;
    if (b->csv)
        printf("%s,%zu,%.4f\n", b->info->name, size, value);
    else
        printf("%-10zu%18.2f\n", size, value);
    fflush(stdout);
}

int bench_finish(struct bench *b)
{
    long long local[2] = { b->errors, b->checked }, peer[2] = { 0, 0 };
    int rc = 0;

    /* Both ranks learn the job's totals (a two-rank sum by exchange). */
    MPI_Sendrecv(local, 2, MPI_LONG_LONG, 1 - b->rank, 99, peer, 2, MPI_LONG_LONG,
                 1 - b->rank, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    long long total[2] = { local[0] + peer[0], local[1] + peer[1] };
    if (b->verify) {
        rc = total[0] ? 1 : 0;
        if (b->rank == 0) {
            FILE *out = b->csv ? stderr : stdout;
            if (rc)
                fprintf(out, "# Verification: FAILED, %lld errors in %lld bytes checked\n",
                        total[0], total[1]);
            else
                fprintf(out, "# Verification: passed, %lld bytes checked\n", total[1]);
            fflush(out);
        }
    }
    free(b->sbuf);
    free(b->rbuf);
    b->sbuf = b->rbuf = NULL;
    MPI_Finalize();
    return rc;
}
