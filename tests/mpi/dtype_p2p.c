/*
 * dtype_p2p: derived datatypes over every point-to-point path.
 *
 * Each rank sends to the next rank on the ring and receives from the
 * previous one (itself in a one-rank job), receive posted first. Every case
 * runs at three sizes: a few elements (eager), tens of KiB (rendezvous:
 * pipelined or, for contiguous data where the host's measurement or
 * TERN_SHM_CMA_MIN=0 says so, single copy) and a large
 * one (many pipelined chunks) whose data size argv[1] sets (default 2M). The send and receive types differ but have the same type
 * signature, and every received byte is compared with values computed here
 * from the sender's rank and the element's index; bytes of the receive
 * buffer outside the type must keep their poison.
 *
 * Cases: vector -> contiguous and back (also as count copies of a resized
 * double); a 3-D C-order subarray received as the Fortran-order subarray of
 * the transposed array, and as contiguous ints; a struct with padding
 * received into a struct of another layout; irregular indexed types on both
 * sides; types freed while an operation using them is pending; MPI_Pack /
 * MPI_Unpack with MPI_PACKED; MPI_Get_count / MPI_Get_elements on a message
 * that ends inside an element; absolute addresses from MPI_BOTTOM;
 * MPI_Sendrecv_replace with a vector; and, where mpi.h is MPI 4 or later,
 * the large-count (_c) forms. What a type reports about itself (extents,
 * names, envelope and contents) and the errors for uncommitted and
 * predefined types move no data and are checked by dtype_query.c.
 */
#include <stddef.h>

#include "tt.h"

#define POISON_D (-12345.5)
#define POISON_I (-777)

static size_t big = (size_t)2 << 20;

static double dval(int rank, size_t i) { return rank * 1000003.0 + (double)i * 0.5 + 1.0; }
static int ival(int rank, size_t i) { return rank * 1000003 + (int)(i % 1000000) * 3 + 1; }

/* Posts the receive, sends, waits; the status is the receive's. */
static void xfer(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, int tag, MPI_Status *st)
{
    MPI_Request req;
    TT_MPI(MPI_Irecv(rbuf, rcount, rtype, tt_prev(), tag, MPI_COMM_WORLD, &req));
    TT_MPI(MPI_Send(sbuf, scount, stype, tt_next(), tag, MPI_COMM_WORLD));
    TT_MPI(MPI_Wait(&req, st));
}

static void case_vector(size_t n)
{
    double *sv = tt_malloc(2 * n * sizeof(double)), *rc = tt_malloc(n * sizeof(double));
    double *rv = tt_malloc(2 * n * sizeof(double));
    MPI_Datatype vec, one;
    MPI_Status st;
    int cnt;
    TT_MPI(MPI_Type_vector((int)n, 1, 2, MPI_DOUBLE, &vec));
    TT_MPI(MPI_Type_commit(&vec));
    for (size_t i = 0; i < n; i++) {
        sv[2 * i] = dval(tt_rank, i);
        sv[2 * i + 1] = POISON_D;
    }
    /* Every other double, received contiguously. */
    xfer(sv, 1, vec, rc, (int)n, MPI_DOUBLE, 1, &st);
    for (size_t i = 0; i < n; i++)
        TT_CHECK(rc[i] == dval(tt_prev(), i), "vector->contig n=%zu: element %zu is %g", n,
                 i, rc[i]);
    TT_MPI(MPI_Get_count(&st, MPI_DOUBLE, &cnt));
    TT_EQ("vector->contig Get_count(MPI_DOUBLE)", n, cnt);
    TT_MPI(MPI_Get_count(&st, vec, &cnt));
    TT_EQ("vector->contig Get_count(vector)", 1, cnt);
    TT_MPI(MPI_Get_elements(&st, vec, &cnt));
    TT_EQ("vector->contig Get_elements(vector)", n, cnt);

    /* Contiguous, received as the vector: the gaps keep their poison. */
    for (size_t i = 0; i < n; i++)
        rc[i] = dval(tt_rank, i + 7);
    for (size_t i = 0; i < 2 * n; i++)
        rv[i] = POISON_D;
    xfer(rc, (int)n, MPI_DOUBLE, rv, 1, vec, 2, &st);
    for (size_t i = 0; i < 2 * n; i++) {
        double want = i % 2 ? POISON_D : dval(tt_prev(), i / 2 + 7);
        TT_CHECK(rv[i] == want, "contig->vector n=%zu: double %zu is %g, want %g", n, i,
                 rv[i], want);
    }

    /* The same as n copies of one double resized to extent 16. */
    TT_MPI(MPI_Type_create_resized(MPI_DOUBLE, 0, 16, &one));
    TT_MPI(MPI_Type_commit(&one));
    for (size_t i = 0; i < 2 * n; i++)
        rv[i] = POISON_D;
    xfer(sv, 1, vec, rv, (int)n, one, 3, &st);
    for (size_t i = 0; i < 2 * n; i++) {
        double want = i % 2 ? POISON_D : dval(tt_prev(), i / 2);
        TT_CHECK(rv[i] == want, "vector->resized n=%zu: double %zu is %g", n, i, rv[i]);
    }
    TT_MPI(MPI_Get_count(&st, one, &cnt));
    TT_EQ("vector->resized Get_count(resized)", n, cnt);
    TT_MPI(MPI_Type_free(&one));
    TT_MPI(MPI_Type_free(&vec));
    free(sv);
    free(rc);
    free(rv);
}

static void case_subarray(size_t n)
{
    int k = (int)(n / 40 > 0 ? n / 40 : 1);
    int sizes[3] = { k + 2, 12, 10 }, sub[3] = { k, 8, 5 }, start[3] = { 1, 2, 3 };
    int fsizes[3] = { 10, 12, k + 2 }, fsub[3] = { 5, 8, k }, fstart[3] = { 3, 2, 1 };
    size_t total = (size_t)sizes[0] * 12 * 10, nsub = (size_t)k * 8 * 5;
    int *a = tt_malloc(total * sizeof(int)), *b = tt_malloc(total * sizeof(int));
    int *c = tt_malloc(nsub * sizeof(int));
    MPI_Datatype cs, fs;
    MPI_Status st;
    TT_MPI(MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_INT, &cs));
    TT_MPI(MPI_Type_create_subarray(3, fsizes, fsub, fstart, MPI_ORDER_FORTRAN, MPI_INT, &fs));
    TT_MPI(MPI_Type_commit(&cs));
    TT_MPI(MPI_Type_commit(&fs));
    MPI_Aint lb, ext;
    TT_MPI(MPI_Type_get_extent(cs, &lb, &ext));
    TT_EQ("subarray lb", 0, lb);
    TT_EQ("subarray extent", total * sizeof(int), ext);
    for (size_t i = 0; i < total; i++) {
        a[i] = ival(tt_rank, i);
        b[i] = POISON_I;
    }
    xfer(a, 1, cs, b, 1, fs, 4, &st);
    xfer(a, 1, cs, c, (int)nsub, MPI_INT, 5, &st);
    size_t m = 0;
    for (int i = 0; i < sizes[0]; i++)
        for (int j = 0; j < 12; j++)
            for (int l = 0; l < 10; l++) {
                size_t idx = ((size_t)i * 12 + (size_t)j) * 10 + (size_t)l;
                int in = i >= 1 && i < 1 + k && j >= 2 && j < 10 && l >= 3 && l < 8;
                int want = in ? ival(tt_prev(), idx) : POISON_I;
                TT_CHECK(b[idx] == want, "subarray n=%zu: (%d,%d,%d) is %d, want %d", n, i, j,
                         l, b[idx], want);
                if (in) {
                    TT_CHECK(c[m] == want, "subarray->contig n=%zu: int %zu is %d, want %d",
                             n, m, c[m], want);
                    m++;
                }
            }
    TT_MPI(MPI_Type_free(&cs));
    TT_MPI(MPI_Type_free(&fs));
    free(a);
    free(b);
    free(c);
}

struct rec { int i; double d; char c[3]; };
struct rec2 { char pad; int i; char c[3]; double d; };

static MPI_Datatype rec_type(MPI_Aint di, MPI_Aint dd, MPI_Aint dc, MPI_Aint extent)
{
    int bl[3] = { 1, 1, 3 };
    MPI_Aint d[3] = { di, dd, dc };
    MPI_Datatype t[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR }, s, r;
    TT_MPI(MPI_Type_create_struct(3, bl, d, t, &s));
    TT_MPI(MPI_Type_create_resized(s, 0, extent, &r));
    TT_MPI(MPI_Type_free(&s));
    TT_MPI(MPI_Type_commit(&r));
    return r;
}

static void case_struct(size_t n)
{
    size_t cnt = n / 4 + 1;
    struct rec *s = tt_malloc(cnt * sizeof(*s));
    struct rec2 *r = tt_malloc(cnt * sizeof(*r));
    MPI_Datatype t1 = rec_type(offsetof(struct rec, i), offsetof(struct rec, d),
                               offsetof(struct rec, c), sizeof(struct rec));
    MPI_Datatype t2 = rec_type(offsetof(struct rec2, i), offsetof(struct rec2, d),
                               offsetof(struct rec2, c), sizeof(struct rec2));
    MPI_Status st;
    int elems;
    memset(s, 0x11, cnt * sizeof(*s));
    memset(r, 0x22, cnt * sizeof(*r));
    for (size_t k = 0; k < cnt; k++) {
        s[k].i = ival(tt_rank, k);
        s[k].d = dval(tt_rank, k);
        for (int j = 0; j < 3; j++)
            s[k].c[j] = (char)('a' + (tt_rank + k + (size_t)j) % 26);
    }
    xfer(s, (int)cnt, t1, r, (int)cnt, t2, 6, &st);
    for (size_t k = 0; k < cnt; k++) {
        TT_CHECK(r[k].i == ival(tt_prev(), k) && r[k].d == dval(tt_prev(), k),
                 "struct n=%zu: record %zu has %d %g", n, k, r[k].i, r[k].d);
        for (int j = 0; j < 3; j++)
            TT_CHECK(r[k].c[j] == (char)('a' + (tt_prev() + k + (size_t)j) % 26),
                     "struct n=%zu: record %zu char %d", n, k, j);
        TT_CHECK(r[k].pad == 0x22, "struct n=%zu: the gap of record %zu was written", n, k);
    }
    TT_MPI(MPI_Get_elements(&st, t2, &elems));
    TT_EQ("struct Get_elements", cnt * 5, elems);
    TT_MPI(MPI_Type_free(&t1));
    TT_MPI(MPI_Type_free(&t2));
    free(s);
    free(r);
}

/* Irregular blocks of ints: length 1 + ((j+shift)*7)%5, a gap of
 * (j+shift)%3 ints before each. *idx gets the index of each int of the
 * typemap, in order, computed here by the same loops; *nidx their number
 * and *span the ints the type covers. */
static MPI_Datatype irregular(size_t n, int shift, int **idx, int *nidx, size_t *span)
{
    int m = (int)(n / 3 + 1);
    int *bl = tt_malloc((size_t)m * sizeof(int)), *d = tt_malloc((size_t)m * sizeof(int));
    int pos = 0, k = 0;
    for (int j = 0; j < m; j++) {
        pos += (j + shift) % 3;
        bl[j] = 1 + ((j + shift) * 7) % 5;
        d[j] = pos;
        pos += bl[j];
    }
    *idx = tt_malloc((size_t)pos * sizeof(int));
    for (int j = 0; j < m; j++)
        for (int b = 0; b < bl[j]; b++)
            (*idx)[k++] = d[j] + b;
    MPI_Datatype t;
    TT_MPI(MPI_Type_indexed(m, bl, d, MPI_INT, &t));
    TT_MPI(MPI_Type_commit(&t));
    *nidx = k;
    *span = (size_t)pos;
    free(bl);
    free(d);
    return t;
}

static void case_indexed(size_t n)
{
    size_t sspan, rspan;
    int *sidx, *ridx, ns, nr, got;
    MPI_Datatype ts = irregular(n, 0, &sidx, &ns, &sspan);
    /* The receive type has other blocks and room for more ints. */
    MPI_Datatype tr = irregular(n + 60, 1, &ridx, &nr, &rspan);
    TT_CHECK(nr > ns, "the receive type is too small");
    int *a = tt_malloc(sspan * sizeof(int)), *b = tt_malloc(rspan * sizeof(int));
    for (size_t i = 0; i < sspan; i++)
        a[i] = ival(tt_rank, i);
    for (size_t i = 0; i < rspan; i++)
        b[i] = POISON_I;
    MPI_Status st;
    xfer(a, 1, ts, b, 1, tr, 7, &st);
    TT_MPI(MPI_Get_elements(&st, tr, &got));
    TT_EQ("indexed Get_elements", ns, got);
    TT_MPI(MPI_Get_count(&st, tr, &got));
    TT_EQ("indexed Get_count (part of one element)", MPI_UNDEFINED, got);
    TT_MPI(MPI_Get_count(&st, MPI_INT, &got));
    TT_EQ("indexed Get_count(MPI_INT)", ns, got);
    for (int e = 0; e < ns; e++) {
        int want = ival(tt_prev(), (size_t)sidx[e]);
        TT_CHECK(b[ridx[e]] == want, "indexed n=%zu: element %d at %d is %d, want %d", n, e,
                 ridx[e], b[ridx[e]], want);
        b[ridx[e]] = POISON_I;
    }
    for (size_t i = 0; i < rspan; i++)
        TT_CHECK(b[i] == POISON_I, "indexed n=%zu: int %zu outside the message written", n, i);
    TT_MPI(MPI_Type_free(&ts));
    TT_MPI(MPI_Type_free(&tr));
    free(a);
    free(b);
    free(sidx);
    free(ridx);
}

/* Types freed by the user while a receive and a send still use them. */
static void case_free_pending(size_t n)
{
    double *sv = tt_malloc(3 * n * sizeof(double)), *rv = tt_malloc(3 * n * sizeof(double));
    MPI_Datatype rt, stype;
    MPI_Request rq, sq;
    TT_MPI(MPI_Type_vector((int)n, 1, 3, MPI_DOUBLE, &rt));
    TT_MPI(MPI_Type_commit(&rt));
    TT_MPI(MPI_Type_dup(rt, &stype));
    for (size_t i = 0; i < 3 * n; i++) {
        sv[i] = dval(tt_rank, i);
        rv[i] = POISON_D;
    }
    TT_MPI(MPI_Irecv(rv, 1, rt, tt_prev(), 8, MPI_COMM_WORLD, &rq));
    TT_MPI(MPI_Type_free(&rt));
    TT_CHECK(rt == MPI_DATATYPE_NULL, "MPI_Type_free did not set MPI_DATATYPE_NULL");
    tt_sync();
    TT_MPI(MPI_Isend(sv, 1, stype, tt_next(), 8, MPI_COMM_WORLD, &sq));
    TT_MPI(MPI_Type_free(&stype));
    TT_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    TT_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (size_t i = 0; i < 3 * n; i++) {
        double want = i % 3 ? POISON_D : dval(tt_prev(), i);
        TT_CHECK(rv[i] == want, "freed types n=%zu: double %zu is %g", n, i, rv[i]);
    }
    free(sv);
    free(rv);
}

static void case_pack(size_t n)
{
    double *v = tt_malloc(2 * n * sizeof(double)), *out = tt_malloc(n * sizeof(double));
    MPI_Datatype vec;
    TT_MPI(MPI_Type_vector((int)n, 1, 2, MPI_DOUBLE, &vec));
    TT_MPI(MPI_Type_commit(&vec));
    int s1, s2, pos = 0;
    TT_MPI(MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &s1));
    TT_MPI(MPI_Pack_size(1, vec, MPI_COMM_WORLD, &s2));
    TT_CHECK(s2 >= (int)(n * sizeof(double)), "MPI_Pack_size of the vector: %d", s2);
    char *pk = tt_malloc((size_t)(s1 + s2)), *rk = tt_malloc((size_t)(s1 + s2));
    for (size_t i = 0; i < 2 * n; i++)
        v[i] = i % 2 ? POISON_D : dval(tt_rank, i / 2);
    int hdr = (int)n + tt_rank;
    TT_MPI(MPI_Pack(&hdr, 1, MPI_INT, pk, s1 + s2, &pos, MPI_COMM_WORLD));
    TT_MPI(MPI_Pack(v, 1, vec, pk, s1 + s2, &pos, MPI_COMM_WORLD));
    MPI_Status st;
    xfer(pk, pos, MPI_PACKED, rk, s1 + s2, MPI_PACKED, 9, &st);
    int got, rpos = 0, rhdr = -1;
    TT_MPI(MPI_Get_count(&st, MPI_PACKED, &got));
    TT_EQ("packed message size", pos, got);
    TT_MPI(MPI_Unpack(rk, got, &rpos, &rhdr, 1, MPI_INT, MPI_COMM_WORLD));
    TT_EQ("unpacked header", (int)n + tt_prev(), rhdr);
    TT_MPI(MPI_Unpack(rk, got, &rpos, out, (int)n, MPI_DOUBLE, MPI_COMM_WORLD));
    TT_EQ("unpack position", got, rpos);
    for (size_t i = 0; i < n; i++)
        TT_CHECK(out[i] == dval(tt_prev(), i), "pack n=%zu: double %zu is %g", n, i, out[i]);
    TT_MPI(MPI_Type_free(&vec));
    free(v);
    free(out);
    free(pk);
    free(rk);
}

static void case_sendrecv_replace(size_t n)
{
    double *v = tt_malloc(2 * n * sizeof(double));
    MPI_Datatype vec;
    MPI_Status st;
    TT_MPI(MPI_Type_vector((int)n, 1, 2, MPI_DOUBLE, &vec));
    TT_MPI(MPI_Type_commit(&vec));
    for (size_t i = 0; i < 2 * n; i++)
        v[i] = i % 2 ? POISON_D : dval(tt_rank, i);
    TT_MPI(MPI_Sendrecv_replace(v, 1, vec, tt_next(), 10, tt_prev(), 10, MPI_COMM_WORLD, &st));
    for (size_t i = 0; i < 2 * n; i++) {
        double want = i % 2 ? POISON_D : dval(tt_prev(), i);
        TT_CHECK(v[i] == want, "Sendrecv_replace n=%zu: double %zu is %g", n, i, v[i]);
    }
    TT_MPI(MPI_Type_free(&vec));
    free(v);
}

static void one_size(size_t n)
{
    case_vector(n);
    case_subarray(n);
    case_struct(n);
    case_indexed(n);
    case_free_pending(n);
    case_pack(n);
    case_sendrecv_replace(n);
}

/* A message that ends inside an element: 2 {int, double} and one int. */
static void case_partial(void)
{
    struct { int i; double d; } s[3], r[3];
    int bl[2] = { 1, 1 }, cnt;
    MPI_Aint d[2] = { offsetof(struct { int i; double d; }, i),
                      offsetof(struct { int i; double d; }, d) };
    MPI_Datatype t[2] = { MPI_INT, MPI_DOUBLE }, st1, st2;
    TT_MPI(MPI_Type_create_struct(2, bl, d, t, &st1));
    TT_MPI(MPI_Type_commit(&st1));
    MPI_Aint lb, ext;
    TT_MPI(MPI_Type_get_extent(st1, &lb, &ext));
    TT_EQ("{int, double} extent", sizeof(s[0]), ext);
    int bl2[2] = { 2, 1 };
    MPI_Aint d2[2] = { 0, 2 * ext };
    MPI_Datatype t2[2] = { st1, MPI_INT };
    TT_MPI(MPI_Type_create_struct(2, bl2, d2, t2, &st2));
    TT_MPI(MPI_Type_commit(&st2));
    for (int k = 0; k < 3; k++) {
        s[k].i = ival(tt_rank, (size_t)k);
        s[k].d = dval(tt_rank, (size_t)k);
        r[k].i = POISON_I;
        r[k].d = POISON_D;
    }
    MPI_Status st;
    MPI_Count big_cnt;
    xfer(s, 1, st2, r, 3, st1, 11, &st);
    TT_MPI(MPI_Get_count(&st, st1, &cnt));
    TT_EQ("partial Get_count", MPI_UNDEFINED, cnt);
    TT_MPI(MPI_Get_elements(&st, st1, &cnt));
    TT_EQ("partial Get_elements", 5, cnt);
    TT_MPI(MPI_Get_elements_x(&st, st1, &big_cnt));
    TT_EQ("partial Get_elements_x", 5, big_cnt);
    TT_MPI(MPI_Get_count(&st, MPI_BYTE, &cnt));
    TT_EQ("partial Get_count(MPI_BYTE)", 2 * (sizeof(int) + sizeof(double)) + sizeof(int), cnt);
    TT_CHECK(r[2].i == ival(tt_prev(), 2) && r[2].d == POISON_D && r[1].d == dval(tt_prev(), 1),
             "partial: wrong data");
    /* Status_set_elements stores the bytes that many basic elements take. */
    TT_MPI(MPI_Status_set_elements(&st, st1, 3));
    TT_MPI(MPI_Get_count(&st, MPI_BYTE, &cnt));
    TT_EQ("Status_set_elements(3 of {int, double}) bytes", 2 * sizeof(int) + sizeof(double),
          cnt);
    TT_MPI(MPI_Type_free(&st1));
    TT_MPI(MPI_Type_free(&st2));
}

/* Absolute addresses: a struct type used with MPI_BOTTOM on both sides. */
static void case_bottom(void)
{
    int si = ival(tt_rank, 1), ri = POISON_I;
    double sd[4], rd[4];
    for (int k = 0; k < 4; k++) {
        sd[k] = dval(tt_rank, (size_t)k);
        rd[k] = POISON_D;
    }
    int bl[2] = { 1, 4 };
    MPI_Aint a[2];
    MPI_Datatype t[2] = { MPI_INT, MPI_DOUBLE }, ts, tr;
    TT_MPI(MPI_Get_address(&si, &a[0]));
    TT_MPI(MPI_Get_address(sd, &a[1]));
    TT_MPI(MPI_Type_create_struct(2, bl, a, t, &ts));
    TT_MPI(MPI_Get_address(&ri, &a[0]));
    TT_MPI(MPI_Get_address(rd, &a[1]));
    TT_MPI(MPI_Type_create_struct(2, bl, a, t, &tr));
    TT_MPI(MPI_Type_commit(&ts));
    TT_MPI(MPI_Type_commit(&tr));
    MPI_Status st;
    xfer(MPI_BOTTOM, 1, ts, MPI_BOTTOM, 1, tr, 12, &st);
    TT_EQ("MPI_BOTTOM int", ival(tt_prev(), 1), ri);
    for (int k = 0; k < 4; k++)
        TT_CHECK(rd[k] == dval(tt_prev(), (size_t)k), "MPI_BOTTOM double %d is %g", k, rd[k]);
    TT_MPI(MPI_Type_free(&ts));
    TT_MPI(MPI_Type_free(&tr));
}

#if MPI_VERSION >= 4
/* The large-count forms (MPI 4), checked against the int forms. */
static void case_large_counts(void)
{
    MPI_Datatype v, s;
    MPI_Count n = 1000, lb, ext, size, nc[4], pos = 0, psize, elems;
    TT_MPI(MPI_Type_vector_c(n, 1, 3, MPI_DOUBLE, &v));
    TT_MPI(MPI_Type_commit(&v));
    TT_MPI(MPI_Type_get_extent_c(v, &lb, &ext));
    TT_CHECK(lb == 0 && ext == ((n - 1) * 3 + 1) * 8, "vector_c extent %lld", (long long)ext);
    TT_MPI(MPI_Type_size_c(v, &size));
    TT_EQ("vector_c size", n * 8, size);
    TT_MPI(MPI_Type_get_true_extent_c(v, &lb, &ext));
    TT_EQ("vector_c true extent", ((n - 1) * 3 + 1) * 8, ext);
    double *a = tt_malloc((size_t)(3 * n) * sizeof(double));
    double *b = tt_malloc((size_t)n * sizeof(double));
    for (MPI_Count i = 0; i < 3 * n; i++)
        a[i] = dval(tt_rank, (size_t)i);
    TT_MPI(MPI_Pack_size_c(1, v, MPI_COMM_WORLD, &psize));
    char *pk = tt_malloc((size_t)psize);
    TT_MPI(MPI_Pack_c(a, 1, v, pk, psize, &pos, MPI_COMM_WORLD));
    TT_EQ("Pack_c position", n * 8, pos);
    pos = 0;
    TT_MPI(MPI_Unpack_c(pk, psize, &pos, b, n, MPI_DOUBLE, MPI_COMM_WORLD));
    for (MPI_Count i = 0; i < n; i++)
        TT_CHECK(b[i] == dval(tt_rank, (size_t)(3 * i)), "Unpack_c double %lld",
                 (long long)i);
    MPI_Status st;
    MPI_Request rq;
    TT_MPI(MPI_Irecv_c(b, n, MPI_DOUBLE, tt_prev(), 14, MPI_COMM_WORLD, &rq));
    TT_MPI(MPI_Send_c(a, 1, v, tt_next(), 14, MPI_COMM_WORLD));
    TT_MPI(MPI_Wait(&rq, &st));
    TT_MPI(MPI_Get_elements_c(&st, v, &elems));
    TT_EQ("Get_elements_c", n, elems);
    for (MPI_Count i = 0; i < n; i++)
        TT_CHECK(b[i] == dval(tt_prev(), (size_t)(3 * i)), "Send_c double %lld", (long long)i);
    MPI_Count bl[2] = { 2, 1 }, disp[2] = { 0, 64 };
    MPI_Datatype t[2] = { MPI_INT, MPI_DOUBLE }, got[2];
    TT_MPI(MPI_Type_create_struct_c(2, bl, disp, t, &s));
    MPI_Count ni, na, nd;
    int comb, ni32, na32, nd32;
    TT_MPI(MPI_Type_get_envelope_c(s, &ni, &na, nc, &nd, &comb));
    TT_CHECK(comb == MPI_COMBINER_STRUCT && ni == 0 && na == 0 && nc[0] == 5 && nd == 2,
             "struct_c envelope: %lld %lld %lld %lld", (long long)ni, (long long)na,
             (long long)nc[0], (long long)nd);
    MPI_Count lc[5];
    TT_MPI(MPI_Type_get_contents_c(s, 0, 0, 5, 2, NULL, NULL, lc, got));
    TT_CHECK(lc[0] == 2 && lc[1] == 2 && lc[2] == 1 && lc[3] == 0 && lc[4] == 64,
             "struct_c contents");
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int rc = MPI_Type_get_envelope(s, &ni32, &na32, &nd32, &comb);
    TT_CHECK(rc != MPI_SUCCESS, "MPI_Type_get_envelope of a type made by a _c constructor");
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    TT_MPI(MPI_Type_free(&s));
    TT_MPI(MPI_Type_free(&v));
    free(a);
    free(b);
    free(pk);
}
#endif

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "dtype_p2p");
    if (argc > 1) {
        big = tt_parse_size(argv[1]);
        if (big < 1024 || big > (size_t)1 << 30)
            TT_FAIL("bad size '%s' (want e.g. 2M, between 1K and 1G)", argv[1]);
    }
    size_t sizes[] = { 5, 4000, big / sizeof(double) };
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        one_size(sizes[i]);
    case_partial();
    case_bottom();
#if MPI_VERSION >= 4
    case_large_counts();
#endif
    return tt_finish();
}
