/*
 * The datatype engine, part two: the layout, bounds, basic element counts
 * and pack/unpack of the struct, resized, subarray and dup constructors,
 * types without data, and the sizes and bounds that do not fit, checked
 * against the reference typemaps of test_datatype_ref.h. The predefined
 * types and the vector and indexed constructors are in test_datatype.c.
 */
#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "libmpi/core/datatype.h"
#include "tern/err.h"
#include "tests/unit/cunit_main.h"
#include "tests/unit/test_datatype_ref.h"

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
        { "struct, padding, elements", test_struct },
        { "resized and sticky bounds", test_resized },
        { "subarray", test_subarray },
        { "dup and zero counts", test_dup_and_zero },
        { "overflow", test_overflow },
        { NULL, NULL },
    };
    return cunit_run("datatypes: struct, resized, subarray, dup", tests);
}
