/*
 * Reduction operations, the op objects: handles and the predefined ops,
 * which (op, type) pairs are allowed, user functions (argument order,
 * INT_MAX pieces), an op's lifetime, MPI_REPLACE and MPI_NO_OP, and
 * derived datatypes. The kernels are tested in test_op_kernels.c.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "libmpi/core/datatype.h"
#include "libmpi/core/op.h"
#include "tern/err.h"
#include "tests/unit/cunit_main.h"
#include "tests/unit/test_op_util.h"

static void test_handles(void)
{
    CU_ASSERT_PTR_NULL(tern_op_get(MPI_OP_NULL));
    CU_ASSERT_PTR_NULL(tern_op_get((MPI_Op)0x25));
    CU_ASSERT_PTR_NULL(tern_op_get((MPI_Op)0x3e));
    CU_ASSERT_STRING_EQUAL(OP(MPI_SUM)->name, "MPI_SUM");
    CU_ASSERT_STRING_EQUAL(OP(MPI_MAXLOC)->name, "MPI_MAXLOC");
    CU_ASSERT_EQUAL(OP(MPI_BXOR)->handle, MPI_BXOR);
    CU_ASSERT_EQUAL(OP(MPI_PROD)->commute, 1);
    CU_ASSERT(OP(MPI_REPLACE)->rma_only && OP(MPI_NO_OP)->rma_only && !OP(MPI_SUM)->rma_only);
    CU_ASSERT_EQUAL(tern_op_free(OP(MPI_SUM)), TERN_EOP);
}

/* The standard's table, including the combinations it leaves out. */
static void test_allowed(void)
{
    CU_ASSERT(allowed(MPI_SUM, MPI_INT) && allowed(MPI_SUM, MPI_UNSIGNED_CHAR));
    CU_ASSERT(allowed(MPI_SUM, MPI_C_DOUBLE_COMPLEX) && allowed(MPI_PROD, MPI_COMPLEX));
    CU_ASSERT(allowed(MPI_MAX, MPI_INTEGER) && allowed(MPI_MIN, MPI_LONG_DOUBLE));
    CU_ASSERT(allowed(MPI_MAX, MPI_AINT) && allowed(MPI_BAND, MPI_COUNT));
    CU_ASSERT(allowed(MPI_LAND, MPI_C_BOOL) && allowed(MPI_LXOR, MPI_LOGICAL));
    CU_ASSERT(allowed(MPI_LOR, MPI_INT64_T) && allowed(MPI_LAND, MPI_LOGICAL8));
    CU_ASSERT(allowed(MPI_BAND, MPI_BYTE) && allowed(MPI_BOR, MPI_INTEGER2));
    CU_ASSERT(allowed(MPI_MINLOC, MPI_2INT) && allowed(MPI_MAXLOC, MPI_LONG_DOUBLE_INT));
    CU_ASSERT(allowed(MPI_MAXLOC, MPI_2DOUBLE_PRECISION));
    CU_ASSERT(allowed(MPI_REPLACE, MPI_CHAR) && allowed(MPI_NO_OP, MPI_DOUBLE_INT));

    CU_ASSERT(!allowed(MPI_SUM, MPI_WCHAR) && !allowed(MPI_LAND, MPI_WCHAR));
    CU_ASSERT(!allowed(MPI_SUM, MPI_BYTE) && !allowed(MPI_SUM, MPI_C_BOOL));
    CU_ASSERT(!allowed(MPI_SUM, MPI_2INT) && !allowed(MPI_MAX, MPI_DOUBLE_INT));
    CU_ASSERT(!allowed(MPI_MAX, MPI_C_FLOAT_COMPLEX) && !allowed(MPI_MIN, MPI_LOGICAL));
    CU_ASSERT(!allowed(MPI_BAND, MPI_FLOAT) && !allowed(MPI_BXOR, MPI_LOGICAL));
    CU_ASSERT(!allowed(MPI_LAND, MPI_DOUBLE) && !allowed(MPI_LAND, MPI_INTEGER));
    CU_ASSERT(!allowed(MPI_LOR, MPI_BYTE));
    /* Extensions, as in MPICH and Open MPI. */
    CU_ASSERT(allowed(MPI_LAND, MPI_AINT) && allowed(MPI_LXOR, MPI_COUNT));
    CU_ASSERT(allowed(MPI_SUM, MPI_CHAR) && allowed(MPI_BXOR, MPI_CHAR));
    CU_ASSERT(allowed(MPI_LAND, MPI_CHAR) && !allowed(MPI_MAXLOC, MPI_CHAR));
    CU_ASSERT(!allowed(MPI_MINLOC, MPI_INT) && !allowed(MPI_MAXLOC, MPI_DOUBLE));
    CU_ASSERT(!allowed(MPI_PROD, MPI_PACKED) && !allowed(MPI_MAX, MPI_CHARACTER));

    char why[200];
    tern_op_mismatch(OP(MPI_BAND), DT(MPI_FLOAT), why, sizeof(why));
    CU_ASSERT_STRING_EQUAL(why, "MPI_BAND is not defined for MPI_FLOAT");
    int a = 5, b = 6;
    CU_ASSERT_EQUAL(tern_op_reduce(OP(MPI_SUM), &a, &b, 1, DT(MPI_2INT)), TERN_EOP);
    CU_ASSERT_EQUAL(b, 6);
    /* MPI_CHAR reduces as char does: signed here if char is. */
    char c[2] = { (char)-3, 'a' }, d[2] = { 5, 2 };
    CU_ASSERT_EQUAL(tern_op_reduce(OP(MPI_SUM), c, d, 2, DT(MPI_CHAR)), 0);
    CU_ASSERT(d[0] == (char)((char)-3 + 5) && d[1] == 'c');
    CU_ASSERT_EQUAL(tern_op_reduce(OP(MPI_MAX), c, d, 2, DT(MPI_CHAR)), 0);
    CU_ASSERT(d[0] == (CHAR_MIN < 0 ? 2 : (char)-3) && d[1] == 'c');
}

/* ---- User functions. ---- */

static int calls;
static int last_len;
static MPI_Datatype last_type;

/* Not commutative: inout = 10 * in + inout, so the order shows. */
static void user_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    calls++;
    last_len = *len;
    last_type = *type;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += 10 * ((int *)in)[i];
}

static void user_fn_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *type)
{
    int n = (int)*len;
    user_fn(in, inout, &n, type);
}

/* Records the pieces without touching memory. */
static char *piece_in[4];
static int piece_len[4];
static void pieces_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)inout;
    (void)type;
    if (calls < 4) {
        piece_in[calls] = in;
        piece_len[calls] = *len;
    }
    calls++;
}

static void test_user(void)
{
    struct tern_op *op = tern_op_create(user_fn, NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    CU_ASSERT_PTR_EQUAL(tern_op_get(op->handle), op);
    CU_ASSERT_EQUAL(op->commute, 0);
    int a[3] = { 1, 2, 3 }, b[3] = { 4, 5, 6 };
    calls = 0;
    /* User ops take every type, even one no predefined op takes. */
    CU_ASSERT_EQUAL(tern_op_check(op, DT(MPI_CHAR)), 0);
    CU_ASSERT_EQUAL(tern_op_reduce(op, a, b, 3, DT(MPI_INT)), 0);
    CU_ASSERT(calls == 1 && last_len == 3 && last_type == MPI_INT);
    CU_ASSERT(b[0] == 14 && b[1] == 25 && b[2] == 36);
    tern_op_free(op);

    op = tern_op_create(NULL, user_fn_c, 1);
    CU_ASSERT_EQUAL(tern_op_reduce(op, a, b, 2, DT(MPI_INT)), 0);
    CU_ASSERT(calls == 2 && b[0] == 24 && b[1] == 45 && b[2] == 36);
    tern_op_free(op);

    /* More than INT_MAX elements: pieces of INT_MAX, the buffers advanced
     * by the extent. The function never looks at the memory. */
    op = tern_op_create(pieces_fn, NULL, 1);
    calls = 0;
    char *fake = (char *)(uintptr_t)0x10000;
    CU_ASSERT_EQUAL(tern_op_reduce(op, fake, fake, (size_t)INT_MAX + 10, DT(MPI_INT)), 0);
    CU_ASSERT_EQUAL(calls, 2);
    CU_ASSERT(piece_len[0] == INT_MAX && piece_len[1] == 10);
    CU_ASSERT_PTR_EQUAL(piece_in[1], fake + (size_t)INT_MAX * sizeof(int));
    tern_op_free(op);
}

static void test_lifetime(void)
{
    struct tern_op *op = tern_op_create(user_fn, NULL, 1);
    MPI_Op h = op->handle;
    tern_op_retain(op);          /* As a pending operation would. */
    CU_ASSERT_EQUAL(tern_op_free(op), 0);
    CU_ASSERT_PTR_NULL(tern_op_get(h));
    int a = 1, b = 2;
    calls = 0;
    CU_ASSERT_EQUAL(tern_op_reduce(op, &a, &b, 1, DT(MPI_INT)), 0);
    CU_ASSERT(calls == 1 && b == 12);
    tern_op_release(op);
    /* Retain and release leave predefined ops alone. */
    tern_op_retain(OP(MPI_SUM));
    tern_op_release(OP(MPI_SUM));
    tern_op_release(OP(MPI_SUM));
    CU_ASSERT_PTR_NOT_NULL(OP(MPI_SUM));
}

/* MPI_REPLACE copies in's data, MPI_NO_OP keeps inout's; neither touches
 * the padding of a pair. */
static void test_replace(void)
{
    int a[5] = { 1, 2, 3, 4, 5 }, b[5] = { 0 };
    CU_ASSERT_EQUAL(tern_op_reduce(OP(MPI_NO_OP), a, b, 5, DT(MPI_INT)), 0);
    CU_ASSERT(b[0] == 0 && b[4] == 0);
    CU_ASSERT_EQUAL(tern_op_reduce(OP(MPI_REPLACE), a, b, 5, DT(MPI_INT)), 0);
    CU_ASSERT(memcmp(a, b, sizeof(a)) == 0);
    struct { short v; int i; } p[2], q[2];
    memset(p, 0x11, sizeof(p));
    memset(q, 0xAA, sizeof(q));
    p[0].v = 7;
    p[1].i = 9;
    CU_ASSERT_EQUAL(tern_op_reduce(OP(MPI_REPLACE), p, q, 2, DT(MPI_SHORT_INT)), 0);
    CU_ASSERT(q[0].v == 7 && q[0].i == 0x11111111 && q[1].i == 9);
    unsigned char *pad = (unsigned char *)&q[0] + sizeof(short);
    CU_ASSERT(pad[0] == 0xAA && pad[1] == 0xAA);
}

/* ---- Derived datatypes. ---- */

static void test_derived(void)
{
    const char *why = NULL;
    struct tern_dtype *vec = NULL, *run = NULL, *pairs = NULL, *mixed = NULL;
    /* Every other double, three per element: extent 5 doubles. */
    CU_ASSERT_EQUAL_FATAL(tern_dtype_hvector(3, 1, 16, DT(MPI_DOUBLE), &vec, &why), 0);
    double x[10], y[10], want[10];
    for (int i = 0; i < 10; i++) {
        x[i] = i + 1;
        y[i] = want[i] = 100 * (i + 1);
    }
    for (int e = 0; e < 2; e++)
        for (int j = 0; j < 3; j++)
            want[e * 5 + 2 * j] += x[e * 5 + 2 * j];
    CU_ASSERT_EQUAL(tern_op_reduce(OP(MPI_SUM), x, y, 2, vec), 0);
    CU_ASSERT(memcmp(y, want, sizeof(y)) == 0);
    /* Enough elements for several pieces of packing, the last one short. */
    /* Past the end, a guard zone that must stay as it was. */
    enum { NE = 6001, ND = NE * 5, NG = ND + 20000 };
    double *bx = malloc(NG * sizeof(double)), *by = malloc(NG * sizeof(double));
    double *bw = malloc(NG * sizeof(double));
    for (int i = 0; i < NG; i++) {
        bx[i] = i % 1000;
        by[i] = bw[i] = -(i % 777);
        if (i < ND && i % 5 % 2 == 0)
            bw[i] += bx[i];
    }
    CU_ASSERT_EQUAL(tern_op_reduce(OP(MPI_SUM), bx, by, NE, vec), 0);
    CU_ASSERT(memcmp(by, bw, NG * sizeof(double)) == 0);
    free(bx);
    free(by);
    free(bw);
    char text[200];
    CU_ASSERT(!allowed(MPI_BAND, MPI_FLOAT));
    CU_ASSERT_EQUAL(tern_op_check(OP(MPI_BAND), vec), TERN_EOP);
    CU_ASSERT_PTR_NOT_NULL(strstr(tern_op_mismatch(OP(MPI_BAND), vec, text, sizeof(text)),
                                  "(made of MPI_DOUBLE)"));

    /* Contiguous ints: reduced in place, without packing. */
    CU_ASSERT_EQUAL_FATAL(tern_dtype_hvector(4, 1, 4, DT(MPI_INT), &run, &why), 0);
    int p[8], q[8];
    for (int i = 0; i < 8; i++) {
        p[i] = i;
        q[i] = 3 * i - 5;
    }
    CU_ASSERT_EQUAL(tern_op_reduce(OP(MPI_MAX), p, q, 2, run), 0);
    for (int i = 0; i < 8; i++)
        CU_ASSERT_EQUAL(q[i], i > 3 * i - 5 ? i : 3 * i - 5);

    /* Every other MPI_DOUBLE_INT (a pair with padding): MINLOC. */
    struct di { double v; int i; } da[4], db[4];
    memset(da, 0, sizeof(da));
    memset(db, 0, sizeof(db));
    for (int i = 0; i < 4; i++) {
        da[i].v = i;
        da[i].i = 10 + i;
        db[i].v = 1;
        db[i].i = 20 + i;
    }
    CU_ASSERT_EQUAL_FATAL(tern_dtype_hvector(2, 1, 2 * sizeof(struct di),
                                             DT(MPI_DOUBLE_INT), &pairs, &why), 0);
    CU_ASSERT_EQUAL(tern_op_reduce(OP(MPI_MINLOC), da, db, 1, pairs), 0);
    CU_ASSERT(db[0].v == 0 && db[0].i == 10);     /* 0 < 1 */
    CU_ASSERT(db[1].v == 1 && db[1].i == 21);     /* not in the type */
    CU_ASSERT(db[2].v == 1 && db[2].i == 22);     /* 2 > 1 */
    CU_ASSERT(db[3].v == 1 && db[3].i == 23);

    /* A struct of an int and a double has no single basic type. */
    size_t lens[2] = { 1, 1 };
    MPI_Aint disps[2] = { 0, 8 };
    const struct tern_dtype *kinds[2] = { DT(MPI_INT), DT(MPI_DOUBLE) };
    CU_ASSERT_EQUAL_FATAL(tern_dtype_struct(2, lens, disps, kinds, &mixed, &why), 0);
    CU_ASSERT_EQUAL(tern_op_check(OP(MPI_SUM), mixed), TERN_EOP);
    CU_ASSERT_EQUAL(tern_op_check(OP(MPI_REPLACE), mixed), TERN_EOP);
    CU_ASSERT_PTR_NOT_NULL(strstr(tern_op_mismatch(OP(MPI_SUM), mixed, text, sizeof(text)),
                                  "mixes"));
    tern_dtype_release(vec);
    tern_dtype_release(run);
    tern_dtype_release(pairs);
    tern_dtype_release(mixed);
}

int main(void)
{
    static const struct cunit_test tests[] = {
        { "handles and predefined objects", test_handles },
        { "allowed op and type pairs", test_allowed },
        { "user functions", test_user },
        { "op lifetime", test_lifetime },
        { "MPI_REPLACE and MPI_NO_OP", test_replace },
        { "derived datatypes", test_derived },
        { NULL, NULL },
    };
    return cunit_run("reduction operations", tests);
}
