/*
 * Verification helpers of the collective benchmarks (see coll_util.h):
 * pattern seeds, byte streams, reduction inputs and their expected sums,
 * the guard zone behind results, and error lines.  Every expected value is
 * computed on the checking rank from the size, the iteration and the ranks
 * involved, independently of the MPI under test.  Standard MPI and C only.
 */
#include "coll_util.h"

#include <stdarg.h>
#include <stdio.h>

#define MAX_ERROR_LINES 10            /* per rank; the count is always exact */
#define GOLDEN 0x9E3779B97F4A7C15ULL

void coll_error(struct coll *c, size_t size, long it, const char *fmt, ...)
{
    static int lines;                 /* error lines printed by this rank */
    char line[512];
    int n;
    va_list ap;

    if (lines++ >= MAX_ERROR_LINES)
        return;
    if (c->info->sizes)
        n = snprintf(line, sizeof line, "%s: verify: rank %d: size %zu, iteration %ld: ",
                     c->info->name, c->rank, size, it);
    else
        n = snprintf(line, sizeof line, "%s: verify: rank %d: iteration %ld: ",
                     c->info->name, c->rank, it);
    if (n < 0 || (size_t)n >= sizeof line)
        n = 0;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    /* One write per line, so the lines of different ranks do not mix. */
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDULL;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ULL;
    x ^= x >> 33;
    return x;
}

uint64_t coll_seed(size_t size, long it, int from, int to)
{
    return mix((uint64_t)size * 0x100000001B3ULL ^ (uint64_t)it * GOLDEN ^
               ((uint64_t)from + 1) * 0xC2B2AE3D27D4EB4FULL ^
               ((uint64_t)to + 2) * 0x165667B19E3779F9ULL);
}

/* Byte i of the stream is byte (i % 8) of word i / 8. */
static inline unsigned char pattern_byte(uint64_t seed, size_t i)
{
    return (unsigned char)((seed + (uint64_t)(i / 8) * GOLDEN) >> (8 * (i % 8)));
}

void coll_fill_bytes(void *buf, size_t len, uint64_t seed)
{
    unsigned char *p = buf;

    for (size_t i = 0; i < len; i++)
        p[i] = pattern_byte(seed, i);
}

void coll_check_bytes(struct coll *c, const void *buf, size_t len, uint64_t seed,
                      size_t size, long it, const char *what)
{
    const unsigned char *p = buf;
    long long wrong = 0;
    size_t first = 0;

    for (size_t i = 0; i < len; i++)
        if (p[i] != pattern_byte(seed, i) && wrong++ == 0)
            first = i;
    if (wrong) {
        coll_error(c, size, it, "%s: %lld byte(s) wrong, the first at offset %zu "
                   "is 0x%02x, expected 0x%02x", what, wrong, first, p[first],
                   pattern_byte(seed, first));
        c->errors += wrong;
    }
    c->checked += (long long)len;
}

float coll_value(size_t size, long it, int rank, size_t j)
{
    return (float)(mix(coll_seed(size, it, rank, -1) + j) & 0xff) + 1.0f;
}

void coll_fill_values(float *v, size_t count, size_t size, long it, int rank,
                      size_t first)
{
    for (size_t j = 0; j < count; j++)
        v[j] = coll_value(size, it, rank, first + j);
}

void coll_check_sums(struct coll *c, const float *got, size_t count, size_t size,
                     long it, size_t first, const char *what)
{
    coll_check_sums_upto(c, got, count, size, it, first, c->nranks - 1, what);
}

void coll_check_sums_upto(struct coll *c, const float *got, size_t count, size_t size,
                          long it, size_t first, int last, const char *what)
{
    long long wrong = 0;
    size_t bad = 0;
    float want_bad = 0.0f;

    for (size_t j = 0; j < count; j++) {
        float want = 0.0f;

        for (int r = 0; r <= last; r++)
            want += coll_value(size, it, r, first + j);
        if (got[j] != want && wrong++ == 0) {
            bad = j;
            want_bad = want;
        }
    }
    if (wrong) {
        coll_error(c, size, it, "%s: %lld element(s) wrong, the first at index %zu "
                   "is %g, expected %g", what, wrong, bad, (double)got[bad],
                   (double)want_bad);
        c->errors += wrong;
    }
    c->checked += (long long)(count * sizeof(float));
}

void coll_check_guard(struct coll *c, const void *buf, size_t len, size_t size,
                      long it, const char *what)
{
    const unsigned char *p = (const unsigned char *)buf + len;
    long long wrong = 0;

    for (size_t i = 0; i < COLL_GUARD; i++)
        if (p[i] != COLL_SENTINEL)
            wrong++;
    if (wrong) {
        coll_error(c, size, it, "%s: %lld byte(s) written past the end of the %zu-byte "
                   "result", what, wrong, len);
        c->errors += wrong;
    }
}
