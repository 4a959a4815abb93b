/*
 * The datatype engine, part one: sizes, extents and true extents of the
 * predefined types, and the layout, bounds and pack/unpack of the vector
 * and indexed constructors (contiguous, vector, hvector, indexed,
 * hindexed and nesting them), checked against the reference typemaps of
 * test_datatype_ref.h. The struct, subarray, resized and dup constructors
 * are in test_datatype_struct.c.
 */
#include <complex.h>
#include <stddef.h>
#include <string.h>

#include <mpi.h>

#include "libmpi/core/datatype.h"
#include "tests/unit/cunit_main.h"
#include "tests/unit/test_datatype_ref.h"

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
    /* A synonym's handle has the name the standard lists first. */
    CU_ASSERT_STRING_EQUAL(T(MPI_LONG_LONG)->name, "MPI_LONG_LONG_INT");
    CU_ASSERT_STRING_EQUAL(T(MPI_C_FLOAT_COMPLEX)->name, "MPI_C_COMPLEX");
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
        { NULL, NULL },
    };
    return cunit_run("datatypes", tests);
}
