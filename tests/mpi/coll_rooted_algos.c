/*
 * coll_rooted_algos: every algorithm of the rooted collectives (Bcast,
 * Reduce, Gather, Gatherv, Scatter, Scatterv) gives the standard's result.
 *
 * The .test wrapper runs this program several times, each time forcing one
 * algorithm per collective through TERN_COLL_<NAME> (other MPI
 * implementations ignore the variables, so the program builds and passes
 * unchanged with their mpicc). Each case uses counts 0, 1, 7, 1000 and
 * about 1 MiB, roots 0, p - 1 and p / 2, and checks every value against a
 * reference computed on the spot from the ranks' formulas, never from
 * another collective:
 *   - Bcast of MPI_BYTE, MPI_INT and a strided type (gaps must stay as
 *     they were);
 *   - Reduce of MPI_INT and MPI_DOUBLE sums (values chosen so every order
 *     of additions is exact), and of a non-commutative user op (composition
 *     of affine maps mod a prime, on pairs of ints) whose result depends on
 *     the order, in place at the root too, with NULL recvbuf elsewhere;
 *   - Gather and Scatter with the same types on both sides, with the root
 *     using a 4-int contiguous type against the others' MPI_INT, and in
 *     place at the root;
 *   - Gatherv and Scatterv with uneven counts (some zero), displacements in
 *     reverse rank order with gaps that must stay untouched, and in place.
 * An optional argument sets the large case's size (default 1M).
 */
#include "tt.h"

#define POISON 0x5a
#define MOD 1000003

/* The large case's bytes: 1 MiB unless the first argument says otherwise. */
static size_t big_bytes = 1 << 20;

/* Count number ci of a case whose elements have `size` bytes: 0, 1, 7,
 * 1000 elements, then big_bytes worth of them. */
#define NCOUNTS 5
static size_t count_of(size_t ci, size_t size)
{
    static const size_t small[] = { 0, 1, 7, 1000 };
    return ci < NCOUNTS - 1 ? small[ci] : big_bytes / size;
}

/* The value rank r contributes at index i of case `c`. */
static int val(int r, size_t i, int c)
{
    return (int)((r * 7919 + (long)i * 31 + c * 101) % MOD);
}

/* Roots 0, p - 1 and p / 2: with a root in the middle the blocks of a
 * subtree of the binomial gather and scatter wrap around rank p - 1. */
static int nroots(void)
{
    return tt_size > 2 ? 3 : tt_size;
}

static int root_at(int k)
{
    return k == 0 ? 0 : k == 1 ? tt_size - 1 : tt_size / 2;
}

/* Bcast ----------------------------------------------------------------- */

static void test_bcast(void)
{
    MPI_Datatype strided;
    TT_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &strided)); /* x . x: 2 ints, extent 3 */
    TT_MPI(MPI_Type_commit(&strided));
    for (size_t ci = 0; ci < NCOUNTS; ci++)
        for (int k = 0; k < nroots(); k++) {
            int root = root_at(k);
            size_t nb = count_of(ci, 1);
            unsigned char *b = tt_malloc(nb + 1);
            uint32_t seed = tt_seed(1, (uint32_t)nb, (uint32_t)root);
            if (tt_rank == root)
                tt_fill(b, nb, seed);
            else
                memset(b, POISON, nb);
            b[nb] = POISON;
            TT_MPI(MPI_Bcast(b, (int)nb, MPI_BYTE, root, MPI_COMM_WORLD));
            TT_CHECK_PATTERN(b, nb, seed, "bcast %zu bytes root %d", nb, root);
            TT_CHECK_BYTES(b + nb, 1, POISON, "bcast %zu bytes root %d: guard", nb, root);
            free(b);

            size_t n = count_of(ci, sizeof(int));
            int *v = tt_malloc((n + 1) * sizeof(int));
            for (size_t i = 0; i <= n; i++)
                v[i] = tt_rank == root && i < n ? val(root, i, 1) : -1;
            TT_MPI(MPI_Bcast(v, (int)n, MPI_INT, root, MPI_COMM_WORLD));
            for (size_t i = 0; i < n; i++)
                if (v[i] != val(root, i, 1))
                    TT_FAIL("bcast %zu ints root %d: [%zu] = %d, expected %d", n, root,
                            i, v[i], val(root, i, 1));
            TT_EQ("bcast int guard", -1, v[n]);
            free(v);

            size_t ne = count_of(ci, 3 * sizeof(int)); /* `strided`: 3 ints each */
            int *w = tt_malloc((3 * ne + 1) * sizeof(int));
            for (size_t i = 0; i < 3 * ne + 1; i++)
                w[i] = tt_rank == root && i % 3 != 1 && i < 3 * ne ? val(root, i, 2)
                                                                  : -1 - (int)(i % 3);
            TT_MPI(MPI_Bcast(w, (int)ne, strided, root, MPI_COMM_WORLD));
            for (size_t i = 0; i < 3 * ne + 1; i++) {
                int want = i % 3 != 1 && i < 3 * ne ? val(root, i, 2) : -1 - (int)(i % 3);
                if (tt_rank == root && i % 3 == 1)
                    want = -2;
                if (w[i] != want)
                    TT_FAIL("bcast %zu strided root %d: int %zu = %d, expected %d", ne,
                            root, i, w[i], want);
            }
            free(w);
        }
    TT_MPI(MPI_Type_free(&strided));
}

/* Reduce ---------------------------------------------------------------- */

/* Pairs (a, b) stand for x -> a x + b mod MOD; inout = in then inout, i.e.
 * the map that applies `in` first: the order of the ranks matters. */
static void affine(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *u = in, *w = inout;
    for (int i = 0; i < *len; i++) {
        long a1 = u[2 * i], b1 = u[2 * i + 1], a2 = w[2 * i], b2 = w[2 * i + 1];
        w[2 * i] = (int)(a2 * a1 % MOD);
        w[2 * i + 1] = (int)((a2 * b1 + b2) % MOD);
    }
}

static void affine_elem(int r, size_t i, long *a, long *b)
{
    *a = 2 + val(r, i, 3) % 1000;
    *b = val(r, i, 4);
}

static void check_reduce_noncommut(int root, size_t n, MPI_Op op, MPI_Datatype pair,
                                   int in_place)
{
    int *s = tt_malloc((2 * n + 1) * sizeof(int));
    int *rbuf = tt_rank == root ? tt_malloc((2 * n + 1) * sizeof(int)) : NULL;
    int *own = in_place && tt_rank == root ? rbuf : s;
    for (size_t i = 0; i < n; i++) {
        long a, b;
        affine_elem(tt_rank, i, &a, &b);
        own[2 * i] = (int)a;
        own[2 * i + 1] = (int)b;
    }
    if (rbuf && !in_place)
        for (size_t i = 0; i < 2 * n; i++)
            rbuf[i] = -1;
    if (rbuf)
        rbuf[2 * n] = -1;
    const void *sb = in_place && tt_rank == root ? MPI_IN_PLACE : s;
    TT_MPI(MPI_Reduce(sb, rbuf, (int)n, pair, op, root, MPI_COMM_WORLD));
    if (rbuf) {
        for (size_t i = 0; i < n; i++) {
            long A, B;
            affine_elem(0, i, &A, &B);
            for (int r = 1; r < tt_size; r++) {
                long a, b;
                affine_elem(r, i, &a, &b);
                B = (a * B + b) % MOD;
                A = a * A % MOD;
            }
            if (rbuf[2 * i] != A || rbuf[2 * i + 1] != B)
                TT_FAIL("reduce affine n %zu root %d%s: [%zu] = (%d,%d), expected "
                        "(%ld,%ld)", n, root, in_place ? " in place" : "", i,
                        rbuf[2 * i], rbuf[2 * i + 1], A, B);
        }
        TT_EQ("reduce affine guard", -1, rbuf[2 * n]);
    }
    free(s);
    free(rbuf);
}

static void check_reduce_sums(int root, size_t n, int in_place)
{
    int *si = tt_malloc((n + 1) * sizeof(int)), *ri = NULL;
    double *sd = tt_malloc((n + 1) * sizeof(double)), *rd = NULL;
    int is_root = tt_rank == root;
    if (is_root) {
        ri = tt_malloc((n + 1) * sizeof(int));
        rd = tt_malloc((n + 1) * sizeof(double));
    }
    int *oi = in_place && is_root ? ri : si;
    double *od = in_place && is_root ? rd : sd;
    for (size_t i = 0; i < n; i++) {
        oi[i] = val(tt_rank, i, 5) - MOD / 2;
        od[i] = val(tt_rank, i, 6) * 0.5; /* halves: every sum is exact */
    }
    if (is_root) {
        ri[n] = -1;
        rd[n] = -1;
    }
    int ip = in_place && is_root;
    TT_MPI(MPI_Reduce(ip ? MPI_IN_PLACE : si, ri, (int)n, MPI_INT, MPI_SUM, root,
                      MPI_COMM_WORLD));
    TT_MPI(MPI_Reduce(ip ? MPI_IN_PLACE : sd, rd, (int)n, MPI_DOUBLE, MPI_SUM, root,
                      MPI_COMM_WORLD));
    if (is_root) {
        for (size_t i = 0; i < n; i++) {
            long ei = 0;
            double ed = 0;
            for (int r = 0; r < tt_size; r++) {
                ei += val(r, i, 5) - MOD / 2;
                ed += val(r, i, 6) * 0.5;
            }
            if (ri[i] != ei || rd[i] != ed)
                TT_FAIL("reduce sum n %zu root %d%s: [%zu] = %d / %.1f, expected %ld / "
                        "%.1f", n, root, in_place ? " in place" : "", i, ri[i], rd[i],
                        ei, ed);
        }
        TT_EQ("reduce int guard", -1, ri[n]);
        TT_CHECK(rd[n] == -1, "reduce double guard changed");
    }
    free(si);
    free(sd);
    free(ri);
    free(rd);
}

static void test_reduce(void)
{
    MPI_Datatype pair;
    MPI_Op op;
    TT_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
    TT_MPI(MPI_Type_commit(&pair));
    TT_MPI(MPI_Op_create(affine, 0, &op));
    for (size_t ci = 0; ci < NCOUNTS; ci++)
        for (int k = 0; k < nroots(); k++)
            for (int ip = 0; ip < 2; ip++) {
                check_reduce_sums(root_at(k), count_of(ci, sizeof(double)), ip);
                check_reduce_noncommut(root_at(k), count_of(ci, 2 * sizeof(int)), op, pair,
                                       ip);
            }
    TT_MPI(MPI_Op_free(&op));
    TT_MPI(MPI_Type_free(&pair));
}

/* Gather and Scatter ---------------------------------------------------- */

/* Kinds of a case: same types; the root's side in a 4-int type; in place. */
enum { SAME, QUAD, IN_PLACE, NKINDS };

static void test_gather(MPI_Datatype quad)
{
    for (size_t ci = 0; ci < NCOUNTS; ci++)
        for (int k = 0; k < nroots(); k++)
            for (int kind = 0; kind < NKINDS; kind++) {
                int root = root_at(k), is_root = tt_rank == root;
                /* Ints per rank: whole quads when the root uses them. */
                size_t n = kind == QUAD ? 4 * count_of(ci, 4 * sizeof(int))
                                        : count_of(ci, sizeof(int));
                size_t total = n * (size_t)tt_size;
                int *s = tt_malloc((n + 1) * sizeof(int));
                int *rb = is_root ? tt_malloc((total + 1) * sizeof(int)) : NULL;
                for (size_t i = 0; i < n; i++)
                    s[i] = val(tt_rank, i, 7);
                if (is_root) {
                    for (size_t i = 0; i <= total; i++)
                        rb[i] = -1;
                    if (kind == IN_PLACE)
                        memcpy(rb + (size_t)root * n, s, n * sizeof(int));
                }
                const void *sb = kind == IN_PLACE && is_root ? MPI_IN_PLACE : s;
                if (kind == QUAD)
                    TT_MPI(MPI_Gather(sb, (int)n, MPI_INT, rb, (int)(n / 4), quad, root,
                                      MPI_COMM_WORLD));
                else
                    TT_MPI(MPI_Gather(sb, (int)n, MPI_INT, rb, (int)n, MPI_INT, root,
                                      MPI_COMM_WORLD));
                if (is_root) {
                    for (size_t i = 0; i < total; i++)
                        if (rb[i] != val((int)(i / n), i % n, 7))
                            TT_FAIL("gather %zu ints root %d kind %d: [%zu] = %d, "
                                    "expected %d", n, root, kind, i, rb[i],
                                    val((int)(i / n), i % n, 7));
                    TT_EQ("gather guard", -1, rb[total]);
                }
                free(s);
                free(rb);
            }
}

static void test_scatter(MPI_Datatype quad)
{
    for (size_t ci = 0; ci < NCOUNTS; ci++)
        for (int k = 0; k < nroots(); k++)
            for (int kind = 0; kind < NKINDS; kind++) {
                int root = root_at(k), is_root = tt_rank == root;
                size_t n = kind == QUAD ? 4 * count_of(ci, 4 * sizeof(int))
                                        : count_of(ci, sizeof(int));
                size_t total = n * (size_t)tt_size;
                int *sb = is_root ? tt_malloc((total + 1) * sizeof(int)) : NULL;
                int *rb = tt_malloc((n + 1) * sizeof(int));
                if (is_root)
                    for (size_t i = 0; i <= total; i++)
                        sb[i] = i < total ? val((int)(i / n), i % n, 8) : -1;
                for (size_t i = 0; i <= n; i++)
                    rb[i] = -1;
                void *r = kind == IN_PLACE && is_root ? MPI_IN_PLACE : (void *)rb;
                if (kind == QUAD)
                    TT_MPI(MPI_Scatter(sb, (int)(n / 4), quad, r, (int)n, MPI_INT, root,
                                       MPI_COMM_WORLD));
                else
                    TT_MPI(MPI_Scatter(sb, (int)n, MPI_INT, r, (int)n, MPI_INT, root,
                                       MPI_COMM_WORLD));
                if (r != MPI_IN_PLACE)
                    for (size_t i = 0; i < n; i++)
                        if (rb[i] != val(tt_rank, i, 8))
                            TT_FAIL("scatter %zu ints root %d kind %d: [%zu] = %d, "
                                    "expected %d", n, root, kind, i, rb[i],
                                    val(tt_rank, i, 8));
                TT_EQ("scatter guard", -1, rb[n]);
                if (is_root)
                    for (size_t i = 0; i <= total; i++)
                        TT_EQ("scatter: sendbuf changed",
                              i < total ? val((int)(i / n), i % n, 8) : -1, sb[i]);
                free(sb);
                free(rb);
            }
}

/* Gatherv and Scatterv ---------------------------------------------------- */

/* Rank r's count: uneven, zero for every third rank; base scales it. */
static int vcount(int r, size_t base)
{
    return r % 3 == 1 ? 0 : (int)(base + (size_t)r * 3);
}

/* Reverse rank order, a gap of 2 ints after each block. */
static void vlayout(size_t base, int *counts, int *displs, size_t *total)
{
    size_t off = 0;
    for (int r = tt_size - 1; r >= 0; r--) {
        counts[r] = vcount(r, base);
        displs[r] = (int)off;
        off += (size_t)counts[r] + 2;
    }
    *total = off;
}

static void test_gatherv_scatterv(void)
{
    int *counts = tt_malloc((size_t)tt_size * sizeof(int));
    int *displs = tt_malloc((size_t)tt_size * sizeof(int));
    for (size_t ci = 0; ci < NCOUNTS; ci++)
        for (int k = 0; k < nroots(); k++)
            for (int ip = 0; ip < 2; ip++) {
                int root = root_at(k), is_root = tt_rank == root;
                size_t base = count_of(ci, sizeof(int)), total;
                vlayout(base, counts, displs, &total);
                int mine = counts[tt_rank];
                int *big = tt_malloc((total + 1) * sizeof(int));
                int *own = tt_malloc(((size_t)mine + 1) * sizeof(int));

                /* Gatherv: the gaps must keep -1. */
                for (int i = 0; i < mine; i++)
                    own[i] = val(tt_rank, (size_t)i, 9);
                for (size_t i = 0; i <= total; i++)
                    big[i] = -1;
                if (ip && is_root)
                    memcpy(big + displs[root], own, (size_t)mine * sizeof(int));
                TT_MPI(MPI_Gatherv(ip && is_root ? MPI_IN_PLACE : own, mine, MPI_INT, big,
                                   counts, displs, MPI_INT, root, MPI_COMM_WORLD));
                if (is_root)
                    for (int r = 0; r < tt_size; r++)
                        for (int i = 0; i < counts[r] + 2; i++) {
                            int want = i < counts[r] ? val(r, (size_t)i, 9) : -1;
                            if (big[displs[r] + i] != want)
                                TT_FAIL("gatherv base %zu root %d%s: rank %d [%d] = %d, "
                                        "expected %d", base, root, ip ? " in place" : "",
                                        r, i, big[displs[r] + i], want);
                        }

                /* Scatterv: the root's sendbuf stays as it was. */
                for (int r = 0; r < tt_size; r++)
                    for (int i = 0; i < counts[r]; i++)
                        big[displs[r] + i] = val(r, (size_t)i, 10);
                for (int i = 0; i <= mine; i++)
                    own[i] = -1;
                int in_place = ip && is_root;
                TT_MPI(MPI_Scatterv(big, counts, displs, MPI_INT,
                                    in_place ? MPI_IN_PLACE : own, mine, MPI_INT, root,
                                    MPI_COMM_WORLD));
                if (!in_place)
                    for (int i = 0; i < mine; i++)
                        if (own[i] != val(tt_rank, (size_t)i, 10))
                            TT_FAIL("scatterv base %zu root %d: [%d] = %d, expected %d",
                                    base, root, i, own[i], val(tt_rank, (size_t)i, 10));
                TT_EQ("scatterv guard", -1, own[mine]);
                free(big);
                free(own);
            }
    free(counts);
    free(displs);
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "coll_rooted_algos");
    if (argc > 1 && !(big_bytes = tt_parse_size(argv[1])))
        TT_FAIL("bad size '%s' (want e.g. 1M or 65536)", argv[1]);
    MPI_Datatype quad;
    TT_MPI(MPI_Type_contiguous(4, MPI_INT, &quad));
    TT_MPI(MPI_Type_commit(&quad));
    test_bcast();
    test_reduce();
    test_gather(quad);
    test_scatter(quad);
    test_gatherv_scatterv();
    TT_MPI(MPI_Type_free(&quad));
    return tt_finish();
}
