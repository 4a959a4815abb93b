/*
 * tt.h: tiny helpers shared by the MPI test programs in tests/mpi/.
 *
 * The programs use the standard MPI C API only, so the same sources build
 * with Tern's mpi.h and with Open MPI's or MPICH's mpicc. Nothing here uses
 * a collective: the programs synchronise with point-to-point messages only,
 * so they can run before Tern has collectives.
 *
 * Conventions every program follows:
 *  - tt_init() initialises MPI and remembers the program name, rank and size.
 *  - Every MPI call whose result matters is checked; a failure prints one line
 *    "FAIL <name> rank R/S (file:line): what, expected X, got Y" on stderr
 *    and aborts the whole job with MPI_Abort(MPI_COMM_WORLD, 1).
 *  - tt_finish() gathers a "done" token from every rank at rank 0, finalises
 *    MPI, and rank 0 prints "OK <name>" on stdout. The line is printed only
 *    when every rank got that far, so it means the whole job passed.
 *  - Tags from TT_TAG_SYNC upwards are reserved for these helpers; the tests
 *    use tags below 30000 (the standard guarantees MPI_TAG_UB >= 32767).
 *
 * Every function is static inline so a program that does not use one gets no
 * unused-function warning under -Wall -Werror.
 */
#ifndef TT_H
#define TT_H

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TT_TAG_SYNC 32001
#define TT_TAG_DONE 32002

static const char *tt_name = "?";
static int tt_rank = -1;
static int tt_size = -1;

static inline void tt_vfail(const char *file, int line, const char *fmt,
                            va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    fprintf(stderr, "FAIL %s rank %d/%d (%s:%d): %s\n", tt_name, tt_rank,
            tt_size, file, line, msg);
    fflush(stderr);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1); /* MPI_Abort should not return; make sure we never go on. */
}

static inline void tt_fail_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
static inline void tt_fail_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tt_vfail(file, line, fmt, ap);
    va_end(ap);
    exit(1);
}

#define TT_FAIL(...) tt_fail_at(__FILE__, __LINE__, __VA_ARGS__)

/* Fails unless cond holds; the message says what was checked. */
#define TT_CHECK(cond, ...)                                                    \
    do {                                                                       \
        if (!(cond))                                                           \
            TT_FAIL(__VA_ARGS__);                                              \
    } while (0)

/* Fails unless two integers are equal: "what: expected E, got G". */
#define TT_EQ(what, expected, got)                                             \
    do {                                                                       \
        long long tt_e_ = (long long)(expected), tt_g_ = (long long)(got);     \
        if (tt_e_ != tt_g_)                                                    \
            TT_FAIL("%s: expected %lld, got %lld", (what), tt_e_, tt_g_);      \
    } while (0)

/* The error string of an MPI error code, for messages. */
static inline const char *tt_errstr(int code)
{
    static char buf[MPI_MAX_ERROR_STRING + 32];
    int len = 0;
    if (MPI_Error_string(code, buf, &len) != MPI_SUCCESS)
        snprintf(buf, sizeof buf, "error code %d", code);
    return buf;
}

/* Runs an MPI call that must succeed. */
#define TT_MPI(call)                                                           \
    do {                                                                       \
        int tt_rc_ = (call);                                                   \
        if (tt_rc_ != MPI_SUCCESS)                                             \
            TT_FAIL("%s returned %d (%s)", #call, tt_rc_, tt_errstr(tt_rc_));  \
    } while (0)

/* The error class of an MPI return code (MPI_SUCCESS for success). */
static inline int tt_class(int code)
{
    int cls = MPI_SUCCESS;
    if (code != MPI_SUCCESS)
        MPI_Error_class(code, &cls);
    return cls;
}

/* Runs an MPI call that must return an error of class want (or succeed,
 * when want is MPI_SUCCESS). */
#define TT_EXPECT_CLASS(call, want)                                            \
    do {                                                                       \
        int tt_cls_ = tt_class(call);                                          \
        if (tt_cls_ != (want))                                                 \
            TT_FAIL("%s returned class %d, expected %s", #call, tt_cls_, #want); \
    } while (0)

static inline void tt_init(int *argc, char ***argv, const char *name)
{
    tt_name = name;
    if (MPI_Init(argc, argv) != MPI_SUCCESS) {
        fprintf(stderr, "FAIL %s: MPI_Init failed\n", name);
        exit(1);
    }
    TT_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &tt_rank));
    TT_MPI(MPI_Comm_size(MPI_COMM_WORLD, &tt_size));
}

/* Neighbours on the ring: the rank we send to and the one we receive from.
 * In a one-rank job both are the rank itself. */
static inline int tt_next(void) { return (tt_rank + 1) % tt_size; }
static inline int tt_prev(void) { return (tt_rank + tt_size - 1) % tt_size; }

/* A barrier made of point-to-point messages: everyone reports to rank 0 on
 * TT_TAG_SYNC, then rank 0 releases everyone. Uses specific sources and tags,
 * so it does not disturb receives on user tags. */
static inline void tt_sync(void)
{
    int token = 0;
    if (tt_rank == 0) {
        for (int r = 1; r < tt_size; r++)
            TT_MPI(MPI_Recv(&token, 1, MPI_INT, r, TT_TAG_SYNC, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
        for (int r = 1; r < tt_size; r++)
            TT_MPI(MPI_Send(&token, 1, MPI_INT, r, TT_TAG_SYNC, MPI_COMM_WORLD));
    } else {
        TT_MPI(MPI_Send(&token, 1, MPI_INT, 0, TT_TAG_SYNC, MPI_COMM_WORLD));
        TT_MPI(MPI_Recv(&token, 1, MPI_INT, 0, TT_TAG_SYNC, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
    }
}

/* Every rank reports success to rank 0, MPI is finalised, and rank 0 prints
 * "OK <name>". Returns the process exit code (0). */
static inline int tt_finish(void)
{
    int token = 1;
    if (tt_rank == 0) {
        for (int r = 1; r < tt_size; r++) {
            TT_MPI(MPI_Recv(&token, 1, MPI_INT, r, TT_TAG_DONE, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
            TT_EQ("done token", 1, token);
        }
    } else {
        TT_MPI(MPI_Send(&token, 1, MPI_INT, 0, TT_TAG_DONE, MPI_COMM_WORLD));
    }
    TT_MPI(MPI_Finalize());
    if (tt_rank == 0) {
        printf("OK %s\n", tt_name);
        fflush(stdout);
    }
    return 0;
}

/* Sleeps for ms milliseconds (used only to give a wrong implementation the
 * chance to complete something early, never for correctness). */
static inline void tt_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* A payload byte that depends on a seed and the offset. The top byte of a
 * multiplicative hash has no short period, so a shifted or repeated chunk
 * does not look right by accident. */
static inline unsigned char tt_pattern(uint32_t seed, size_t off)
{
    uint32_t v = (uint32_t)off * 2654435761u + seed;
    v ^= (uint32_t)(off >> 32);
    return (unsigned char)(v >> 24);
}

static inline uint32_t tt_seed(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t s = a * 0x9E3779B1u ^ b * 0x85EBCA77u ^ c * 0xC2B2AE3Du;
    return s ^ (s >> 15);
}

static inline void tt_fill(void *buf, size_t len, uint32_t seed)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < len; i++)
        p[i] = tt_pattern(seed, i);
}

/* Returns the first offset where buf differs from the pattern, or len. */
static inline size_t tt_find_bad(const void *buf, size_t len, uint32_t seed)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < len; i++)
        if (p[i] != tt_pattern(seed, i))
            return i;
    return len;
}

/* Fails, naming the case, if buf does not hold the pattern. */
#define TT_CHECK_PATTERN(buf, len, seed, ...)                                  \
    do {                                                                       \
        size_t tt_len_ = (len);                                                \
        size_t tt_bad_ = tt_find_bad((buf), tt_len_, (seed));                  \
        if (tt_bad_ != tt_len_) {                                              \
            char tt_what_[256];                                                \
            snprintf(tt_what_, sizeof tt_what_, __VA_ARGS__);                  \
            TT_FAIL("%s: payload wrong at byte %zu of %zu: expected 0x%02x, "  \
                    "got 0x%02x",                                              \
                    tt_what_, tt_bad_, tt_len_,                                \
                    tt_pattern((seed), tt_bad_),                               \
                    ((const unsigned char *)(buf))[tt_bad_]);                  \
        }                                                                      \
    } while (0)

/* Fails unless every byte of buf equals value (guard regions, poison). */
#define TT_CHECK_BYTES(buf, len, value, ...)                                   \
    do {                                                                       \
        const unsigned char *tt_p_ = (const unsigned char *)(buf);             \
        for (size_t tt_i_ = 0; tt_i_ < (size_t)(len); tt_i_++)                 \
            if (tt_p_[tt_i_] != (unsigned char)(value)) {                      \
                char tt_what_[256];                                            \
                snprintf(tt_what_, sizeof tt_what_, __VA_ARGS__);              \
                TT_FAIL("%s: byte %zu of %zu changed: expected 0x%02x, "       \
                        "got 0x%02x",                                          \
                        tt_what_, tt_i_, (size_t)(len),                        \
                        (unsigned char)(value), tt_p_[tt_i_]);                 \
            }                                                                  \
    } while (0)

static inline void *tt_malloc(size_t len)
{
    void *p = malloc(len ? len : 1);
    if (!p)
        TT_FAIL("out of memory allocating %zu bytes", len);
    return p;
}

/* Parses a size such as "65536", "64K", "16M", "1G". Returns 0 on error. */
static inline size_t tt_parse_size(const char *s)
{
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s)
        return 0;
    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    default: break;
    }
    if (*end == 'i' || *end == 'B')
        end++;
    if (*end == 'B')
        end++;
    return *end ? 0 : (size_t)v;
}

/* Checks the fields of a status that the standard defines; what names the
 * case in the failure message. */
static inline void tt_check_status_at(const char *file, int line,
                                      const MPI_Status *st, int src, int tag,
                                      MPI_Datatype type, int count,
                                      const char *what)
{
    int c = -7;
    if (st->MPI_SOURCE != src)
        tt_fail_at(file, line, "%s: status.MPI_SOURCE: expected %d, got %d",
                   what, src, st->MPI_SOURCE);
    if (st->MPI_TAG != tag)
        tt_fail_at(file, line, "%s: status.MPI_TAG: expected %d, got %d", what,
                   tag, st->MPI_TAG);
    int rc = MPI_Get_count(st, type, &c);
    if (rc != MPI_SUCCESS)
        tt_fail_at(file, line, "%s: MPI_Get_count returned %d", what, rc);
    if (c != count)
        tt_fail_at(file, line, "%s: MPI_Get_count: expected %d, got %d", what,
                   count, c);
}

#define TT_CHECK_STATUS(st, src, tag, type, count, what)                       \
    tt_check_status_at(__FILE__, __LINE__, &(st), (src), (tag), (type),        \
                       (count), (what))

#endif /* TT_H */
