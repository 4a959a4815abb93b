/*
 * The datatype engine: sizes, extents and true extents of predefined and
 * derived types, and pack/unpack of every constructor checked against a
 * reference typemap built here by hand.
 *
 * The reference is the standard's definition written out as plain loops:
 * a list of (offset, length) basic entries per element, in typemap order.
 * From it the test derives, for `count` elements, the user-buffer offset of
 * every packed byte, and packs, unpacks and unpacks windows byte by byte.
 * The engine's tree, merging and strided loops share nothing with it.
 */
#include <complex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "libmpi/core/datatype.h"
#include "tern/err.h"
#include "tests/unit/cunit_main.h"

/* ---- Reference typemaps ------------------------------------------------ */

struct ref {
    size_t n, cap;
    long *off;
    size_t *len;
};

static void ref_add(struct ref *r, long off, size_t len)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 16;
        r->off = realloc(r->off, r->cap * sizeof(*r->off));
        r->len = realloc(r->len, r->cap * sizeof(*r->len));
    }
    r->off[r->n] = off;
    r->len[r->n++] = len;
}

static void ref_free(struct ref *r)
{
    free(r->off);
    free(r->len);
    memset(r, 0, sizeof(*r));
}

/* One copy of old at displacement d appended to r. */
static void ref_place(struct ref *r, const struct ref *old, long d)
{
    for (size_t i = 0; i < old->n; i++)
        ref_add(r, old->off[i] + d, old->len[i]);
}

static struct ref ref_basic(size_t size)
{
    struct ref r = { 0 };
    ref_add(&r, 0, size);
    return r;
}

static struct ref ref_hvector(int count, int bl, long stride, const struct ref *old, long ext)
{
    struct ref r = { 0 };
    for (int i = 0; i < count; i++)
        for (int j = 0; j < bl; j++)
            ref_place(&r, old, i * stride + j * ext);
    return r;
}

static struct ref ref_hindexed(int n, const int *bl, const long *disp, const struct ref *old,
                               long ext)
{
    struct ref r = { 0 };
    for (int i = 0; i < n; i++)
        for (int j = 0; j < bl[i]; j++)
            ref_place(&r, old, disp[i] + j * ext);
    return r;
}

static size_t ref_size(const struct ref *r)
{
    size_t s = 0;
    for (size_t i = 0; i < r->n; i++)
        s += r->len[i];
    return s;
}

/* The user offset of every packed byte of count elements. */
static long *ref_map(const struct ref *r, long ext, size_t count, size_t *total)
{
    size_t per = ref_size(r), k = 0;
    *total = per * count;
    long *map = malloc((*total ? *total : 1) * sizeof(*map));
    for (size_t e = 0; e < count; e++)
        for (size_t i = 0; i < r->n; i++)
            for (size_t b = 0; b < r->len[i]; b++)
                map[k++] = (long)e * ext + r->off[i] + (long)b;
    return map;
}

/* ---- Checking a type against its reference ----------------------------- */

#define PAD 4096

/* The user buffer spans every offset the map touches, with PAD around. */
static void span(const long *map, size_t total, long *lo, long *hi)
{
    *lo = 0;
    *hi = 0;
    for (size_t i = 0; i < total; i++) {
        if (map[i] < *lo)
            *lo = map[i];
        if (map[i] + 1 > *hi)
            *hi = map[i] + 1;
    }
}

static void check_windows(const struct tern_dtype *dt, size_t count, const long *map,
                          size_t total, const unsigned char *user, unsigned char *packed,
                          unsigned char *buf, size_t blen, unsigned char *ubase)
{
    size_t cuts[][2] = { { 0, 1 }, { 1, 7 }, { 3, total / 3 }, { total / 2, total - total / 2 },
                         { total / 5, total / 4 }, { total - 1, 1 }, { 0, total } };
    unsigned char *win = malloc(total + 1);
    for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
        size_t off = cuts[c][0], len = cuts[c][1];
        if (off >= total || off + len > total || len == 0)
            continue;
        memset(win, 0xEE, total + 1);
        tern_dtype_pack_range(dt, user, count, off, len, win);
        CU_ASSERT(memcmp(win, packed + off, len) == 0);
        CU_ASSERT_EQUAL(win[len], 0xEE);
        /* Unpacking the window writes exactly its bytes. */
        memset(buf, 0x5A, blen);
        tern_dtype_unpack_range(dt, packed + off, count, off, len, ubase);
        int good = 1;
        for (size_t i = 0; i < total; i++) {
            unsigned char want = (i >= off && i < off + len) ? packed[i] : 0x5A;
            if (ubase[map[i]] != want)
                good = 0;
        }
        CU_ASSERT(good);
    }
    free(win);
}

/* Packs and unpacks count elements of dt and compares with the reference. */
static void check_type(const struct tern_dtype *dt, const struct ref *r, size_t count)
{
    size_t total;
    long *map = ref_map(r, dt->extent, count, &total), lo, hi;
    CU_ASSERT_EQUAL_FATAL(dt->size * count, total);
    span(map, total, &lo, &hi);
    size_t blen = (size_t)(hi - lo) + 2 * PAD;
    unsigned char *buf = malloc(blen), *src = malloc(blen);
    unsigned char *ubase = buf + PAD - lo, *user = src + PAD - lo;
    unsigned char *packed = malloc(total + 1), *want = malloc(total + 1);
    for (size_t i = 0; i < blen; i++)
        src[i] = (unsigned char)(i * 131 + 7);
    for (size_t i = 0; i < total; i++)
        want[i] = user[map[i]];
    memset(packed, 0xEE, total + 1);
    tern_dtype_pack(dt, user, count, packed);
    CU_ASSERT(memcmp(packed, want, total) == 0);
    CU_ASSERT_EQUAL(packed[total], 0xEE);

    /* Unpack: the typemap's bytes get the data, every other byte stays. */
    memset(buf, 0x5A, blen);
    tern_dtype_unpack(dt, packed, total, ubase);
    unsigned char *expect = malloc(blen);
    memset(expect, 0x5A, blen);
    for (size_t i = 0; i < total; i++)
        expect[PAD - lo + map[i]] = packed[i];
    CU_ASSERT(memcmp(buf, expect, blen) == 0);

    /* A short message: only the first part arrives. */
    size_t part = total * 2 / 3 + (total > 2);
    if (part < total) {
        memset(buf, 0x5A, blen);
        tern_dtype_unpack(dt, packed, part, ubase);
        int good = 1;
        for (size_t i = 0; i < total; i++)
            if (ubase[map[i]] != (i < part ? packed[i] : 0x5A))
                good = 0;
        CU_ASSERT(good);
    }
    check_windows(dt, count, map, total, user, packed, buf, blen, ubase);
    free(expect);
    free(map);
    free(buf);
    free(src);
    free(packed);
    free(want);
}

static const struct tern_dtype *T(MPI_Datatype h)
{
    return tern_dtype_get(h);
}

static void check_bounds(const struct tern_dtype *dt, long lb, long extent, long tlb, long text)
{
    CU_ASSERT_EQUAL(dt->lb, lb);
    CU_ASSERT_EQUAL(dt->extent, extent);
    CU_ASSERT_EQUAL(dt->true_lb, tlb);
    CU_ASSERT_EQUAL(dt->true_extent, text);
}

/* ---- Predefined types -------------------------------------------------- */

static void test_sizes(void)
{
    CU_ASSERT_EQUAL(T(MPI_CHAR)->size, 1);
    CU_ASSERT_EQUAL(T(MPI_INT)->size, sizeof(int));
    CU_ASSERT_EQUAL(T(MPI_LONG)->size, sizeof(long));
    CU_ASSERT_EQUAL(T(MPI_DOUBLE)->size, sizeof(double));
    CU_ASSERT_EQUAL(T(MPI_LONG_DOUBLE)->size, sizeof(long double));
    CU_ASSERT_EQUAL(T(MPI_C_DOUBLE_COMPLEX)->size, sizeof(double _Complex));
    CU_ASSERT_EQUAL(T(MPI_INT64_T)->size, 8);
    CU_ASSERT_EQUAL(T(MPI_AINT)->size, sizeof(MPI_Aint));
    CU_ASSERT_EQUAL(T(MPI_WCHAR)->size, sizeof(wchar_t));
    CU_ASSERT_EQUAL(T(MPI_DOUBLE_INT)->size, sizeof(double) + sizeof(int));
    CU_ASSERT_EQUAL(T(MPI_DOUBLE_INT)->extent, (MPI_Aint)sizeof(struct { double d; int i; }));
    CU_ASSERT_EQUAL(T(MPI_DOUBLE_INT)->true_extent, 12);
    CU_ASSERT_EQUAL(T(MPI_LONG_DOUBLE_INT)->extent,
                    (MPI_Aint)sizeof(struct { long double d; int i; }));
    CU_ASSERT_EQUAL(T(MPI_INT)->lb, 0);
    CU_ASSERT_STRING_EQUAL(T(MPI_INT)->name, "MPI_INT");
    CU_ASSERT_STRING_EQUAL(T(MPI_UNSIGNED_LONG_LONG)->name, "MPI_UNSIGNED_LONG_LONG");
    CU_ASSERT_PTR_EQUAL(T(MPI_FLOAT)->basic, T(MPI_FLOAT));
    CU_ASSERT_PTR_NULL(tern_dtype_get(MPI_DATATYPE_NULL));
    CU_ASSERT_PTR_NULL(tern_dtype_get((MPI_Datatype)0x2ff));
    CU_ASSERT_PTR_NULL(tern_dtype_lookup((MPI_Datatype)0x0ff));
}

static void test_contig(void)
{
    CU_ASSERT(tern_dtype_contig(T(MPI_INT), 1000));
    CU_ASSERT(tern_dtype_contig(T(MPI_DOUBLE_INT), 1));
    CU_ASSERT(!tern_dtype_contig(T(MPI_DOUBLE_INT), 2));
    CU_ASSERT(!tern_dtype_contig(T(MPI_SHORT_INT), 1));
    CU_ASSERT(tern_dtype_contig(T(MPI_SHORT_INT), 0));
}

static void test_pack_short_int(void)
{
    struct si { short s; int i; } in[3] = { { 1, 10 }, { 2, 20 }, { 3, 30 } }, out[3];
    const struct tern_dtype *dt = T(MPI_SHORT_INT);
    unsigned char packed[3 * (sizeof(short) + sizeof(int))];
    memset(out, 0x55, sizeof(out));
    tern_dtype_pack(dt, in, 3, packed);
    CU_ASSERT_EQUAL(dt->size * 3, sizeof(packed));
    tern_dtype_unpack(dt, packed, sizeof(packed), out);
    for (int k = 0; k < 3; k++) {
        CU_ASSERT_EQUAL(out[k].s, in[k].s);
        CU_ASSERT_EQUAL(out[k].i, in[k].i);
    }
    /* A short message unpacks only what arrived. */
    struct si part[2];
    memset(part, 0x55, sizeof(part));
    tern_dtype_unpack(dt, packed, dt->size + sizeof(short), part);
    CU_ASSERT_EQUAL(part[0].i, 10);
    CU_ASSERT_EQUAL(part[1].s, 2);
    CU_ASSERT_EQUAL(part[1].i, 0x55555555);
}

/* ---- Derived types ----------------------------------------------------- */

static struct tern_dtype *hvec(size_t count, size_t bl, MPI_Aint stride,
                               const struct tern_dtype *old)
{
    struct tern_dtype *dt = NULL;
    const char *why;
    CU_ASSERT_EQUAL_FATAL(tern_dtype_hvector(count, bl, stride, old, &dt, &why), 0);
    dt->committed = 1;
    return dt;
}

static struct tern_dtype *hidx(size_t n, const size_t *bl, const MPI_Aint *d,
                               const struct tern_dtype *old)
{
    struct tern_dtype *dt = NULL;
    const char *why;
    CU_ASSERT_EQUAL_FATAL(tern_dtype_hindexed(n, bl, d, old, &dt, &why), 0);
    dt->committed = 1;
    return dt;
}

static void test_contiguous(void)
{
    struct tern_dtype *c = hvec(100, 1, T(MPI_INT)->extent, T(MPI_INT));
    CU_ASSERT_EQUAL(c->size, 400);
    check_bounds(c, 0, 400, 0, 400);
    CU_ASSERT_EQUAL(c->nnode, 1);
    CU_ASSERT(tern_dtype_contig(c, 1));
    CU_ASSERT(tern_dtype_contig(c, 7));
    CU_ASSERT_PTR_EQUAL(c->basic, T(MPI_INT));
    struct ref ri = ref_basic(4), r = ref_hvector(100, 1, 4, &ri, 4);
    check_type(c, &r, 3);
    ref_free(&r);
    /* Contiguous of a type with a gap keeps the gap. */
    struct tern_dtype *g = hvec(3, 1, T(MPI_SHORT_INT)->extent, T(MPI_SHORT_INT));
    struct ref rs = { 0 };
    ref_add(&rs, 0, sizeof(short));
    ref_add(&rs, 4, sizeof(int));
    r = ref_hvector(3, 1, 8, &rs, 8);
    check_type(g, &r, 2);
    CU_ASSERT(!tern_dtype_contig(g, 1));
    ref_free(&r);
    ref_free(&rs);
    ref_free(&ri);
    tern_dtype_free(g);
    tern_dtype_free(c);
}

static void test_vector(void)
{
    /* vector(5, 2, 3, double): blocks of 2 every 3 doubles. */
    struct tern_dtype *v = hvec(5, 2, 3 * 8, T(MPI_DOUBLE));
    check_bounds(v, 0, ((5 - 1) * 3 + 2) * 8, 0, ((5 - 1) * 3 + 2) * 8);
    CU_ASSERT_EQUAL(v->nnode, 2);
    struct ref rd = ref_basic(8), r = ref_hvector(5, 2, 24, &rd, 8);
    check_type(v, &r, 1);
    check_type(v, &r, 4);
    ref_free(&r);
    CU_ASSERT(!tern_dtype_contig(v, 1));
    tern_dtype_free(v);

    /* A negative stride: vector(3, 2, -5, int), as Open MPI reports it. */
    struct tern_dtype *n = hvec(3, 2, -5 * 4, T(MPI_INT));
    check_bounds(n, -40, 48, -40, 48);
    struct ref ri = ref_basic(4);
    r = ref_hvector(3, 2, -20, &ri, 4);
    check_type(n, &r, 3);
    ref_free(&r);
    tern_dtype_free(n);

    /* Blocks that touch are one run: vector(4, 3, 3, int). */
    struct tern_dtype *t = hvec(4, 3, 12, T(MPI_INT));
    CU_ASSERT_EQUAL(t->nnode, 1);
    CU_ASSERT(tern_dtype_contig(t, 5));
    tern_dtype_free(t);

    /* Runs of every length class the strided loop has: 12, 80, 320 bytes. */
    struct ref rf = ref_basic(4);
    struct { size_t count, bl; long stride; const struct ref *old; size_t es; } cases[] = {
        { 7, 3, 20, &rf, 4 }, { 5, 10, 100, &rd, 8 }, { 3, 40, 400, &rd, 8 },
        { 9, 3, -24, &rd, 8 },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct tern_dtype *m = hvec(cases[i].count, cases[i].bl, cases[i].stride,
                                    T(cases[i].es == 4 ? MPI_FLOAT : MPI_DOUBLE));
        r = ref_hvector((int)cases[i].count, (int)cases[i].bl, cases[i].stride, cases[i].old,
                        (long)cases[i].es);
        check_type(m, &r, 3);
        ref_free(&r);
        tern_dtype_free(m);
    }
    ref_free(&rf);

    /* A vector of 1,000,000 doubles with stride 2 is two nodes. */
    struct tern_dtype *big = hvec(1000000, 1, 16, T(MPI_DOUBLE));
    CU_ASSERT_EQUAL(big->nnode, 2);
    CU_ASSERT_EQUAL(big->node[0].kind, TERN_DT_VEC);
    CU_ASSERT_EQUAL(big->node[0].count, 1000000);
    CU_ASSERT_EQUAL(big->node[1].kind, TERN_DT_RUN);
    CU_ASSERT_EQUAL(big->node[1].size, 8);
    r = ref_hvector(1000000, 1, 16, &rd, 8);
    check_type(big, &r, 1);
    ref_free(&r);
    tern_dtype_free(big);
    ref_free(&ri);
    ref_free(&rd);
}

static void test_nested(void)
{
    /* hvector(3, 2, 200 bytes) of vector(4, 1, 3, short), packed twice. */
    struct tern_dtype *in = hvec(4, 1, 6, T(MPI_SHORT));
    CU_ASSERT_EQUAL(in->extent, (3 * 3 + 1) * 2);
    struct tern_dtype *out = hvec(3, 2, 200, in);
    struct ref rs = ref_basic(2), r1 = ref_hvector(4, 1, 6, &rs, 2);
    struct ref r2 = ref_hvector(3, 2, 200, &r1, in->extent);
    CU_ASSERT_EQUAL(out->extent, 2 * 200 + 2 * 20);
    check_type(out, &r2, 2);
    /* Freeing the inner type's handle leaves the outer one working. */
    CU_ASSERT_EQUAL(in->refs, 2);
    tern_dtype_free(in);
    CU_ASSERT_EQUAL(in->refs, 1);
    CU_ASSERT_PTR_NULL(tern_dtype_lookup(in->handle));
    check_type(out, &r2, 2);
    tern_dtype_free(out);
    ref_free(&rs);
    ref_free(&r1);
    ref_free(&r2);
}

static void test_indexed(void)
{
    /* Irregular blocks, one empty, not in address order. */
    size_t bl[] = { 2, 0, 3, 1 };
    MPI_Aint d[] = { 5 * 4, 1 * 4, 0, 10 * 4 };
    int ibl[] = { 2, 0, 3, 1 };
    long ld[] = { 20, 4, 0, 40 };
    struct tern_dtype *x = hidx(4, bl, d, T(MPI_INT));
    check_bounds(x, 0, 44, 0, 44);
    struct ref ri = ref_basic(4), r = ref_hindexed(4, ibl, ld, &ri, 4);
    check_type(x, &r, 3);
    ref_free(&r);
    tern_dtype_free(x);

    /* Equal blocks at equal spacing become a vector; touching ones a run. */
    size_t bl2[] = { 2, 2, 2 };
    MPI_Aint d2[] = { 0, 40, 80 }, d3[] = { 0, 8, 16 };
    struct tern_dtype *v = hidx(3, bl2, d2, T(MPI_INT));
    CU_ASSERT_EQUAL(v->nnode, 2);
    CU_ASSERT_EQUAL(v->node[0].kind, TERN_DT_VEC);
    struct tern_dtype *c = hidx(3, bl2, d3, T(MPI_INT));
    CU_ASSERT_EQUAL(c->nnode, 1);
    CU_ASSERT(tern_dtype_contig(c, 2));
    tern_dtype_free(v);
    tern_dtype_free(c);

    /* Irregular blocks that touch merge into one entry. */
    size_t bl5[] = { 1, 2, 1 };
    MPI_Aint d5[] = { 0, 4, 40 };
    int ibl5[] = { 1, 2, 1 };
    long ld5[] = { 0, 4, 40 };
    struct tern_dtype *m = hidx(3, bl5, d5, T(MPI_INT));
    CU_ASSERT_EQUAL(m->node[0].kind, TERN_DT_IDX);
    CU_ASSERT_EQUAL(m->node[0].count, 2);
    r = ref_hindexed(3, ibl5, ld5, &ri, 4);
    check_type(m, &r, 3);
    ref_free(&r);
    tern_dtype_free(m);

    /* hindexed of a non-contiguous type with negative displacements. */
    struct tern_dtype *col = hvec(3, 1, 16, T(MPI_INT));
    size_t bl4[] = { 1, 2, 1 };
    MPI_Aint d4[] = { -100, 8, 300 };
    int ibl4[] = { 1, 2, 1 };
    long ld4[] = { -100, 8, 300 };
    struct tern_dtype *h = hidx(3, bl4, d4, col);
    struct ref rc = ref_hvector(3, 1, 16, &ri, 4);
    r = ref_hindexed(3, ibl4, ld4, &rc, col->extent);
    check_bounds(h, -100, 300 + 36 + 100, -100, 436);
    check_type(h, &r, 2);
    ref_free(&r);
    ref_free(&rc);
    tern_dtype_free(h);
    tern_dtype_free(col);
    ref_free(&ri);
}

static void test_struct(void)
{
    /* {int, double, char[3]} at 0, 8, 16: padded to 24 like the C struct. */
    const struct tern_dtype *types[] = { T(MPI_INT), T(MPI_DOUBLE), T(MPI_CHAR) };
    size_t bl[] = { 1, 1, 3 };
    MPI_Aint d[] = { 0, 8, 16 };
    struct tern_dtype *s = NULL;
    const char *why;
    CU_ASSERT_EQUAL_FATAL(tern_dtype_struct(3, bl, d, types, &s, &why), 0);
    s->committed = 1;
    check_bounds(s, 0, 24, 0, 19);
    CU_ASSERT_EQUAL(s->size, 15);
    CU_ASSERT_PTR_NULL(s->basic);
    struct ref r = { 0 };
    ref_add(&r, 0, 4);
    ref_add(&r, 8, 8);
    for (int k = 0; k < 3; k++)
        ref_add(&r, 16 + k, 1);
    check_type(s, &r, 5);
    /* The fields at 8 and 16 touch, so they are one run. */
    CU_ASSERT_EQUAL(s->nnode, 3);
    ref_free(&r);

    /* Basic elements: a prefix ending inside a double is undefined. */
    CU_ASSERT_EQUAL(tern_dtype_elements(s, 15 + 4 + 8), 5 + 2);
    CU_ASSERT_EQUAL(tern_dtype_elements(s, 15 + 6), MPI_UNDEFINED);
    CU_ASSERT_EQUAL(tern_dtype_elements(s, 15 + 12 + 2), 5 + 4);
    CU_ASSERT_EQUAL(tern_dtype_elements_bytes(s, 5 + 4), 15 + 14);
    CU_ASSERT_EQUAL(tern_dtype_elements(T(MPI_INT), 6), MPI_UNDEFINED);
    CU_ASSERT_EQUAL(tern_dtype_elements(T(MPI_INT), 8), 2);
    tern_dtype_free(s);

    /* {double, char}: extent 16 (alignment padding). */
    const struct tern_dtype *t2[] = { T(MPI_DOUBLE), T(MPI_CHAR) };
    size_t bl2[] = { 1, 1 };
    MPI_Aint d2[] = { 0, 8 };
    CU_ASSERT_EQUAL_FATAL(tern_dtype_struct(2, bl2, d2, t2, &s, &why), 0);
    check_bounds(s, 0, 16, 0, 9);
    CU_ASSERT_EQUAL(s->nnode, 1);
    tern_dtype_free(s);

    /* Fields of one basic type keep `basic`; an empty struct has no data. */
    const struct tern_dtype *t3[] = { T(MPI_INT), T(MPI_INT) };
    MPI_Aint d3[] = { 8, 0 };
    CU_ASSERT_EQUAL_FATAL(tern_dtype_struct(2, bl2, d3, t3, &s, &why), 0);
    CU_ASSERT_PTR_EQUAL(s->basic, T(MPI_INT));
    r = (struct ref){ 0 };
    ref_add(&r, 8, 4);
    ref_add(&r, 0, 4);
    s->committed = 1;
    check_type(s, &r, 3);
    ref_free(&r);
    tern_dtype_free(s);
    CU_ASSERT_EQUAL_FATAL(tern_dtype_struct(0, NULL, NULL, NULL, &s, &why), 0);
    CU_ASSERT_EQUAL(s->size, 0);
    CU_ASSERT_EQUAL(s->extent, 0);
    CU_ASSERT(tern_dtype_contig(s, 10));
    tern_dtype_free(s);
}

static void test_resized(void)
{
    struct tern_dtype *r = NULL, *s = NULL;
    CU_ASSERT_EQUAL_FATAL(tern_dtype_resized(T(MPI_INT), -4, 16, &r), 0);
    r->committed = 1;
    check_bounds(r, -4, 16, 0, 4);
    struct ref ri = ref_basic(4), rr = ref_hvector(1, 1, 0, &ri, 4);
    check_type(r, &rr, 5);
    /* Contiguous of it: the markers are sticky. */
    struct tern_dtype *c = hvec(3, 1, r->extent, r);
    check_bounds(c, -4, 48, 0, 36);
    struct ref rc = ref_hvector(3, 1, 16, &ri, 16);
    check_type(c, &rc, 2);
    /* A struct of the resized int and a char at 20: lb -4, extent 16. */
    const struct tern_dtype *types[] = { r, T(MPI_CHAR) };
    size_t bl[] = { 1, 1 };
    MPI_Aint d[] = { 0, 20 };
    const char *why;
    CU_ASSERT_EQUAL_FATAL(tern_dtype_struct(2, bl, d, types, &s, &why), 0);
    check_bounds(s, -4, 16, 0, 21);
    /* The highest marker wins, whatever the field order. */
    struct tern_dtype *s2 = NULL;
    const struct tern_dtype *types2[] = { r, r };
    MPI_Aint d2[] = { 100, 0 };
    CU_ASSERT_EQUAL_FATAL(tern_dtype_struct(2, bl, d2, types2, &s2, &why), 0);
    check_bounds(s2, -4, 116, 0, 104);
    tern_dtype_free(s2);
    /* A vector resized to its period repeats as one longer vector. */
    struct tern_dtype *v = hvec(2, 1, 8, T(MPI_INT)), *vr = NULL;
    CU_ASSERT_EQUAL_FATAL(tern_dtype_resized(v, 0, 16, &vr), 0);
    struct tern_dtype *vc = hvec(3, 1, 16, vr);
    CU_ASSERT_EQUAL(vc->nnode, 2);
    CU_ASSERT_EQUAL(vc->node[0].count, 6);
    struct ref rv = ref_hvector(6, 1, 8, &ri, 4);
    check_type(vc, &rv, 2);
    ref_free(&rv);
    tern_dtype_free(vc);
    tern_dtype_free(vr);
    tern_dtype_free(v);
    /* Resizing to a negative extent packs elements backwards. */
    struct tern_dtype *neg = NULL;
    CU_ASSERT_EQUAL_FATAL(tern_dtype_resized(T(MPI_DOUBLE), 0, -8, &neg), 0);
    CU_ASSERT_EQUAL(neg->extent, -8);
    struct ref rd = ref_basic(8);
    check_type(neg, &rd, 4);
    CU_ASSERT(!tern_dtype_contig(neg, 2));
    CU_ASSERT(tern_dtype_contig(neg, 1));
    ref_free(&rd);
    tern_dtype_free(neg);
    tern_dtype_free(s);
    tern_dtype_free(c);
    tern_dtype_free(r);
    ref_free(&ri);
    ref_free(&rr);
    ref_free(&rc);
}

/* C-order reference for a 3-D subarray of elements of `es` bytes. */
static struct ref ref_sub3(const int *sz, const int *sub, const int *st, size_t es)
{
    struct ref r = { 0 };
    for (int i = 0; i < sub[0]; i++)
        for (int j = 0; j < sub[1]; j++)
            for (int k = 0; k < sub[2]; k++) {
                long idx = ((long)(st[0] + i) * sz[1] + (st[1] + j)) * sz[2] + (st[2] + k);
                ref_add(&r, idx * (long)es, es);
            }
    return r;
}

static void test_subarray(void)
{
    size_t sz[] = { 6, 5, 7 }, sub[] = { 3, 2, 4 }, st[] = { 1, 2, 3 };
    int isz[] = { 6, 5, 7 }, isub[] = { 3, 2, 4 }, ist[] = { 1, 2, 3 };
    struct tern_dtype *s = NULL;
    const char *why;
    CU_ASSERT_EQUAL_FATAL(tern_dtype_subarray(3, sz, sub, st, T(MPI_DOUBLE), &s, &why), 0);
    s->committed = 1;
    CU_ASSERT_EQUAL(s->size, 3 * 2 * 4 * 8);
    long first = ((1L * 5 + 2) * 7 + 3) * 8, last = ((3L * 5 + 3) * 7 + 6) * 8 + 8;
    check_bounds(s, 0, 6 * 5 * 7 * 8, first, last - first);
    CU_ASSERT(s->nnode <= 3);
    struct ref r = ref_sub3(isz, isub, ist, 8);
    check_type(s, &r, 2);
    ref_free(&r);
    tern_dtype_free(s);

    /* Whole trailing dimensions merge: a 2x(5x7) block is one VEC level. */
    size_t sub2[] = { 2, 5, 7 }, st2[] = { 3, 0, 0 };
    CU_ASSERT_EQUAL_FATAL(tern_dtype_subarray(3, sz, sub2, st2, T(MPI_INT), &s, &why), 0);
    CU_ASSERT_EQUAL(s->nnode, 1);
    CU_ASSERT_EQUAL(s->node[0].disp, 3 * 5 * 7 * 4);
    CU_ASSERT(!tern_dtype_contig(s, 1));
    tern_dtype_free(s);

    /* The subarray of Open MPI's example: 4x5 ints, 2x3 at (1,1). */
    size_t a[] = { 4, 5 }, b[] = { 2, 3 }, c[] = { 1, 1 };
    CU_ASSERT_EQUAL_FATAL(tern_dtype_subarray(2, a, b, c, T(MPI_INT), &s, &why), 0);
    check_bounds(s, 0, 80, 24, 32);
    tern_dtype_free(s);
}

static void test_dup_and_zero(void)
{
    struct tern_dtype *v = hvec(4, 2, 40, T(MPI_FLOAT)), *d = NULL;
    CU_ASSERT_EQUAL_FATAL(tern_dtype_dup(v, &d), 0);
    check_bounds(d, v->lb, v->extent, v->true_lb, v->true_extent);
    CU_ASSERT_EQUAL(d->size, v->size);
    CU_ASSERT_STRING_EQUAL(d->name, "");
    struct ref rf = ref_basic(4), r = ref_hvector(4, 2, 40, &rf, 4);
    tern_dtype_free(v);
    d->committed = 1;
    check_type(d, &r, 3);
    tern_dtype_free(d);
    ref_free(&r);
    ref_free(&rf);

    /* Zero counts: no data, extent 0, every count is "contiguous". */
    struct tern_dtype *z = hvec(0, 5, 8, T(MPI_DOUBLE));
    check_bounds(z, 0, 0, 0, 0);
    CU_ASSERT_EQUAL(z->size, 0);
    CU_ASSERT_EQUAL(z->nnode, 0);
    CU_ASSERT(tern_dtype_contig(z, 100));
    CU_ASSERT_EQUAL(tern_dtype_elements(z, 0), 0);
    CU_ASSERT_EQUAL(tern_dtype_elements(z, 4), MPI_UNDEFINED);
    unsigned char x = 7;
    tern_dtype_pack(z, &x, 10, &x);
    tern_dtype_unpack(z, &x, 0, &x);
    CU_ASSERT_EQUAL(x, 7);
    tern_dtype_free(z);
    z = hvec(3, 0, 8, T(MPI_DOUBLE));
    CU_ASSERT_EQUAL(z->size, 0);
    tern_dtype_free(z);
}

static void test_overflow(void)
{
    struct tern_dtype *dt = NULL;
    const char *why = NULL;
    size_t huge = (size_t)1 << 62;
    CU_ASSERT_EQUAL(tern_dtype_hvector(huge, 4, 8, T(MPI_DOUBLE), &dt, &why), TERN_ECOUNT);
    CU_ASSERT_PTR_NOT_NULL(why);
    CU_ASSERT_PTR_NULL(dt);
    CU_ASSERT_EQUAL(tern_dtype_resized(T(MPI_INT), PTRDIFF_MAX - 2, 100, &dt), TERN_ECOUNT);
    /* Size fits, but the span of the copies does not fit in MPI_Aint. */
    CU_ASSERT_EQUAL(tern_dtype_hvector(4, 1, PTRDIFF_MAX / 2, T(MPI_INT), &dt, &why),
                    TERN_ECOUNT);
    size_t sz[] = { (size_t)1 << 40, (size_t)1 << 40 }, sub[] = { 1, 1 }, st[] = { 0, 0 };
    CU_ASSERT_EQUAL(tern_dtype_subarray(2, sz, sub, st, T(MPI_INT), &dt, &why), TERN_ECOUNT);
    CU_ASSERT_PTR_NULL(dt);
}

int main(void)
{
    static const struct cunit_test tests[] = {
        { "sizes and extents", test_sizes },
        { "contiguity", test_contig },
        { "pack and unpack with a gap", test_pack_short_int },
        { "contiguous", test_contiguous },
        { "vector, negative stride, merging", test_vector },
        { "nested types and freeing", test_nested },
        { "indexed and hindexed", test_indexed },
        { "struct, padding, elements", test_struct },
        { "resized and sticky bounds", test_resized },
        { "subarray", test_subarray },
        { "dup and zero counts", test_dup_and_zero },
        { "overflow", test_overflow },
        { NULL, NULL },
    };
    return cunit_run("datatypes", tests);
}
