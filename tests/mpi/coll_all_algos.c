/*
 * coll_all_algos: every algorithm of the gather-to-all and all-to-all
 * collectives (Allgather, Allgatherv, Alltoall, Alltoallv, Alltoallw) gives
 * the standard's result.
 *
 * The .test wrapper runs this program several times, each time forcing one
 * algorithm per collective through TERN_COLL_<NAME> (other MPI
 * implementations ignore the variables, so the program builds and passes
 * unchanged with their mpicc). Every call alternates between the blocking
 * form and the nonblocking one plus MPI_Wait. Block sizes are 0, 1, 7 and
 * 1000 ints and one large case (1 MiB per rank in all). Each result is
 * compared byte by byte with a reference built on the spot from the ranks'
 * formulas (never from another collective), gaps and guards included, so
 * a block in the wrong place, a write into a gap or past the end, or data
 * left over from the input all fail. The cases:
 *   - Allgather and Alltoall with MPI_INT on both sides; with pairs of ints
 *     sent as a contiguous type and received into a strided type whose gaps
 *     must stay untouched; in place with both of those receive types;
 *   - Allgatherv with uneven counts (some zero) at displacements in reverse
 *     rank order with gaps, sent as MPI_INT or as one contiguous element,
 *     and in place;
 *   - Alltoallv with uneven counts (some zero), displacements in reverse
 *     order with gaps on both sides, and in place (symmetric counts);
 *   - Alltoallw with a different type per pair (MPI_INT, MPI_DOUBLE, or
 *     int pairs against twice as many MPI_INT), byte displacements, and in
 *     place.
 */
#include "tt.h"

#define MOD 1000003
#define POISON 0xa5
#define BIG_BYTES (1 << 20)

static int ccase; /* Distinguishes every call's values; odd: nonblocking. */

static int val(int src, int dst, size_t i)
{
    return (int)((src * 7919L + dst * 104729L + (long)i * 31 + ccase * 101L) % MOD);
}

static MPI_Datatype pair_t; /* Two contiguous ints. */
static MPI_Datatype gap_t;  /* Ints at 0 and 2, extent 3 ints: gap at 1. */

/* Where the k-th int of a run of gap_t elements lies, in ints. */
static size_t gap_index(size_t k)
{
    return 3 * (k / 2) + 2 * (k % 2);
}

static void put_int(unsigned char *buf, size_t byte, int v)
{
    memcpy(buf + byte, &v, sizeof v);
}

static void put_dbl(unsigned char *buf, size_t byte, double v)
{
    memcpy(buf + byte, &v, sizeof v);
}

static unsigned char *poisoned(size_t bytes)
{
    unsigned char *b = tt_malloc(bytes);
    memset(b, POISON, bytes);
    return b;
}

static void compare(const unsigned char *got, const unsigned char *want, size_t bytes,
                    const char *what, size_t n)
{
    for (size_t i = 0; i < bytes; i++)
        if (got[i] != want[i])
            TT_FAIL("%s, n %zu, case %d: byte %zu of %zu is 0x%02x, expected 0x%02x "
                    "(int %zu)", what, n, ccase, i, bytes, got[i], want[i], i / 4);
}

static int nonblocking(void)
{
    return ccase % 2;
}

static void wait_for(MPI_Request *rq)
{
    TT_MPI(MPI_Wait(rq, MPI_STATUS_IGNORE));
}

/* Allgather ------------------------------------------------------------- */

/* mode 0: int/int; 1: pairs into gap_t; 2, 3: the same two in place. */
static void check_allgather(size_t n, int mode)
{
    int p = tt_size, r = tt_rank, gap = mode % 2, in_place = mode >= 2;
    if (gap)
        n &= ~(size_t)1;
    size_t block_ints = gap ? 3 * (n / 2) : n;       /* ints spanned by one block */
    size_t bytes = ((size_t)p * block_ints + 1) * sizeof(int);
    unsigned char *rb = poisoned(bytes), *want = poisoned(bytes);
    int *sb = tt_malloc(n * sizeof(int) + 1);
    for (int j = 0; j < p; j++)
        for (size_t k = 0; k < n; k++) {
            size_t at = (j * block_ints + (gap ? gap_index(k) : k)) * sizeof(int);
            put_int(want, at, val(j, 0, k));
            if (j == r && in_place)
                put_int(rb, at, val(j, 0, k));
        }
    for (size_t k = 0; k < n; k++)
        sb[k] = val(r, 0, k);
    const void *s = in_place ? MPI_IN_PLACE : sb;
    int sc = gap ? (int)n / 2 : (int)n, rc = sc;
    MPI_Datatype st = gap ? pair_t : MPI_INT, rt = gap ? gap_t : MPI_INT;
    if (nonblocking()) {
        MPI_Request rq;
        TT_MPI(MPI_Iallgather(s, sc, st, rb, rc, rt, MPI_COMM_WORLD, &rq));
        wait_for(&rq);
    } else {
        TT_MPI(MPI_Allgather(s, sc, st, rb, rc, rt, MPI_COMM_WORLD));
    }
    static const char *names[] = { "allgather int", "allgather pair->gap",
                                   "allgather in place int", "allgather in place gap" };
    compare(rb, want, bytes, names[mode], n);
    free(rb);
    free(want);
    free(sb);
    ccase++;
}

/* Allgatherv ------------------------------------------------------------ */

/* Displacements (in ints) in reverse rank order, `gap` ints before each
 * block; returns the ints spanned, a trailing gap included. */
static size_t reverse_displs(const int *counts, int *displs, int gap)
{
    size_t pos = 0;
    for (int j = tt_size - 1; j >= 0; j--) {
        displs[j] = (int)(pos + (size_t)gap);
        pos += (size_t)gap + (size_t)counts[j];
    }
    return pos + (size_t)gap;
}

/* mode 0: int/int; 1: sent as one contiguous element; 2: in place. */
static void check_allgatherv(size_t n, int mode)
{
    int p = tt_size, r = tt_rank;
    int *counts = tt_malloc((size_t)p * sizeof(int)), *displs = tt_malloc((size_t)p * sizeof(int));
    for (int j = 0; j < p; j++)
        counts[j] = j % 3 == 1 ? 0 : (int)n + j;
    size_t bytes = reverse_displs(counts, displs, 1) * sizeof(int);
    unsigned char *rb = poisoned(bytes), *want = poisoned(bytes);
    int *sb = tt_malloc((size_t)counts[r] * sizeof(int) + 1);
    for (int j = 0; j < p; j++)
        for (int k = 0; k < counts[j]; k++) {
            put_int(want, ((size_t)displs[j] + (size_t)k) * sizeof(int), val(j, 0, (size_t)k));
            if (j == r && mode == 2)
                put_int(rb, ((size_t)displs[j] + (size_t)k) * sizeof(int), val(j, 0, (size_t)k));
        }
    for (int k = 0; k < counts[r]; k++)
        sb[k] = val(r, 0, (size_t)k);
    MPI_Datatype st = MPI_INT, whole = MPI_DATATYPE_NULL;
    int sc = counts[r];
    if (mode == 1 && counts[r] > 0) {
        TT_MPI(MPI_Type_contiguous(counts[r], MPI_INT, &whole));
        TT_MPI(MPI_Type_commit(&whole));
        st = whole;
        sc = 1;
    }
    const void *s = mode == 2 ? MPI_IN_PLACE : sb;
    if (nonblocking()) {
        MPI_Request rq;
        TT_MPI(MPI_Iallgatherv(s, sc, st, rb, counts, displs, MPI_INT, MPI_COMM_WORLD, &rq));
        wait_for(&rq);
    } else {
        TT_MPI(MPI_Allgatherv(s, sc, st, rb, counts, displs, MPI_INT, MPI_COMM_WORLD));
    }
    static const char *names[] = { "allgatherv int", "allgatherv contiguous",
                                   "allgatherv in place" };
    compare(rb, want, bytes, names[mode], n);
    if (whole != MPI_DATATYPE_NULL)
        TT_MPI(MPI_Type_free(&whole));
    free(rb);
    free(want);
    free(sb);
    free(counts);
    free(displs);
    ccase++;
}

/* Alltoall -------------------------------------------------------------- */

/* mode 0: int/int; 1: pairs into gap_t; 2, 3: the same two in place. */
static void check_alltoall(size_t n, int mode)
{
    int p = tt_size, r = tt_rank, gap = mode % 2, in_place = mode >= 2;
    if (gap)
        n &= ~(size_t)1;
    size_t block_ints = gap ? 3 * (n / 2) : n;
    size_t bytes = ((size_t)p * block_ints + 1) * sizeof(int);
    unsigned char *rb = poisoned(bytes), *want = poisoned(bytes);
    int *sb = tt_malloc((size_t)p * n * sizeof(int) + 1);
    for (int j = 0; j < p; j++)
        for (size_t k = 0; k < n; k++) {
            size_t at = (j * block_ints + (gap ? gap_index(k) : k)) * sizeof(int);
            put_int(want, at, val(j, r, k));
            if (in_place)
                put_int(rb, at, val(r, j, k));
            sb[(size_t)j * n + k] = val(r, j, k);
        }
    const void *s = in_place ? MPI_IN_PLACE : sb;
    int c = gap ? (int)n / 2 : (int)n;
    MPI_Datatype st = gap ? pair_t : MPI_INT, rt = gap ? gap_t : MPI_INT;
    if (nonblocking()) {
        MPI_Request rq;
        TT_MPI(MPI_Ialltoall(s, c, st, rb, c, rt, MPI_COMM_WORLD, &rq));
        wait_for(&rq);
    } else {
        TT_MPI(MPI_Alltoall(s, c, st, rb, c, rt, MPI_COMM_WORLD));
    }
    static const char *names[] = { "alltoall int", "alltoall pair->gap",
                                   "alltoall in place int", "alltoall in place gap" };
    compare(rb, want, bytes, names[mode], n);
    free(rb);
    free(want);
    free(sb);
    ccase++;
}

/* Alltoallv and Alltoallw ----------------------------------------------- */

/* Elements src sends dst: uneven, some zero; symmetric for the in-place
 * forms (rank r then sends j as many as it receives from j). */
static int count_of(int src, int dst, size_t n, int sym)
{
    int a = sym ? src + dst : src + 2 * dst, b = sym ? (src + dst) % 5 : (src * 3 + dst) % 5;
    return (a + ccase) % 4 == 0 ? 0 : (int)n + b;
}

static void check_alltoallv(size_t n, int in_place)
{
    int p = tt_size, r = tt_rank;
    size_t ps = (size_t)p * sizeof(int);
    int *sc = tt_malloc(ps), *sd = tt_malloc(ps), *rc = tt_malloc(ps), *rd = tt_malloc(ps);
    for (int j = 0; j < p; j++) {
        sc[j] = count_of(r, j, n, in_place);
        rc[j] = count_of(j, r, n, in_place);
    }
    size_t sbytes = reverse_displs(sc, sd, 1) * sizeof(int);
    size_t rbytes = reverse_displs(rc, rd, 2) * sizeof(int);
    unsigned char *sb = poisoned(sbytes), *rb = poisoned(rbytes), *want = poisoned(rbytes);
    for (int j = 0; j < p; j++) {
        for (int k = 0; k < sc[j]; k++)
            put_int(sb, ((size_t)sd[j] + (size_t)k) * sizeof(int), val(r, j, (size_t)k));
        for (int k = 0; k < rc[j]; k++) {
            size_t at = ((size_t)rd[j] + (size_t)k) * sizeof(int);
            put_int(want, at, val(j, r, (size_t)k));
            if (in_place)
                put_int(rb, at, val(r, j, (size_t)k));
        }
    }
    const void *s = in_place ? MPI_IN_PLACE : sb;
    if (nonblocking()) {
        MPI_Request rq;
        TT_MPI(MPI_Ialltoallv(s, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD, &rq));
        wait_for(&rq);
    } else {
        TT_MPI(MPI_Alltoallv(s, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD));
    }
    compare(rb, want, rbytes, in_place ? "alltoallv in place" : "alltoallv", n);
    free(sb);
    free(rb);
    free(want);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    ccase++;
}

/* Alltoallw's pair kinds: 0 int/int, 1 double/double, 2 pairs against
 * twice as many ints (ints both sides in place). */
static int kind_of(int a, int b)
{
    return (a + b) % 3;
}

/* Lays out one side of an Alltoallw: types, counts and byte displacements
 * (reverse order, 8 bytes of gap before each block); returns the bytes. */
static size_t w_layout(int side_send, int in_place, size_t n, int *cnt, int *displ,
                       MPI_Datatype *types)
{
    int p = tt_size, r = tt_rank;
    size_t pos = 0;
    for (int j = p - 1; j >= 0; j--) {
        int c = side_send ? count_of(r, j, n, in_place) : count_of(j, r, n, in_place);
        int kind = kind_of(r, j);
        size_t elem;
        if (kind == 0) {
            types[j] = MPI_INT;
            elem = sizeof(int);
        } else if (kind == 1) {
            types[j] = MPI_DOUBLE;
            elem = sizeof(double);
        } else if (side_send && !in_place) {
            types[j] = pair_t;
            elem = 2 * sizeof(int);
        } else {
            types[j] = MPI_INT;
            c *= 2;
            elem = sizeof(int);
        }
        displ[j] = (int)(pos + 8);
        cnt[j] = c;
        pos += 8 + ((size_t)c * elem + 7) / 8 * 8;
    }
    return pos + 8;
}

/* Writes the ints or doubles src sends dst into a block at `at`. */
static void w_fill(unsigned char *buf, size_t at, int src, int dst, size_t n, int in_place)
{
    int c = count_of(src, dst, n, in_place), kind = kind_of(src, dst);
    if (kind == 2)
        c *= 2;
    for (int k = 0; k < c; k++) {
        if (kind == 1)
            put_dbl(buf, at + (size_t)k * sizeof(double), (double)val(src, dst, (size_t)k));
        else
            put_int(buf, at + (size_t)k * sizeof(int), val(src, dst, (size_t)k));
    }
}

static void check_alltoallw(size_t n, int in_place)
{
    int p = tt_size, r = tt_rank;
    size_t ps = (size_t)p * sizeof(int);
    int *sc = tt_malloc(ps), *sd = tt_malloc(ps), *rc = tt_malloc(ps), *rd = tt_malloc(ps);
    MPI_Datatype *st = tt_malloc((size_t)p * sizeof(MPI_Datatype));
    MPI_Datatype *rt = tt_malloc((size_t)p * sizeof(MPI_Datatype));
    size_t sbytes = w_layout(1, in_place, n, sc, sd, st);
    size_t rbytes = w_layout(0, in_place, n, rc, rd, rt);
    unsigned char *sb = poisoned(sbytes), *rb = poisoned(rbytes), *want = poisoned(rbytes);
    for (int j = 0; j < p; j++) {
        w_fill(sb, (size_t)sd[j], r, j, n, in_place);
        w_fill(want, (size_t)rd[j], j, r, n, in_place);
        if (in_place)
            w_fill(rb, (size_t)rd[j], r, j, n, in_place);
    }
    const void *s = in_place ? MPI_IN_PLACE : sb;
    if (nonblocking()) {
        MPI_Request rq;
        TT_MPI(MPI_Ialltoallw(s, sc, sd, st, rb, rc, rd, rt, MPI_COMM_WORLD, &rq));
        wait_for(&rq);
    } else {
        TT_MPI(MPI_Alltoallw(s, sc, sd, st, rb, rc, rd, rt, MPI_COMM_WORLD));
    }
    compare(rb, want, rbytes, in_place ? "alltoallw in place" : "alltoallw", n);
    free(sb);
    free(rb);
    free(want);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(st);
    free(rt);
    ccase++;
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "coll_all_algos");
    TT_MPI(MPI_Type_contiguous(2, MPI_INT, &pair_t));
    TT_MPI(MPI_Type_commit(&pair_t));
    TT_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &gap_t));
    TT_MPI(MPI_Type_commit(&gap_t));
    /* Ints per block; the last case is 1 MiB per rank in all. */
    size_t big = BIG_BYTES / sizeof(int) / (size_t)tt_size;
    const size_t counts[] = { 0, 1, 7, 1000, big };
    for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
        size_t n = counts[ci];
        for (int mode = 0; mode < 4; mode++)
            check_allgather(n, mode);
        for (int mode = 0; mode < 3; mode++)
            check_allgatherv(n, mode);
        for (int mode = 0; mode < 4; mode++)
            check_alltoall(n, mode);
        for (int in_place = 0; in_place < 2; in_place++) {
            check_alltoallv(n, in_place);
            check_alltoallw(n, in_place);
        }
    }
    TT_MPI(MPI_Type_free(&pair_t));
    TT_MPI(MPI_Type_free(&gap_t));
    return tt_finish();
}
