/*
 * dtype_darray: MPI_Type_create_darray and the external32 pack calls.
 *
 * Darray: for many grids (block, cyclic with and without darg, none, C
 * and Fortran order, blocks cut short at the end, processes that own
 * nothing, a derived old type) every rank of the grid is built and its
 * type packs a global array whose elements hold their own index; the
 * packed indices must be exactly those a brute-force owner function
 * computed here lists, in memory order. Size, lb 0 and an extent of the
 * whole array are checked, and the envelope and contents (combiner
 * MPI_COMBINER_DARRAY, the original arguments, _c form with large counts).
 * Each job also distributes a real array over its own ranks: rank 0 sends
 * every rank its darray part and the ranks check what arrived. The errors:
 * size against prod(psizes), rank, distrib, darg too small for a block,
 * psize != 1 for MPI_DISTRIBUTE_NONE, non-positive sizes, order.
 *
 * External32: byte-exact images of int, double, long (4 bytes, as the
 * standard's table says), long double (IEEE quadruple) and a struct,
 * MPI_Pack_external_size, round trips through MPI_Unpack_external, a
 * vector type, the _c forms, and MPI_ERR_ARG for another datarep and
 * MPI_ERR_TRUNCATE for a short buffer.
 */
#include <stddef.h>

#include "tt.h"

#define MAXD 4

struct grid {
    int ndims, order, size;
    int g[MAXD], distrib[MAXD], darg[MAXD], p[MAXD];
};

/* The block size of dimension d as the standard defines the defaults. */
static int block_of(const struct grid *gr, int d)
{
    if (gr->distrib[d] == MPI_DISTRIBUTE_NONE)
        return gr->g[d];
    if (gr->darg[d] != MPI_DISTRIBUTE_DFLT_DARG)
        return gr->darg[d];
    return gr->distrib[d] == MPI_DISTRIBUTE_CYCLIC ? 1 : (gr->g[d] + gr->p[d] - 1) / gr->p[d];
}

/* Brute force: the global linear indices rank owns, in memory order. */
static int owned_indices(const struct grid *gr, int rank, long *out)
{
    int coord[MAXD], rest = rank, below = gr->size, n = 0;
    for (int d = 0; d < gr->ndims; d++) {
        below /= gr->p[d];
        coord[d] = rest / below;
        rest %= below;
    }
    long total = 1;
    for (int d = 0; d < gr->ndims; d++)
        total *= gr->g[d];
    for (long lin = 0; lin < total; lin++) {
        /* Decompose lin in memory order: C order has the last dim fastest. */
        long t = lin;
        int idx[MAXD], mine = 1;
        for (int k = 0; k < gr->ndims; k++) {
            int d = gr->order == MPI_ORDER_C ? gr->ndims - 1 - k : k;
            idx[d] = (int)(t % gr->g[d]);
            t /= gr->g[d];
        }
        for (int d = 0; d < gr->ndims && mine; d++)
            mine = (idx[d] / block_of(gr, d)) % gr->p[d] == coord[d];
        if (mine)
            out[n++] = lin;
    }
    return n;
}

static MPI_Datatype make(const struct grid *gr, int rank, MPI_Datatype old)
{
    MPI_Datatype t;
    TT_MPI(MPI_Type_create_darray(gr->size, rank, gr->ndims, gr->g, gr->distrib, gr->darg,
                                  gr->p, gr->order, old, &t));
    TT_MPI(MPI_Type_commit(&t));
    return t;
}

/* Every rank of the grid, with MPI_INT and with a pair of ints as old type. */
static void check_grid(const struct grid *gr, const char *what)
{
    long total = 1;
    for (int d = 0; d < gr->ndims; d++)
        total *= gr->g[d];
    int *global = tt_malloc((size_t)total * 2 * sizeof(int));
    int *packed = tt_malloc((size_t)total * 2 * sizeof(int));
    long *want = tt_malloc((size_t)total * sizeof(long));
    MPI_Datatype two;
    TT_MPI(MPI_Type_contiguous(2, MPI_INT, &two));
    for (int rank = 0; rank < gr->size; rank++) {
        int n = owned_indices(gr, rank, want);
        for (int w = 1; w <= 2; w++) {
            MPI_Datatype old = w == 1 ? MPI_INT : two, t = make(gr, rank, old);
            int sz, pos = 0;
            MPI_Aint lb, ext;
            TT_MPI(MPI_Type_size(t, &sz));
            TT_MPI(MPI_Type_get_extent(t, &lb, &ext));
            if (sz != n * w * (int)sizeof(int) || lb != 0 ||
                ext != total * w * (long)sizeof(int))
                TT_FAIL("%s rank %d width %d: size %d lb %ld extent %ld, want %d 0 %ld", what,
                        rank, w, sz, (long)lb, (long)ext, n * w * (int)sizeof(int),
                        total * w * (long)sizeof(int));
            for (long i = 0; i < total * w; i++)
                global[i] = (int)i;
            TT_MPI(MPI_Pack(global, 1, t, packed, (int)(total * 2 * sizeof(int)), &pos,
                            MPI_COMM_SELF));
            for (int i = 0; i < n * w; i++)
                if (packed[i] != want[i / w] * w + i % w)
                    TT_FAIL("%s rank %d width %d: packed element %d is %d, want %ld", what,
                            rank, w, i, packed[i], want[i / w] * w + i % w);
            TT_MPI(MPI_Type_free(&t));
        }
    }
    TT_MPI(MPI_Type_free(&two));
    free(global);
    free(packed);
    free(want);
}

static void case_grids(void)
{
    const int B = MPI_DISTRIBUTE_BLOCK, Cy = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE;
    const int D = MPI_DISTRIBUTE_DFLT_DARG;
    struct grid g[] = {
        { 1, MPI_ORDER_C, 4, { 10 }, { B }, { D }, { 4 } },          /* 3,3,3,1 */
        { 1, MPI_ORDER_C, 4, { 5 }, { B }, { D }, { 4 } },           /* rank 3 owns none */
        { 1, MPI_ORDER_C, 3, { 10 }, { Cy }, { D }, { 3 } },
        { 1, MPI_ORDER_C, 3, { 11 }, { Cy }, { 2 }, { 3 } },         /* short last block */
        { 1, MPI_ORDER_C, 2, { 7 }, { B }, { 5 }, { 2 } },
        { 2, MPI_ORDER_C, 6, { 7, 9 }, { B, Cy }, { D, 2 }, { 2, 3 } },
        { 2, MPI_ORDER_FORTRAN, 6, { 7, 9 }, { B, Cy }, { D, 2 }, { 2, 3 } },
        { 3, MPI_ORDER_C, 4, { 4, 3, 5 }, { Cy, N, B }, { 3, D, D }, { 2, 1, 2 } },
        { 3, MPI_ORDER_FORTRAN, 4, { 4, 3, 5 }, { Cy, N, B }, { 3, D, D }, { 2, 1, 2 } },
        { 4, MPI_ORDER_C, 18, { 6, 3, 2, 2 }, { B, B, N, N }, { D, D, D, D }, { 6, 3, 1, 1 } },
        { 2, MPI_ORDER_C, 1, { 3, 4 }, { N, N }, { D, D }, { 1, 1 } },
    };
    char what[32];
    for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
        snprintf(what, sizeof what, "grid %zu", i);
        check_grid(&g[i], what);
    }
}

/* The standard's kind of use: a 2-D array of doubles over this job's
 * ranks, rank 0 sending each rank its part; checks the receive side. */
static void case_distribute(void)
{
    int dims[2] = { 0, 0 };
    TT_MPI(MPI_Dims_create(tt_size, 2, dims));
    struct grid gr = { 2, MPI_ORDER_C, tt_size, { 6, 5 },
                       { MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK },
                       { 2, MPI_DISTRIBUTE_DFLT_DARG }, { dims[0], dims[1] } };
    long want[30];
    int n = owned_indices(&gr, tt_rank, want);
    double mine[30];
    if (tt_rank == 0) {
        double global[30];
        for (int i = 0; i < 30; i++)
            global[i] = i + 0.5;
        for (int r = 1; r < tt_size; r++) {
            MPI_Datatype t = make(&gr, r, MPI_DOUBLE);
            TT_MPI(MPI_Send(global, 1, t, r, 7, MPI_COMM_WORLD));
            TT_MPI(MPI_Type_free(&t));
        }
        MPI_Datatype t = make(&gr, 0, MPI_DOUBLE);
        TT_MPI(MPI_Sendrecv(global, 1, t, 0, 8, mine, 30, MPI_DOUBLE, 0, 8, MPI_COMM_SELF,
                            MPI_STATUS_IGNORE));
        TT_MPI(MPI_Type_free(&t));
    } else {
        TT_MPI(MPI_Recv(mine, 30, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    for (int i = 0; i < n; i++)
        if (mine[i] != want[i] + 0.5)
            TT_FAIL("distribute: element %d is %g, want %g", i, mine[i], want[i] + 0.5);
}

static void case_contents(void)
{
    int g[2] = { 7, 9 }, di[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC };
    int da[2] = { MPI_DISTRIBUTE_DFLT_DARG, 2 }, p[2] = { 2, 3 };
    MPI_Datatype t, back;
    int ni, na, nd, comb, ints[12];
    MPI_Aint addrs[1];
    TT_MPI(MPI_Type_create_darray(6, 4, 2, g, di, da, p, MPI_ORDER_FORTRAN, MPI_INT, &t));
    TT_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    TT_EQ("darray combiner", MPI_COMBINER_DARRAY, comb);
    TT_EQ("darray num_integers", 12, ni);
    TT_EQ("darray num_addresses", 0, na);
    TT_EQ("darray num_datatypes", 1, nd);
    TT_MPI(MPI_Type_get_contents(t, 12, 0, 1, ints, addrs, &back));
    int want[12] = { 6, 4, 2, 7, 9, di[0], di[1], da[0], da[1], 2, 3, MPI_ORDER_FORTRAN };
    for (int i = 0; i < 12; i++)
        TT_EQ("darray contents integer", want[i], ints[i]);
    TT_CHECK(back == MPI_INT, "darray contents: the old type is not MPI_INT");
    TT_MPI(MPI_Type_free(&t));

    MPI_Count gc[2] = { 7, 9 }, cnt[4], large[2];
    TT_MPI(MPI_Type_create_darray_c(6, 4, 2, gc, di, da, p, MPI_ORDER_C, MPI_INT, &t));
    TT_MPI(MPI_Type_get_envelope_c(t, &cnt[0], &cnt[1], &cnt[2], &cnt[3], &comb));
    TT_EQ("darray_c combiner", MPI_COMBINER_DARRAY, comb);
    TT_EQ("darray_c num_integers", 10, cnt[0]);
    TT_EQ("darray_c num_large_counts", 2, cnt[2]);
    TT_MPI(MPI_Type_get_contents_c(t, 10, 0, 2, 1, ints, addrs, large, &back));
    TT_EQ("darray_c gsizes[0]", 7, large[0]);
    TT_EQ("darray_c gsizes[1]", 9, large[1]);
    TT_EQ("darray_c order", MPI_ORDER_C, ints[9]);
    MPI_Aint lb, ext;
    TT_MPI(MPI_Type_get_extent(t, &lb, &ext));
    TT_EQ("darray_c extent", 63 * (long)sizeof(int), ext);
    TT_MPI(MPI_Type_free(&t));
}

static void case_errors(void)
{
    const int B = MPI_DISTRIBUTE_BLOCK, D = MPI_DISTRIBUTE_DFLT_DARG;
    int g[2] = { 8, 8 }, di[2] = { B, B }, da[2] = { D, D }, p[2] = { 2, 2 };
    MPI_Datatype t = MPI_DATATYPE_NULL;
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
#define BAD(...) TT_EXPECT_CLASS(MPI_Type_create_darray(__VA_ARGS__, MPI_INT, &t), MPI_ERR_ARG)
    BAD(5, 0, 2, g, di, da, p, MPI_ORDER_C);              /* size != prod(psizes) */
    BAD(4, 4, 2, g, di, da, p, MPI_ORDER_C);              /* rank >= size */
    BAD(4, 0, 2, g, di, da, p, 99);                       /* order */
    int badd[2] = { B, 42 };
    BAD(4, 0, 2, g, badd, da, p, MPI_ORDER_C);            /* distrib */
    int small[2] = { 3, D };
    BAD(4, 0, 2, g, di, small, p, MPI_ORDER_C);           /* 3 * 2 < 8 */
    int none[2] = { MPI_DISTRIBUTE_NONE, B };
    BAD(4, 0, 2, g, none, da, p, MPI_ORDER_C);            /* NONE with psize 2 */
    int neg[2] = { -8, 8 };
    BAD(4, 0, 2, neg, di, da, p, MPI_ORDER_C);            /* gsize < 1 */
    int zero[2] = { 0, 8 };
    BAD(4, 0, 2, zero, di, da, p, MPI_ORDER_C);
    int zdarg[2] = { 0, D };
    int cy[2] = { MPI_DISTRIBUTE_CYCLIC, B };
    BAD(4, 0, 2, g, cy, zdarg, p, MPI_ORDER_C);           /* darg 0 */
    int pneg[2] = { -2, -2 };
    BAD(4, 0, 2, g, di, da, pneg, MPI_ORDER_C);           /* psize < 1 */
#undef BAD
    TT_CHECK(t == MPI_DATATYPE_NULL, "a failed MPI_Type_create_darray set newtype");
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
}

/* ---- external32 ------------------------------------------------------- */

static void check_image(const void *in, int count, MPI_Datatype t, const unsigned char *want,
                        int nwant, void *back, size_t backlen, const char *what)
{
    unsigned char buf[256];
    MPI_Aint size, pos = 0;
    TT_MPI(MPI_Pack_external_size("external32", count, t, &size));
    TT_EQ(what, nwant, size);
    TT_MPI(MPI_Pack_external("external32", in, count, t, buf, sizeof buf, &pos));
    TT_EQ(what, nwant, pos);
    for (int i = 0; i < nwant; i++)
        if (buf[i] != want[i])
            TT_FAIL("%s: byte %d is 0x%02x, want 0x%02x", what, i, buf[i], want[i]);
    memset(back, 0, backlen);
    pos = 0;
    TT_MPI(MPI_Unpack_external("external32", buf, nwant, &pos, back, count, t));
    TT_EQ(what, nwant, pos);
}

struct rec {
    int i;
    double d;
    long l;
    char c;
};

static void case_external(void)
{
    int iv[2] = { 1, -2 }, ib[2];
    const unsigned char ix[] = { 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe };
    check_image(iv, 2, MPI_INT, ix, 8, ib, sizeof ib, "external32 int");
    TT_CHECK(!memcmp(iv, ib, sizeof iv), "external32 int round trip");

    double dv[2] = { 1.0, -2.5 }, db[2];
    const unsigned char dx[] = { 0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0xc0, 0x04, 0, 0, 0, 0, 0, 0 };
    check_image(dv, 2, MPI_DOUBLE, dx, 16, db, sizeof db, "external32 double");
    TT_CHECK(db[0] == 1.0 && db[1] == -2.5, "external32 double round trip");

    long lv[2] = { 1, -2 }, lb2[2];
    check_image(lv, 2, MPI_LONG, ix, 8, lb2, sizeof lb2, "external32 long");
    TT_CHECK(lb2[0] == 1 && lb2[1] == -2, "external32 long round trip (sign extension)");

    long double xv[1] = { 1.5L }, xb[1];
    const unsigned char xx[16] = { 0x3f, 0xff, 0x80 };
    check_image(xv, 1, MPI_LONG_DOUBLE, xx, 16, xb, sizeof xb, "external32 long double");
    TT_CHECK(xb[0] == 1.5L, "external32 long double round trip");

    /* A struct of int, double, long and char: 4 + 8 + 4 + 1 bytes, no gaps. */
    struct rec r[2] = { { 7, 0.5, -3, 'A' }, { -1, 2.0, 65536, 'z' } }, rb[2];
    int bl[4] = { 1, 1, 1, 1 };
    MPI_Aint disp[4] = { offsetof(struct rec, i), offsetof(struct rec, d),
                         offsetof(struct rec, l), offsetof(struct rec, c) };
    MPI_Datatype ty[4] = { MPI_INT, MPI_DOUBLE, MPI_LONG, MPI_CHAR }, st, sr;
    TT_MPI(MPI_Type_create_struct(4, bl, disp, ty, &st));
    TT_MPI(MPI_Type_create_resized(st, 0, sizeof(struct rec), &sr));
    TT_MPI(MPI_Type_commit(&sr));
    const unsigned char sx[] = {
        0, 0, 0, 7, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xfd, 'A',
        0xff, 0xff, 0xff, 0xff, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 'z' };
    check_image(r, 2, sr, sx, 34, rb, sizeof rb, "external32 struct");
    for (int k = 0; k < 2; k++)
        TT_CHECK(rb[k].i == r[k].i && rb[k].d == r[k].d && rb[k].l == r[k].l &&
                 rb[k].c == r[k].c, "external32 struct round trip, element %d", k);

    /* A vector of ints: the corners of a 3x3 array, through the _c forms. */
    int a[9] = { 1, -1, 2, -2, -3, -4, 3, -5, 4 }, ab[9] = { 0 };
    MPI_Datatype v;
    TT_MPI(MPI_Type_vector(2, 2, 6, MPI_INT, &v));
    TT_MPI(MPI_Type_commit(&v));
    unsigned char vb[16];
    MPI_Count vsize, vpos = 0;
    TT_MPI(MPI_Pack_external_size_c("external32", 1, v, &vsize));
    TT_EQ("external32 vector size", 16, vsize);
    TT_MPI(MPI_Pack_external_c("external32", a, 1, v, vb, 16, &vpos));
    TT_CHECK(vb[3] == 1 && vb[7] == 0xff && vb[11] == 3 && vb[15] == 0xfb,
             "external32 vector image");
    vpos = 0;
    TT_MPI(MPI_Unpack_external_c("external32", vb, 16, &vpos, ab, 1, v));
    TT_CHECK(ab[0] == 1 && ab[1] == -1 && ab[6] == 3 && ab[7] == -5 && ab[2] == 0,
             "external32 vector round trip");

    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_Aint sz, pos = 0;
    TT_EXPECT_CLASS(MPI_Pack_external_size("native", 1, MPI_INT, &sz), MPI_ERR_ARG);
    TT_EXPECT_CLASS(MPI_Pack_external("internal", iv, 2, MPI_INT, vb, 16, &pos), MPI_ERR_ARG);
    TT_EXPECT_CLASS(MPI_Pack_external("external32", iv, 2, MPI_INT, vb, 7, &pos),
                    MPI_ERR_TRUNCATE);
    TT_EXPECT_CLASS(MPI_Unpack_external("external32", vb, 4, &pos, ib, 2, MPI_INT),
                    MPI_ERR_TRUNCATE);
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    TT_MPI(MPI_Type_free(&v));
    TT_MPI(MPI_Type_free(&st));
    TT_MPI(MPI_Type_free(&sr));
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "dtype_darray");
    case_grids();
    case_distribute();
    case_contents();
    case_errors();
    case_external();
    return tt_finish();
}
