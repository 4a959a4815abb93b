/*
 * coll_reduce_algos: MPI_Allreduce, MPI_Reduce_scatter, MPI_Reduce_scatter_block,
 * MPI_Scan and MPI_Exscan against references computed independently on
 * every rank, for whatever algorithm the library picks (the .test wrapper
 * forces each of Tern's algorithms in turn with TERN_COLL_<NAME>).
 *
 * Cases: counts 0, 1, 7, 1000 and a long vector (1 MiB of data with
 * --big, smaller by default to keep make check quick), in place and not,
 * with
 *  - MPI_SUM on MPI_INT (exact);
 *  - MPI_SUM on MPI_DOUBLE with values whose sum rounds differently in
 *    different orders: the result must be close to the reference and the
 *    same bits on every rank (Allreduce; each block of a reduce-scatter is
 *    one rank's alone);
 *  - a non-commutative user op, the product of 2x2 matrices of unsigned
 *    ints modulo 2^32 (associative, so the exact reference is the product in
 *    rank order), on a contiguous type of 4 MPI_UNSIGNED;
 *  - a commutative user op summing a non-contiguous type (2 ints with a
 *    gap, extent 3 ints), whose gaps must stay untouched.
 * The reduce-scatters use blocks of different sizes, some empty.
 * Count 1000 also runs through the nonblocking forms (MPI_I..., MPI_Wait).
 * With Tern only, the non-commutative Allreduce and Reduce_scatter_block
 * must also give the same bits as MPI_Reduce for a non-associative
 * floating op (the library's one canonical order); other MPIs make no such
 * promise.
 *
 * Uses only the standard MPI API.
 */
#include "tt.h"

static size_t big = 20000; /* Elements of the long case (--big: 1 MiB). */
static int nb;             /* Use the nonblocking form, then MPI_Wait. */

/* Runs the blocking call, or the nonblocking one (which stores its request
 * in rq_) followed by MPI_Wait. */
#define CALL(blocking, nonblocking)                                            \
    do {                                                                       \
        if (nb) {                                                              \
            MPI_Request rq_;                                                   \
            TT_MPI(nonblocking);                                               \
            TT_MPI(MPI_Wait(&rq_, MPI_STATUS_IGNORE));                         \
        } else {                                                               \
            TT_MPI(blocking);                                                  \
        }                                                                      \
    } while (0)
static int is_tern;

/* Inputs --------------------------------------------------------------- */

static uint32_t hash3(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t h = tt_seed(a + 1, b + 7, c + 13);
    h *= 0x2545F491u;
    return h ^ (h >> 13);
}

static int in_int(int r, size_t i)
{
    return (int)(hash3((uint32_t)r, (uint32_t)i, 1) % 2001) - 1000;
}

static double in_dbl(int r, size_t i)
{
    return 1.0 / (double)(1 + (r * 31 + (int)(i % 97)) % 53);
}

typedef struct { uint32_t m[4]; } mat;

static mat in_mat(int r, size_t i)
{
    mat x;
    for (int k = 0; k < 4; k++)
        x.m[k] = hash3((uint32_t)r, (uint32_t)i, (uint32_t)k + 2);
    return x;
}

/* c = a * b */
static mat mul(mat a, mat b)
{
    mat c;
    c.m[0] = a.m[0] * b.m[0] + a.m[1] * b.m[2];
    c.m[1] = a.m[0] * b.m[1] + a.m[1] * b.m[3];
    c.m[2] = a.m[2] * b.m[0] + a.m[3] * b.m[2];
    c.m[3] = a.m[2] * b.m[1] + a.m[3] * b.m[3];
    return c;
}

static void mat_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    mat *x = in, *y = inout;
    for (int i = 0; i < *len; i++)
        y[i] = mul(x[i], y[i]);
}

/* Sum on the gapped type, element by element (a predefined op on a derived
 * type is not portable), leaving the gaps alone. */
static void gap_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        y[3 * i] += x[3 * i];
        y[3 * i + 2] += x[3 * i + 2];
    }
}

/* Non-associative, non-commutative: the result depends on the grouping. */
static void fma_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    double *x = in, *y = inout;
    for (int i = 0; i < *len; i++)
        y[i] = x[i] * 0.7 + y[i] * 1.3 + 0.1;
}

/* The kinds of data ------------------------------------------------------ */

enum kind { K_INT, K_DBL, K_MAT, K_GAP, NKIND };
static const char *kname[NKIND] = { "int sum", "double sum", "matrix product",
                                    "gapped int sum" };
static MPI_Datatype mat_type, gap_type;
static MPI_Op mat_op, gap_op, fma_op;

static size_t esize(enum kind k)
{
    static const size_t size[NKIND] = { sizeof(int), sizeof(double), sizeof(mat),
                                        3 * sizeof(int) };
    return size[k];
}

static MPI_Datatype etype(enum kind k)
{
    return k == K_INT ? MPI_INT : k == K_DBL ? MPI_DOUBLE : k == K_MAT ? mat_type : gap_type;
}

static MPI_Op eop(enum kind k) { return k == K_MAT ? mat_op : k == K_GAP ? gap_op : MPI_SUM; }

/* Writes rank r's input element i at p. */
static void put_input(enum kind k, int r, size_t i, void *p)
{
    switch (k) {
    case K_INT: *(int *)p = in_int(r, i); break;
    case K_DBL: *(double *)p = in_dbl(r, i); break;
    case K_MAT: *(mat *)p = in_mat(r, i); break;
    case K_GAP:
        ((int *)p)[0] = in_int(r, i);
        ((int *)p)[2] = in_int(r, i + 1000003);
        break;
    default: break;
    }
}

/* Fills a buffer of n elements with rank r's input, starting at element
 * `first`; the gaps of K_GAP get a marker. */
static void fill(enum kind k, int r, size_t first, size_t n, void *buf)
{
    for (size_t i = 0; i < n; i++) {
        char *p = (char *)buf + i * esize(k);
        if (k == K_GAP)
            ((int *)p)[1] = -77;
        put_input(k, r, first + i, p);
    }
}

/* Compares element `got` with the reduction over ranks lo..hi of element i
 * (hi < lo: nothing to check); fails naming the case. */
static void check_elem(enum kind k, const void *got, int lo, int hi, size_t i,
                       const char *what)
{
    if (hi < lo)
        return;
    if (k == K_INT || k == K_GAP) {
        int s = 0, s2 = 0;
        for (int r = lo; r <= hi; r++) {
            s += in_int(r, i);
            s2 += in_int(r, i + 1000003);
        }
        const int *g = got;
        TT_CHECK(g[0] == s, "%s (%s): element %zu is %d, expected %d", what, kname[k], i,
                 g[0], s);
        if (k == K_GAP) {
            TT_CHECK(g[2] == s2, "%s (%s): element %zu second int is %d, expected %d", what,
                     kname[k], i, g[2], s2);
            TT_CHECK(g[1] == -77, "%s (%s): gap of element %zu was written (%d)", what,
                     kname[k], i, g[1]);
        }
    } else if (k == K_DBL) {
        double s = 0;
        for (int r = lo; r <= hi; r++)
            s += in_dbl(r, i);
        double g = *(const double *)got;
        TT_CHECK(g - s < 1e-9 && s - g < 1e-9, "%s (%s): element %zu is %.17g, expected %.17g",
                 what, kname[k], i, g, s);
    } else {
        mat s = in_mat(lo, i);
        for (int r = lo + 1; r <= hi; r++)
            s = mul(s, in_mat(r, i));
        TT_CHECK(!memcmp(&s, got, sizeof(s)),
                 "%s (%s): element %zu differs from x%d..x%d in rank order", what, kname[k], i,
                 lo, hi);
    }
}

/* A checksum of a buffer's bytes, to compare results across ranks. */
static uint64_t digest(const void *buf, size_t len)
{
    const unsigned char *p = buf;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* Every rank's digest must equal rank 0's (point-to-point only). */
static void same_everywhere(uint64_t h, const char *what)
{
    if (tt_rank == 0) {
        for (int r = 1; r < tt_size; r++) {
            uint64_t o;
            TT_MPI(MPI_Recv(&o, 1, MPI_UINT64_T, r, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            TT_CHECK(o == h, "%s: rank %d's result differs in its bits from rank 0's", what,
                     r);
        }
    } else {
        TT_MPI(MPI_Send(&h, 1, MPI_UINT64_T, 0, 101, MPI_COMM_WORLD));
    }
}

/* The collectives ------------------------------------------------------- */

static void test_allreduce(enum kind k, size_t n, int in_place)
{
    char what[96];
    snprintf(what, sizeof what, "MPI_%sallreduce count %zu%s", nb ? "I" : "", n,
             in_place ? " in place" : "");
    size_t es = esize(k);
    char *sb = malloc(n * es + 1), *rb = malloc(n * es + 1);
    fill(k, tt_rank, 0, n, in_place ? rb : sb);
    if (!in_place && k == K_GAP)
        fill(k, tt_rank + 500, 0, n, rb); /* the gaps' markers; the data is overwritten */
    const void *s = in_place ? MPI_IN_PLACE : sb;
    CALL(MPI_Allreduce(s, rb, (int)n, etype(k), eop(k), MPI_COMM_WORLD),
         MPI_Iallreduce(s, rb, (int)n, etype(k), eop(k), MPI_COMM_WORLD, &rq_));
    for (size_t i = 0; i < n; i++)
        check_elem(k, rb + i * es, 0, tt_size - 1, i, what);
    same_everywhere(digest(rb, n * es), what);
    free(sb);
    free(rb);
}

/* Block sizes of the reduce-scatter: about `base` each, some empty. */
static void blocks(size_t base, int vary, int *counts, size_t *displ)
{
    size_t off = 0;
    for (int i = 0; i < tt_size; i++) {
        size_t c = base;
        if (vary)
            c = i % 3 == 2 ? 0 : base + (size_t)(i % 2) * (base / 3 + 1);
        counts[i] = (int)c;
        displ[i] = off;
        off += c;
    }
    displ[tt_size] = off;
}

static void test_reduce_scatter(enum kind k, size_t base, int vary, int in_place)
{
    char what[112];
    snprintf(what, sizeof what, "MPI_%s_scatter%s blocks ~%zu%s", nb ? "Ireduce" : "Reduce",
             vary ? "" : "_block",
             base, in_place ? " in place" : "");
    size_t es = esize(k);
    int *counts = malloc(sizeof(int) * (size_t)tt_size);
    size_t *displ = malloc(sizeof(size_t) * (size_t)(tt_size + 1));
    blocks(base, vary, counts, displ);
    size_t total = displ[tt_size], mine = (size_t)counts[tt_rank];
    char *sb = malloc(total * es + 1), *rb = malloc(total * es + 1);
    fill(k, tt_rank, 0, total, in_place ? rb : sb);
    if (!in_place)
        fill(k, tt_rank + 500, 0, mine, rb);
    const void *s = in_place ? MPI_IN_PLACE : sb;
    if (vary)
        CALL(MPI_Reduce_scatter(s, rb, counts, etype(k), eop(k), MPI_COMM_WORLD),
             MPI_Ireduce_scatter(s, rb, counts, etype(k), eop(k), MPI_COMM_WORLD, &rq_));
    else
        CALL(MPI_Reduce_scatter_block(s, rb, (int)base, etype(k), eop(k), MPI_COMM_WORLD),
             MPI_Ireduce_scatter_block(s, rb, (int)base, etype(k), eop(k), MPI_COMM_WORLD,
                                       &rq_));
    for (size_t i = 0; i < mine; i++)
        check_elem(k, rb + i * es, 0, tt_size - 1, displ[tt_rank] + i, what);
    free(counts);
    free(displ);
    free(sb);
    free(rb);
}

static void test_scan(enum kind k, size_t n, int in_place, int ex)
{
    char what[96];
    snprintf(what, sizeof what, "MPI_%s%sscan count %zu%s", nb ? "I" : "", ex ? "Ex" : "", n,
             in_place ? " in place" : "");
    size_t es = esize(k);
    char *sb = malloc(n * es + 1), *rb = malloc(n * es + 1);
    fill(k, tt_rank, 0, n, in_place ? rb : sb);
    if (!in_place)
        fill(k, tt_rank + 500, 0, n, rb);
    const void *s = in_place ? MPI_IN_PLACE : sb;
    if (ex)
        CALL(MPI_Exscan(s, rb, (int)n, etype(k), eop(k), MPI_COMM_WORLD),
             MPI_Iexscan(s, rb, (int)n, etype(k), eop(k), MPI_COMM_WORLD, &rq_));
    else
        CALL(MPI_Scan(s, rb, (int)n, etype(k), eop(k), MPI_COMM_WORLD),
             MPI_Iscan(s, rb, (int)n, etype(k), eop(k), MPI_COMM_WORLD, &rq_));
    for (size_t i = 0; i < n; i++)
        check_elem(k, rb + i * es, 0, ex ? tt_rank - 1 : tt_rank, i, what);
    free(sb);
    free(rb);
}

/* Tern's promise: one canonical order for non-commutative ops, so
 * Allreduce and Reduce_scatter_block give the bits of Reduce even for a
 * non-associative op. n is a multiple of the number of ranks. */
static void test_canonical(size_t n)
{
    size_t bytes = n * sizeof(double), blk = n / (size_t)tt_size;
    double *x = malloc(bytes + 1), *ar = malloc(bytes + 1), *red = malloc(bytes + 1);
    double *rs = malloc(blk * sizeof(double) + 1);
    for (size_t i = 0; i < n; i++)
        x[i] = in_dbl(tt_rank, i);
    TT_MPI(MPI_Allreduce(x, ar, (int)n, MPI_DOUBLE, fma_op, MPI_COMM_WORLD));
    TT_MPI(MPI_Reduce_scatter_block(x, rs, (int)blk, MPI_DOUBLE, fma_op, MPI_COMM_WORLD));
    TT_MPI(MPI_Reduce(x, red, (int)n, MPI_DOUBLE, fma_op, 0, MPI_COMM_WORLD));
    uint64_t h = digest(ar, bytes);
    same_everywhere(h, "MPI_Allreduce with a non-commutative op");
    TT_MPI(MPI_Bcast(red, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    TT_CHECK(h == digest(red, bytes),
             "MPI_Allreduce with a non-commutative op: bits differ from MPI_Reduce's "
             "(count %zu)", n);
    TT_CHECK(!memcmp(rs, red + (size_t)tt_rank * blk, blk * sizeof(double)),
             "MPI_Reduce_scatter_block with a non-commutative op: bits differ from "
             "MPI_Reduce's (count %zu)", n);
    free(x);
    free(ar);
    free(red);
    free(rs);
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "coll_reduce_algos");
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--big"))
            big = 0;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    TT_MPI(MPI_Get_library_version(lib, &len));
    is_tern = !strncmp(lib, "Tern", 4);
    TT_MPI(MPI_Type_contiguous(4, MPI_UNSIGNED, &mat_type));
    TT_MPI(MPI_Type_commit(&mat_type));
    TT_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &gap_type));
    TT_MPI(MPI_Type_commit(&gap_type));
    TT_MPI(MPI_Op_create(mat_fn, 0, &mat_op));
    TT_MPI(MPI_Op_create(gap_fn, 1, &gap_op));
    TT_MPI(MPI_Op_create(fma_fn, 0, &fma_op));

    for (int k = 0; k < NKIND; k++) {
        size_t counts[5] = { 0, 1, 7, 1000, big ? big : (1u << 20) / esize((enum kind)k) };
        /* Count 1000 runs a second time in the nonblocking forms. */
        for (int c = 0; c < 5; c++) {
            for (int ip = 0; ip < 2 * (1 + (c == 3)); ip++) {
                nb = ip >= 2;
                int in_place = ip % 2;
                test_allreduce((enum kind)k, counts[c], in_place);
                test_scan((enum kind)k, counts[c], in_place, 0);
                test_scan((enum kind)k, counts[c], in_place, 1);
                size_t base = counts[c] / (size_t)tt_size + (c > 0);
                test_reduce_scatter((enum kind)k, base, 0, in_place);
                test_reduce_scatter((enum kind)k, base, 1, in_place);
            }
        }
    }
    nb = 0;
    if (is_tern) {
        test_canonical((size_t)tt_size);
        test_canonical(1000 * (size_t)tt_size);
        test_canonical((big ? big : 131072) / (size_t)tt_size * (size_t)tt_size);
    }
    TT_MPI(MPI_Op_free(&mat_op));
    TT_MPI(MPI_Op_free(&gap_op));
    TT_MPI(MPI_Op_free(&fma_op));
    TT_MPI(MPI_Type_free(&mat_type));
    TT_MPI(MPI_Type_free(&gap_type));
    return tt_finish();
}
