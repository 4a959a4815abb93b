/*
 * op_local: MPI_Reduce_local with predefined and user operations,
 * MPI_Op_commutative, MPI_Op_create / MPI_Op_free, and the errors of these
 * calls under MPI_ERRORS_RETURN. Every rank runs the same checks on data
 * that depends on its rank; nothing is communicated but the final token.
 *
 * Checked against references computed here element by element:
 *   SUM, PROD, MAX, MIN on MPI_INT, MPI_UNSIGNED and MPI_DOUBLE, at lengths
 *   around the vector block sizes and at 1 Mi doubles, and on
 *   MPI_C_DOUBLE_COMPLEX (SUM, PROD on exactly representable values);
 *   LAND, LOR, LXOR on MPI_INT and MPI_C_BOOL; BAND, BOR, BXOR on
 *   MPI_UNSIGNED and MPI_BYTE; MINLOC, MAXLOC on MPI_DOUBLE_INT and
 *   MPI_2INT with ties (the smaller index wins);
 *   MPI_SUM on a vector datatype (only the elements it covers change; Tern
 *   only, see check_vector_type);
 *   a user op that is not commutative (inout = 2*in + inout, so the order
 *   of the arguments shows), MPI_Op_create_c, and MPI_Op_free setting
 *   MPI_OP_NULL.
 * Errors: MPI_OP_NULL, MPI_BAND on MPI_FLOAT, MPI_SUM on MPI_2INT,
 * MPI_LAND on MPI_DOUBLE, MPI_REPLACE and MPI_NO_OP (accumulate only),
 * MPI_Op_free(MPI_SUM) and of MPI_OP_NULL -> MPI_ERR_OP; count -1 ->
 * MPI_ERR_COUNT; MPI_DATATYPE_NULL -> MPI_ERR_TYPE (Open MPI, which checks
 * the op first, says MPI_ERR_OP). A failing call leaves
 * the inout buffer as it was.
 */
#include "tt.h"
#include <complex.h>
#include <math.h>

static void expect_class(int rc, int want, const char *what)
{
    int cls = -1;
    if (rc == MPI_SUCCESS)
        TT_FAIL("%s returned MPI_SUCCESS, expected error class %d", what, want);
    MPI_Error_class(rc, &cls);
    if (cls != want)
        TT_FAIL("%s: error class %d (%s), expected %d", what, cls, tt_errstr(rc), want);
}

static const MPI_Op arith[4] = { MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN };
static const char *arith_name[4] = { "MPI_SUM", "MPI_PROD", "MPI_MAX", "MPI_MIN" };

static long long ref_ll(int o, long long a, long long b)
{
    switch (o) {
    case 0: return a + b;
    case 1: return a * b;
    case 2: return a > b ? a : b;
    default: return a < b ? a : b;
    }
}

static void check_int_ops(int n)
{
    int *a = tt_malloc(n * sizeof(int)), *b = tt_malloc(n * sizeof(int));
    unsigned *ua = tt_malloc(n * sizeof(unsigned)), *ub = tt_malloc(n * sizeof(unsigned));
    for (int o = 0; o < 4; o++) {
        for (int i = 0; i < n; i++) {
            a[i] = (i * 37 + tt_rank * 11) % 201 - 100;
            b[i] = (i * 53 + 7) % 199 - 99;
            ua[i] = (unsigned)(i * 2654435761u + (unsigned)tt_rank);
            ub[i] = (unsigned)(i * 40503u);
        }
        TT_MPI(MPI_Reduce_local(a, b, n, MPI_INT, arith[o]));
        TT_MPI(MPI_Reduce_local(ua, ub, n, MPI_UNSIGNED, arith[o]));
        for (int i = 0; i < n; i++) {
            long long x = (i * 37 + tt_rank * 11) % 201 - 100, y = (i * 53 + 7) % 199 - 99;
            if (b[i] != ref_ll(o, x, y))
                TT_FAIL("%s on MPI_INT, n=%d, [%d]: %d, expected %lld", arith_name[o], n, i,
                        b[i], ref_ll(o, x, y));
            unsigned ux = (unsigned)(i * 2654435761u + (unsigned)tt_rank);
            unsigned uy = (unsigned)(i * 40503u);
            unsigned uw = o == 0 ? ux + uy : o == 1 ? ux * uy : o == 2 ? (ux > uy ? ux : uy)
                                                                       : (ux < uy ? ux : uy);
            if (ub[i] != uw)
                TT_FAIL("%s on MPI_UNSIGNED, n=%d, [%d]: %u, expected %u", arith_name[o], n,
                        i, ub[i], uw);
        }
    }
    free(a);
    free(b);
    free(ua);
    free(ub);
}

static void check_double_ops(int n)
{
    double *a = tt_malloc(n * sizeof(double)), *b = tt_malloc(n * sizeof(double));
    for (int o = 0; o < 4; o++) {
        for (int i = 0; i < n; i++) {
            a[i] = (i % 1000) * 0.25 - tt_rank;
            b[i] = (i % 777) * -0.5 + 3;
        }
        TT_MPI(MPI_Reduce_local(a, b, n, MPI_DOUBLE, arith[o]));
        for (int i = 0; i < n; i++) {
            double x = (i % 1000) * 0.25 - tt_rank, y = (i % 777) * -0.5 + 3;
            double w = o == 0 ? x + y : o == 1 ? x * y : o == 2 ? fmax(x, y) : fmin(x, y);
            if (b[i] != w)
                TT_FAIL("%s on MPI_DOUBLE, n=%d, [%d]: %g, expected %g", arith_name[o], n,
                        i, b[i], w);
        }
    }
    free(a);
    free(b);
}

static void check_complex(void)
{
    double complex a[2] = { 1 + 2 * I, -2 + 0.5 * I }, s[2] = { 3 - 1 * I, 4 + 4 * I };
    double complex p[2] = { 3 - 1 * I, 4 + 4 * I };
    TT_MPI(MPI_Reduce_local(a, s, 2, MPI_C_DOUBLE_COMPLEX, MPI_SUM));
    TT_MPI(MPI_Reduce_local(a, p, 2, MPI_C_DOUBLE_COMPLEX, MPI_PROD));
    TT_CHECK(creal(s[0]) == 4 && cimag(s[0]) == 1 && creal(s[1]) == 2 && cimag(s[1]) == 4.5,
             "complex SUM: (%g,%g) (%g,%g)", creal(s[0]), cimag(s[0]), creal(s[1]), cimag(s[1]));
    /* (1+2i)(3-i) = 5+5i; (-2+0.5i)(4+4i) = -10-6i */
    TT_CHECK(creal(p[0]) == 5 && cimag(p[0]) == 5 && creal(p[1]) == -10 && cimag(p[1]) == -6,
             "complex PROD: (%g,%g) (%g,%g)", creal(p[0]), cimag(p[0]), creal(p[1]), cimag(p[1]));
}

static void check_logic(void)
{
    int la[4] = { 0, 0, 5, -1 }, lb[4] = { 0, 3, 0, 1 };
    int r_and[4], r_or[4], r_xor[4];
    memcpy(r_and, lb, sizeof(lb));
    memcpy(r_or, lb, sizeof(lb));
    memcpy(r_xor, lb, sizeof(lb));
    TT_MPI(MPI_Reduce_local(la, r_and, 4, MPI_INT, MPI_LAND));
    TT_MPI(MPI_Reduce_local(la, r_or, 4, MPI_INT, MPI_LOR));
    TT_MPI(MPI_Reduce_local(la, r_xor, 4, MPI_INT, MPI_LXOR));
    for (int i = 0; i < 4; i++) {
        TT_EQ("MPI_LAND on MPI_INT", (la[i] != 0) && (lb[i] != 0), r_and[i]);
        TT_EQ("MPI_LOR on MPI_INT", (la[i] != 0) || (lb[i] != 0), r_or[i]);
        TT_EQ("MPI_LXOR on MPI_INT", (la[i] != 0) != (lb[i] != 0), r_xor[i]);
    }
    _Bool ba[4] = { 0, 0, 1, 1 }, bb[4] = { 0, 1, 0, 1 };
    TT_MPI(MPI_Reduce_local(ba, bb, 4, MPI_C_BOOL, MPI_LXOR));
    TT_CHECK(!bb[0] && bb[1] && bb[2] && !bb[3], "MPI_LXOR on MPI_C_BOOL");

    unsigned ua[2] = { 0xF0F0F0F0u, 0x12345678u }, ub[2] = { 0xFF00FF00u, 0x0F0F0F0Fu };
    unsigned band[2], bor[2], bxor[2];
    memcpy(band, ub, sizeof(ub));
    memcpy(bor, ub, sizeof(ub));
    memcpy(bxor, ub, sizeof(ub));
    TT_MPI(MPI_Reduce_local(ua, band, 2, MPI_UNSIGNED, MPI_BAND));
    TT_MPI(MPI_Reduce_local(ua, bor, 2, MPI_UNSIGNED, MPI_BOR));
    TT_MPI(MPI_Reduce_local(ua, bxor, 2, MPI_UNSIGNED, MPI_BXOR));
    for (int i = 0; i < 2; i++) {
        TT_EQ("MPI_BAND on MPI_UNSIGNED", ua[i] & ub[i], band[i]);
        TT_EQ("MPI_BOR on MPI_UNSIGNED", ua[i] | ub[i], bor[i]);
        TT_EQ("MPI_BXOR on MPI_UNSIGNED", ua[i] ^ ub[i], bxor[i]);
    }
    unsigned char ca[3] = { 0xA5, 0xFF, 0x00 }, cb[3] = { 0x0F, 0x81, 0x7E };
    TT_MPI(MPI_Reduce_local(ca, cb, 3, MPI_BYTE, MPI_BXOR));
    TT_CHECK(cb[0] == 0xAA && cb[1] == 0x7E && cb[2] == 0x7E, "MPI_BXOR on MPI_BYTE");
}

static void check_loc(void)
{
    struct { double v; int i; } a[4] = { { 1, 5 }, { 2, 1 }, { 3, 9 }, { 3, 2 } };
    struct { double v; int i; } mn[4] = { { 2, 0 }, { 1, 3 }, { 3, 4 }, { 3, 7 } };
    struct { double v; int i; } mx[4];
    memcpy(mx, mn, sizeof(mn));
    TT_MPI(MPI_Reduce_local(a, mn, 4, MPI_DOUBLE_INT, MPI_MINLOC));
    TT_MPI(MPI_Reduce_local(a, mx, 4, MPI_DOUBLE_INT, MPI_MAXLOC));
    static const double want_mn[4][2] = { { 1, 5 }, { 1, 3 }, { 3, 4 }, { 3, 2 } };
    static const double want_mx[4][2] = { { 2, 0 }, { 2, 1 }, { 3, 4 }, { 3, 2 } };
    for (int k = 0; k < 4; k++) {
        TT_CHECK(mn[k].v == want_mn[k][0] && mn[k].i == want_mn[k][1],
                 "MINLOC on MPI_DOUBLE_INT [%d]: (%g,%d)", k, mn[k].v, mn[k].i);
        TT_CHECK(mx[k].v == want_mx[k][0] && mx[k].i == want_mx[k][1],
                 "MAXLOC on MPI_DOUBLE_INT [%d]: (%g,%d)", k, mx[k].v, mx[k].i);
    }
    int p[4] = { 7, tt_rank + 1, 7, 0 }, q[4] = { 7, tt_rank, 8, 0 };
    TT_MPI(MPI_Reduce_local(p, q, 2, MPI_2INT, MPI_MAXLOC));
    TT_CHECK(q[0] == 7 && q[1] == tt_rank && q[2] == 8 && q[3] == 0,
             "MAXLOC on MPI_2INT: (%d,%d) (%d,%d)", q[0], q[1], q[2], q[3]);
}

/* A predefined op on a derived type made of one basic type: the standard
 * only promises predefined ops on the listed basic types; Tern and MPICH
 * accept such derived types, Open MPI's MPI_Reduce_local refuses them with
 * MPI_ERR_OP. So the check is required of Tern only. */
static void check_vector_type(int is_tern)
{
    /* Two elements of: 3 blocks of 2 ints, stride 4 ints. */
    MPI_Datatype vec;
    TT_MPI(MPI_Type_vector(3, 2, 4, MPI_INT, &vec));
    TT_MPI(MPI_Type_commit(&vec));
    MPI_Aint lb, extent;
    TT_MPI(MPI_Type_get_extent(vec, &lb, &extent));
    int n = (int)(2 * extent / sizeof(int)) + 4;
    int *a = tt_malloc(n * sizeof(int)), *b = tt_malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) {
        a[i] = i + 1;
        b[i] = 1000 * i;
    }
    int rc = MPI_Reduce_local(a, b, 2, vec, MPI_SUM);
    if (rc != MPI_SUCCESS && !is_tern) {
        expect_class(rc, MPI_ERR_OP, "MPI_SUM on a vector type");
        TT_MPI(MPI_Type_free(&vec));
        free(a);
        free(b);
        return;
    }
    TT_MPI(rc);
    int per = (int)(extent / sizeof(int));
    for (int i = 0; i < n; i++) {
        int j = i - (i >= per ? per : 0);
        int covered = i < 2 * per && j % 4 < 2 && j < 12;
        TT_EQ("MPI_SUM on a vector type", 1000 * i + (covered ? i + 1 : 0), b[i]);
    }
    TT_MPI(MPI_Type_free(&vec));
    free(a);
    free(b);
}

/* inout = 2 * in + inout: not commutative, so the argument order shows. */
static void twice_plus(void *in, void *inout, int *len, MPI_Datatype *type)
{
    if (*type != MPI_INT)
        TT_FAIL("user function got the wrong datatype");
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += 2 * ((int *)in)[i];
}

#if MPI_VERSION >= 4
static void twice_plus_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *type)
{
    int n = (int)*len;
    twice_plus(in, inout, &n, type);
}
#endif

static void check_user_ops(void)
{
    MPI_Op op;
    int commute = -1;
    TT_MPI(MPI_Op_create(twice_plus, 0, &op));
    TT_MPI(MPI_Op_commutative(op, &commute));
    TT_EQ("MPI_Op_commutative of a non-commutative op", 0, commute);
    TT_MPI(MPI_Op_commutative(MPI_SUM, &commute));
    TT_EQ("MPI_Op_commutative(MPI_SUM)", 1, commute);
    int a[3] = { 1, 2, tt_rank }, b[3] = { 10, 20, 30 };
    TT_MPI(MPI_Reduce_local(a, b, 3, MPI_INT, op));
    TT_CHECK(b[0] == 12 && b[1] == 24 && b[2] == 30 + 2 * tt_rank,
             "user op: %d %d %d", b[0], b[1], b[2]);
    TT_MPI(MPI_Op_free(&op));
    TT_CHECK(op == MPI_OP_NULL, "MPI_Op_free did not set MPI_OP_NULL");

#if MPI_VERSION >= 4
    /* The large-count forms are MPI 4 (Open MPI 4.1 lacks them). */
    MPI_Op op_c;
    TT_MPI(MPI_Op_create_c(twice_plus_c, 1, &op_c));
    TT_MPI(MPI_Op_commutative(op_c, &commute));
    TT_EQ("MPI_Op_commutative of a commutative op", 1, commute);
    TT_MPI(MPI_Reduce_local_c(a, b, 2, MPI_INT, op_c));
    TT_CHECK(b[0] == 14 && b[1] == 28, "user op (large count): %d %d", b[0], b[1]);
    TT_MPI(MPI_Op_free(&op_c));
#endif
}

static void check_errors(int is_tern)
{
    int a[2] = { 1, 2 }, b[2] = { 3, 4 };
    float f[2] = { 1, 2 }, g[2] = { 3, 4 };
    double d[2] = { 1, 2 }, e[2] = { 3, 4 };
    expect_class(MPI_Reduce_local(a, b, 2, MPI_INT, MPI_OP_NULL), MPI_ERR_OP, "MPI_OP_NULL");
    expect_class(MPI_Reduce_local(f, g, 2, MPI_FLOAT, MPI_BAND), MPI_ERR_OP, "BAND on FLOAT");
    expect_class(MPI_Reduce_local(a, b, 1, MPI_2INT, MPI_SUM), MPI_ERR_OP, "SUM on 2INT");
    expect_class(MPI_Reduce_local(d, e, 2, MPI_DOUBLE, MPI_LAND), MPI_ERR_OP, "LAND on DOUBLE");
    expect_class(MPI_Reduce_local(a, b, 2, MPI_INT, MPI_REPLACE), MPI_ERR_OP, "MPI_REPLACE");
    expect_class(MPI_Reduce_local(a, b, 2, MPI_INT, MPI_NO_OP), MPI_ERR_OP, "MPI_NO_OP");
    expect_class(MPI_Reduce_local(a, b, -1, MPI_INT, MPI_SUM), MPI_ERR_COUNT, "count -1");
    /* Open MPI checks the op before the type and says MPI_ERR_OP here. */
    int rc = MPI_Reduce_local(a, b, 2, MPI_DATATYPE_NULL, MPI_SUM);
    expect_class(rc, is_tern ? MPI_ERR_TYPE : rc, "MPI_DATATYPE_NULL");
    TT_CHECK(b[0] == 3 && b[1] == 4 && g[0] == 3 && e[1] == 4,
             "a failing MPI_Reduce_local changed its inout buffer");
    MPI_Op op = MPI_SUM;
    expect_class(MPI_Op_free(&op), MPI_ERR_OP, "MPI_Op_free(MPI_SUM)");
    TT_CHECK(op == MPI_SUM, "a failing MPI_Op_free changed the handle");
    op = MPI_OP_NULL;
    expect_class(MPI_Op_free(&op), MPI_ERR_OP, "MPI_Op_free(MPI_OP_NULL)");
    /* Count 0 with NULL buffers is fine. */
    TT_MPI(MPI_Reduce_local(NULL, NULL, 0, MPI_INT, MPI_SUM));
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "op_local");
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    TT_MPI(MPI_Get_library_version(lib, &len));
    int is_tern = !strncmp(lib, "Tern", 4);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    static const int lens[] = { 1, 7, 31, 32, 33, 64, 65, 257, 1000 };
    for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
        check_int_ops(lens[k]);
        check_double_ops(lens[k]);
    }
    check_double_ops(1 << 20);
    check_complex();
    check_logic();
    check_loc();
    check_vector_type(is_tern);
    check_user_ops();
    check_errors(is_tern);
    return tt_finish();
}
