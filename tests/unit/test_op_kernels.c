/*
 * Reduction operations, the kernels: every arithmetic kernel against a
 * reference computed here one element at a time in 64-bit integer or plain
 * scalar arithmetic, results that do not depend on how a buffer is split,
 * complex sum and product, logical and bitwise ops, MINLOC/MAXLOC ties and
 * padding, and the exotic widths (REAL2, REAL16, INTEGER16, COMPLEX32).
 * The op objects, user functions and derived datatypes are tested in
 * test_op.c.
 */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "libmpi/core/datatype.h"
#include "libmpi/core/op.h"
#include "tests/unit/cunit_main.h"
#include "tests/unit/test_op_util.h"

/* ---- Arithmetic kernels against a one-element-at-a-time reference. ---- */

enum rk { R_SINT, R_UINT, R_F32, R_F64, R_FLD };

struct tc {
    MPI_Datatype h;
    enum rk rk;
    size_t size;    /* Bytes of the element. */
};

static const struct tc arith_types[] = {
    { MPI_SIGNED_CHAR, R_SINT, 1 }, { MPI_UNSIGNED_CHAR, R_UINT, 1 },
    { MPI_SHORT, R_SINT, 2 }, { MPI_UNSIGNED_SHORT, R_UINT, 2 },
    { MPI_INT, R_SINT, 4 }, { MPI_UNSIGNED, R_UINT, 4 },
    { MPI_LONG, R_SINT, sizeof(long) }, { MPI_UNSIGNED_LONG, R_UINT, sizeof(long) },
    { MPI_LONG_LONG, R_SINT, 8 }, { MPI_UNSIGNED_LONG_LONG, R_UINT, 8 },
    { MPI_INT8_T, R_SINT, 1 }, { MPI_UINT16_T, R_UINT, 2 },
    { MPI_INT32_T, R_SINT, 4 }, { MPI_UINT64_T, R_UINT, 8 },
    { MPI_INTEGER, R_SINT, 4 }, { MPI_INTEGER1, R_SINT, 1 }, { MPI_INTEGER8, R_SINT, 8 },
    { MPI_AINT, R_SINT, 8 }, { MPI_COUNT, R_SINT, 8 },
    { MPI_FLOAT, R_F32, 4 }, { MPI_DOUBLE, R_F64, 8 },
    { MPI_REAL, R_F32, 4 }, { MPI_DOUBLE_PRECISION, R_F64, 8 }, { MPI_REAL8, R_F64, 8 },
    { MPI_LONG_DOUBLE, R_FLD, sizeof(long double) },
};

static const MPI_Op arith_ops[] = { MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN };

static uint64_t load_u(const void *p, size_t size)
{
    uint64_t v = 0;
    memcpy(&v, p, size);   /* Little-endian: the low bytes. */
    return v;
}

static int64_t load_s(const void *p, size_t size)
{
    uint64_t v = load_u(p, size);
    int sh = 64 - 8 * (int)size;
    return sh ? (int64_t)(v << sh) >> sh : (int64_t)v;
}

/* b = a op b for one integer element, in 64-bit arithmetic. */
static void ref_int(MPI_Op op, const struct tc *t, const void *a, void *b)
{
    uint64_t r;
    if (op == MPI_SUM) {
        r = load_u(a, t->size) + load_u(b, t->size);
    } else if (op == MPI_PROD) {
        r = load_u(a, t->size) * load_u(b, t->size);
    } else if (t->rk == R_SINT) {
        int64_t x = load_s(a, t->size), y = load_s(b, t->size);
        r = (uint64_t)((op == MPI_MAX) == (x > y) ? x : y);
    } else {
        uint64_t x = load_u(a, t->size), y = load_u(b, t->size);
        r = (op == MPI_MAX) == (x > y) ? x : y;
    }
    memcpy(b, &r, t->size);
}

/* MAX and MIN on floating point: inout's value only when it is strictly
 * greater (smaller); any NaN or a tie gives in's. */
#define REF_FLOAT(T, op, a, b)                                                  \
    do {                                                                        \
        T x = *(const T *)(a), y = *(T *)(b);                                   \
        if (op == MPI_SUM)                                                      \
            *(T *)(b) = x + y;                                                  \
        else if (op == MPI_PROD)                                                \
            *(T *)(b) = x * y;                                                  \
        else if (isnan(x) || isnan(y) || x == y)                                \
            *(T *)(b) = x;                                                      \
        else                                                                    \
            *(T *)(b) = (op == MPI_MAX) == (y > x) ? y : x;                     \
    } while (0)

static void ref_elem(MPI_Op op, const struct tc *t, const void *a, void *b)
{
    switch (t->rk) {
    case R_F32: REF_FLOAT(float, op, a, b); break;
    case R_F64: REF_FLOAT(double, op, a, b); break;
    case R_FLD: REF_FLOAT(long double, op, a, b); break;
    default: ref_int(op, t, a, b); break;
    }
}

/* Data with ties, extremes, and for floating point NaN and signed zeros. */
static void fill(const struct tc *t, unsigned char *p, size_t n, unsigned seed)
{
    srand(seed);
    for (size_t i = 0; i < n; i++) {
        unsigned char *e = p + i * t->size;
        int r = rand() % 16;
        if (t->rk == R_SINT || t->rk == R_UINT) {
            for (size_t k = 0; k < t->size; k++)
                e[k] = (unsigned char)(r == 0 ? 0xff : r == 1 ? 0 : rand());
            continue;
        }
        double v = r == 0 ? NAN : r == 1 ? -0.0 : r == 2 ? 0.0 : r == 3 ? 1.0
                 : (rand() % 2001 - 1000) / 16.0;
        if (t->rk == R_F32) { float f = (float)v; memcpy(e, &f, 4); }
        else if (t->rk == R_F64) memcpy(e, &v, 8);
        else { long double l = v; memset(e, 0, t->size); memcpy(e, &l, sizeof(l)); }
    }
}

/* Bytes of an element that hold data (x87 long double: 10 of 16). */
static size_t data_bytes(const struct tc *t)
{
    return t->rk == R_FLD && LDBL_MANT_DIG == 64 ? 10 : t->size;
}

/* Runs op on n elements starting `skew` elements into the buffers (so the
 * vector loops also see unaligned data) and compares with the reference. */
static int check_kernel(MPI_Op op, const struct tc *t, size_t n, size_t skew, unsigned seed)
{
    size_t bytes = (n + skew) * t->size;
    unsigned char *a = malloc(bytes + 1), *b = malloc(bytes + 1), *want = malloc(bytes + 1);
    fill(t, a, n + skew, seed);
    fill(t, b, n + skew, seed * 7 + 1);
    /* Some equal pairs, for the ties of MAX and MIN. */
    for (size_t i = 0; i < n + skew; i += 5)
        memcpy(b + i * t->size, a + i * t->size, t->size);
    memcpy(want, b, bytes);
    for (size_t i = skew; i < n + skew; i++)
        ref_elem(op, t, a + i * t->size, want + i * t->size);
    int rc = tern_op_reduce(OP(op), a + skew * t->size, b + skew * t->size, n, DT(t->h));
    int bad = rc != 0;
    for (size_t i = 0; i < n + skew && !bad; i++)
        bad = memcmp(b + i * t->size, want + i * t->size, data_bytes(t)) != 0;
    free(a);
    free(b);
    free(want);
    return bad;
}

static void test_arith(void)
{
    static const size_t lens[] = { 0, 1, 3, 31, 32, 33, 64, 65, 255, 256, 257, 1000, 4099 };
    for (size_t t = 0; t < sizeof(arith_types) / sizeof(arith_types[0]); t++)
        for (size_t o = 0; o < 4; o++)
            for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
                int bad = check_kernel(arith_ops[o], &arith_types[t], lens[l], l % 3,
                                       (unsigned)(t * 100 + o * 10 + l));
                if (bad)
                    fprintf(stderr, "\n  %s on %s, %zu elements: wrong\n",
                            OP(arith_ops[o])->name, DT(arith_types[t].h)->name, lens[l]);
                CU_ASSERT(!bad);
            }
}

/* The same data reduced in one call and in pieces of odd sizes gives the
 * same bits. */
static void test_split(void)
{
    enum { N = 10007 };
    double *a = malloc(3 * N * sizeof(double)), *whole = a + N, *split = a + 2 * N;
    for (size_t o = 0; o < 4; o++) {
        for (size_t i = 0; i < N; i++) {
            a[i] = sin((double)i) * 1e3;
            whole[i] = split[i] = cos((double)i * 0.7) / 3.0;
        }
        CU_ASSERT_EQUAL(tern_op_reduce(OP(arith_ops[o]), a, whole, N, DT(MPI_DOUBLE)), 0);
        for (size_t i = 0, step = 1; i < N; i += step, step = step * 3 % 97 + 1)
            tern_op_reduce(OP(arith_ops[o]), a + i, split + i, N - i < step ? N - i : step,
                           DT(MPI_DOUBLE));
        CU_ASSERT(memcmp(whole, split, N * sizeof(double)) == 0);
    }
    free(a);
}

/* Complex SUM and PROD, on values whose products are exact. */
static void test_complex(void)
{
    double complex a[3] = { 1 + 2 * I, -3 + 0.5 * I, 4 - 4 * I };
    double complex b[3] = { 3 + 4 * I, 2 - 2 * I, 0.25 + 1 * I };
    double complex s[3], p[3];
    memcpy(s, b, sizeof(b));
    memcpy(p, b, sizeof(b));
    CU_ASSERT_EQUAL(tern_op_reduce(OP(MPI_SUM), a, s, 3, DT(MPI_C_DOUBLE_COMPLEX)), 0);
    CU_ASSERT_EQUAL(tern_op_reduce(OP(MPI_PROD), a, p, 3, DT(MPI_DOUBLE_COMPLEX)), 0);
    for (int i = 0; i < 3; i++) {
        double ar = creal(a[i]), ai = cimag(a[i]), br = creal(b[i]), bi = cimag(b[i]);
        CU_ASSERT(creal(s[i]) == ar + br && cimag(s[i]) == ai + bi);
        CU_ASSERT(creal(p[i]) == ar * br - ai * bi && cimag(p[i]) == ar * bi + ai * br);
    }
    float complex fa[2] = { 1 + 1 * I, 2 }, fb[2] = { 1 - 1 * I, 3 * I };
    CU_ASSERT_EQUAL(tern_op_reduce(OP(MPI_PROD), fa, fb, 2, DT(MPI_COMPLEX)), 0);
    CU_ASSERT(crealf(fb[0]) == 2 && cimagf(fb[0]) == 0);
    CU_ASSERT(crealf(fb[1]) == 0 && cimagf(fb[1]) == 6);
}

/* ---- Logical and bitwise ops. ---- */

/* Element i of `size` bytes holds value (i / 4) % 4 of {0, 1, 2, -1} in
 * `in` and i % 4 in `inout`, sign-extended: every combination, repeated
 * over 640 elements so the vector loops run too. The expected results are
 * worked out from whether each value is zero, or byte by byte. */
static void check_logic(MPI_Datatype type, size_t size, int bitwise)
{
    static const int64_t vals[] = { 0, 1, 2, -1 };
    enum { N = 640 };
    static const MPI_Op logical[3] = { MPI_LAND, MPI_LOR, MPI_LXOR };
    static const MPI_Op bits[3] = { MPI_BAND, MPI_BOR, MPI_BXOR };
    unsigned char *a = malloc(N * size), *b = malloc(N * size), x[16], y[16];
    for (int o = 0; o < 3; o++) {
        for (int i = 0; i < N; i++) {
            memset(a + i * size, vals[i / 4 % 4] < 0 ? 0xff : 0, size);
            memset(b + i * size, vals[i % 4] < 0 ? 0xff : 0, size);
            memcpy(a + i * size, &vals[i / 4 % 4], size < 8 ? size : 8);
            memcpy(b + i * size, &vals[i % 4], size < 8 ? size : 8);
        }
        MPI_Op op = bitwise ? bits[o] : logical[o];
        CU_ASSERT_EQUAL(tern_op_reduce(OP(op), a, b, N, DT(type)), 0);
        int bad = 0;
        for (int i = 0; i < N; i++) {
            unsigned char want[16] = { 0 };
            memcpy(x, &vals[i / 4 % 4], 8);
            memcpy(y, &vals[i % 4], 8);
            memset(x + 8, vals[i / 4 % 4] < 0 ? 0xff : 0, 8);
            memset(y + 8, vals[i % 4] < 0 ? 0xff : 0, 8);
            for (size_t k = 0; bitwise && k < size; k++)
                want[k] = o == 0 ? x[k] & y[k] : o == 1 ? x[k] | y[k] : x[k] ^ y[k];
            int p = vals[i / 4 % 4] != 0, q = vals[i % 4] != 0;
            if (!bitwise)
                want[0] = (unsigned char)(o == 0 ? p && q : o == 1 ? p || q : p != q);
            bad += memcmp(b + i * size, want, size) != 0;
        }
        CU_ASSERT_EQUAL(bad, 0);
    }
    free(a);
    free(b);
}

static void test_logic(void)
{
    check_logic(MPI_C_BOOL, sizeof(_Bool), 0);
    check_logic(MPI_INT8_T, 1, 0);
    check_logic(MPI_SHORT, 2, 0);
    check_logic(MPI_LOGICAL, 4, 0);
    check_logic(MPI_UNSIGNED_LONG, 8, 0);
    check_logic(MPI_LOGICAL16, 16, 0);
    check_logic(MPI_BYTE, 1, 1);
    check_logic(MPI_UINT16_T, 2, 1);
    check_logic(MPI_INTEGER, 4, 1);
    check_logic(MPI_INT64_T, 8, 1);
    check_logic(MPI_INTEGER16, 16, 1);
}

/* ---- MINLOC and MAXLOC. ---- */

/* Cases (in value, in index, inout value, inout index): smaller, larger,
 * equal with the smaller index on either side. */
static const double loc_cases[][4] = {
    { 1, 7, 2, 3 }, { 5, 1, 2, 9 }, { 4, 2, 4, 8 }, { 4, 8, 4, 2 }, { -3, 0, -3, 0 },
};
enum { NLOC = sizeof(loc_cases) / sizeof(loc_cases[0]) };

/* Expected (value, index) of MINLOC (is_max 0) or MAXLOC on one case. */
static void loc_want(int c, int is_max, double *v, double *i)
{
    double u = loc_cases[c][0], ui = loc_cases[c][1], w = loc_cases[c][2], wi = loc_cases[c][3];
    if (u == w) {
        *v = u;
        *i = ui < wi ? ui : wi;
    } else if ((u < w) != is_max) {
        *v = u;
        *i = ui;
    } else {
        *v = w;
        *i = wi;
    }
}

/* Runs MINLOC and MAXLOC on struct S {V v; I i;} with padding bytes set
 * to 0xAA, checks every field and that the padding is untouched. */
#define CHECK_LOC(S, V, I, type)                                                \
    do {                                                                        \
        struct S { V v; I i; } in[NLOC], io[NLOC], want[NLOC];                  \
        for (int m = 0; m < 2; m++) {                                           \
            memset(in, 0xAA, sizeof(in));                                       \
            memset(io, 0xAA, sizeof(io));                                       \
            memset(want, 0xAA, sizeof(want));                                   \
            for (int c = 0; c < NLOC; c++) {                                    \
                double v, i;                                                    \
                in[c].v = (V)loc_cases[c][0];                                   \
                in[c].i = (I)loc_cases[c][1];                                   \
                io[c].v = (V)loc_cases[c][2];                                   \
                io[c].i = (I)loc_cases[c][3];                                   \
                loc_want(c, m, &v, &i);                                         \
                want[c].v = (V)v;                                               \
                want[c].i = (I)i;                                               \
            }                                                                   \
            CU_ASSERT_EQUAL(tern_op_reduce(OP(m ? MPI_MAXLOC : MPI_MINLOC), in, \
                                           io, NLOC, DT(type)), 0);             \
            CU_ASSERT(memcmp(io, want, sizeof(io)) == 0);                       \
        }                                                                       \
    } while (0)

static void test_loc(void)
{
    CHECK_LOC(float_int, float, int, MPI_FLOAT_INT);
    CHECK_LOC(double_int, double, int, MPI_DOUBLE_INT);
    CHECK_LOC(long_int, long, int, MPI_LONG_INT);
    CHECK_LOC(two_int, int, int, MPI_2INT);
    CHECK_LOC(short_int, short, int, MPI_SHORT_INT);
    CHECK_LOC(long_double_int, long double, int, MPI_LONG_DOUBLE_INT);
    CHECK_LOC(two_integer, int, int, MPI_2INTEGER);
    CHECK_LOC(two_real, float, float, MPI_2REAL);
    CHECK_LOC(two_double, double, double, MPI_2DOUBLE_PRECISION);
}

/* ---- The widths beyond C's basic types. ---- */

static void test_wide(void)
{
#ifdef __FLT16_MAX__
    _Float16 h[2] = { 1.5, -2 }, hh[2] = { 2.25, 0.5 };
    CU_ASSERT_EQUAL(tern_op_reduce(OP(MPI_SUM), h, hh, 2, DT(MPI_REAL2)), 0);
    CU_ASSERT(hh[0] == (_Float16)3.75 && hh[1] == (_Float16)-1.5);
#else
    CU_ASSERT(!allowed(MPI_SUM, MPI_REAL2));
#endif
#ifdef __FLT128_MAX__
    _Float128 q[2] = { 1, 3 }, qq[2] = { 2, 1 };
    /* 1 + 2^-100 exists only in quad precision. */
    q[0] += ldexpl(1, -100);
    CU_ASSERT_EQUAL(tern_op_reduce(OP(MPI_MAX), q, qq, 2, DT(MPI_REAL16)), 0);
    CU_ASSERT(qq[0] == 2 && qq[1] == q[1]);
    qq[0] = 1;
    CU_ASSERT_EQUAL(tern_op_reduce(OP(MPI_SUM), q, qq, 1, DT(MPI_REAL16)), 0);
    CU_ASSERT(qq[0] - 2 == (_Float128)ldexpl(1, -100));
    _Complex _Float128 z = 1 + 2 * I, zz = 3 + 4 * I;
    CU_ASSERT_EQUAL(tern_op_reduce(OP(MPI_PROD), &z, &zz, 1, DT(MPI_COMPLEX32)), 0);
    CU_ASSERT(__real__ zz == -5 && __imag__ zz == 10);
#endif
#ifdef __SIZEOF_INT128__
    __int128 w[2] = { (__int128)1 << 100, -5 }, ww[2] = { 3, -7 };
    CU_ASSERT_EQUAL(tern_op_reduce(OP(MPI_SUM), w, ww, 2, DT(MPI_INTEGER16)), 0);
    CU_ASSERT(ww[0] == ((__int128)1 << 100) + 3 && ww[1] == -12);
    CU_ASSERT_EQUAL(tern_op_reduce(OP(MPI_MIN), w, ww, 2, DT(MPI_INTEGER16)), 0);
    CU_ASSERT(ww[0] == (__int128)1 << 100 && ww[1] == -12);
#endif
}

int main(void)
{
    static const struct cunit_test tests[] = {
        { "arithmetic kernels against a reference", test_arith },
        { "results independent of splitting", test_split },
        { "complex sum and product", test_complex },
        { "logical and bitwise ops", test_logic },
        { "MINLOC and MAXLOC", test_loc },
        { "REAL2, REAL16, INTEGER16, COMPLEX32", test_wide },
        { NULL, NULL },
    };
    return cunit_run("reduction operations: kernels", tests);
}
