/*
 * dtype_query: what derived datatypes report about themselves, and the
 * errors the standard requires for them. No data moves between ranks: every
 * rank runs the same checks on its own.
 *
 * Cases: lb, extent, true lb and true extent of a vector with a negative
 * stride, a resized int, structs with and without a resized field, and an
 * empty contiguous type (whose size is 0), as the standard defines them;
 * the names of a predefined and a derived type and MPI_Type_set_name; with
 * MPI_ERRORS_RETURN, MPI_ERR_TYPE for sending an uncommitted type and for
 * freeing MPI_INT; and MPI_Type_get_envelope/contents of MPI_INT, of a
 * struct of a vector after the vector was freed, of a Fortran-order
 * subarray and of a resized struct. The cases that move data are in
 * dtype_p2p.c.
 */
#include "tt.h"

static void check_extent(MPI_Datatype t, long lb, long ext, long tlb, long text,
                         const char *what)
{
    MPI_Aint a, b;
    TT_MPI(MPI_Type_get_extent(t, &a, &b));
    if (a != lb || b != ext)
        TT_FAIL("%s: lb %ld extent %ld, want %ld %ld", what, (long)a, (long)b, lb, ext);
    TT_MPI(MPI_Type_get_true_extent(t, &a, &b));
    if (a != tlb || b != text)
        TT_FAIL("%s: true lb %ld extent %ld, want %ld %ld", what, (long)a, (long)b, tlb, text);
}

/* Bounds as the standard defines them (and as Open MPI computes them). */
static void case_extents(void)
{
    MPI_Datatype v, r, s, c;
    TT_MPI(MPI_Type_vector(3, 2, -5, MPI_INT, &v));
    check_extent(v, -40, 48, -40, 48, "vector(3, 2, -5, int)");
    TT_MPI(MPI_Type_create_resized(MPI_INT, -4, 16, &r));
    check_extent(r, -4, 16, 0, 4, "resized(int, -4, 16)");
    int bl[2] = { 1, 1 };
    MPI_Aint d[2] = { 0, 20 };
    MPI_Datatype t[2] = { r, MPI_CHAR };
    TT_MPI(MPI_Type_create_struct(2, bl, d, t, &s));
    check_extent(s, -4, 16, 0, 21, "struct {resized int, char at 20}");
    TT_MPI(MPI_Type_free(&s));
    MPI_Datatype t2[2] = { MPI_DOUBLE, MPI_CHAR };
    d[1] = 8;
    TT_MPI(MPI_Type_create_struct(2, bl, d, t2, &s));
    check_extent(s, 0, 16, 0, 9, "struct {double, char}");
    TT_MPI(MPI_Type_contiguous(0, MPI_INT, &c));
    check_extent(c, 0, 0, 0, 0, "contiguous(0, int)");
    int size = -1, len = -1;
    TT_MPI(MPI_Type_size(c, &size));
    TT_EQ("size of contiguous(0, int)", 0, size);
    char name[MPI_MAX_OBJECT_NAME];
    TT_MPI(MPI_Type_get_name(MPI_INT, name, &len));
    TT_CHECK(strcmp(name, "MPI_INT") == 0 && len == 7, "name of MPI_INT: '%s'", name);
    TT_MPI(MPI_Type_get_name(v, name, &len));
    TT_CHECK(len == 0 && name[0] == 0, "a derived type has the name '%s'", name);
    TT_MPI(MPI_Type_set_name(v, "my vector"));
    TT_MPI(MPI_Type_get_name(v, name, &len));
    TT_CHECK(strcmp(name, "my vector") == 0 && len == 9, "set name: '%s'", name);
    MPI_Type_free(&v);
    MPI_Type_free(&r);
    MPI_Type_free(&s);
    MPI_Type_free(&c);
}

/* Errors the standard requires, with MPI_ERRORS_RETURN. */
static void case_errors(void)
{
    MPI_Datatype v, p = MPI_INT;
    int x[4] = { 0 }, cls;
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    TT_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
    int rc = MPI_Send(x, 1, v, tt_rank, 13, MPI_COMM_WORLD);
    TT_CHECK(rc != MPI_SUCCESS, "sending an uncommitted type succeeded");
    TT_MPI(MPI_Error_class(rc, &cls));
    TT_EQ("error class of an uncommitted type", MPI_ERR_TYPE, cls);
    rc = MPI_Type_free(&p);
    TT_CHECK(rc != MPI_SUCCESS, "freeing MPI_INT succeeded");
    TT_MPI(MPI_Error_class(rc, &cls));
    TT_EQ("error class of freeing MPI_INT", MPI_ERR_TYPE, cls);
    TT_MPI(MPI_Type_free(&v));
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
}

/* Decoding: envelope and contents of nested types, after the originals
 * were freed. */
static void case_contents(void)
{
    MPI_Datatype v, s, r, t[2], got[2];
    int ni, na, nd, comb, ints[8];
    MPI_Aint addrs[4];
    TT_MPI(MPI_Type_vector(3, 2, 5, MPI_INT, &v));
    int bl[2] = { 2, 1 };
    MPI_Aint d[2] = { 0, 100 };
    t[0] = v;
    t[1] = MPI_DOUBLE;
    TT_MPI(MPI_Type_create_struct(2, bl, d, t, &s));
    TT_MPI(MPI_Type_free(&v));
    TT_MPI(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb));
    TT_EQ("combiner of MPI_INT", MPI_COMBINER_NAMED, comb);
    TT_MPI(MPI_Type_get_envelope(s, &ni, &na, &nd, &comb));
    TT_EQ("struct combiner", MPI_COMBINER_STRUCT, comb);
    TT_CHECK(ni == 3 && na == 2 && nd == 2, "struct envelope %d %d %d", ni, na, nd);
    TT_MPI(MPI_Type_get_contents(s, 8, 4, 2, ints, addrs, got));
    TT_CHECK(ints[0] == 2 && ints[1] == 2 && ints[2] == 1, "struct ints %d %d %d", ints[0],
             ints[1], ints[2]);
    TT_CHECK(addrs[0] == 0 && addrs[1] == 100, "struct addresses %ld %ld", (long)addrs[0],
             (long)addrs[1]);
    TT_CHECK(got[1] == MPI_DOUBLE, "the second field's type is not MPI_DOUBLE");
    TT_MPI(MPI_Type_get_envelope(got[0], &ni, &na, &nd, &comb));
    TT_EQ("field 0 combiner", MPI_COMBINER_VECTOR, comb);
    TT_CHECK(ni == 3 && na == 0 && nd == 1, "vector envelope %d %d %d", ni, na, nd);
    MPI_Datatype inner;
    TT_MPI(MPI_Type_get_contents(got[0], 3, 0, 1, ints, addrs, &inner));
    TT_CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 5 && inner == MPI_INT,
             "vector contents %d %d %d", ints[0], ints[1], ints[2]);
    TT_MPI(MPI_Type_free(&got[0]));

    int sz[2] = { 4, 6 }, sub[2] = { 2, 3 }, st[2] = { 1, 2 };
    TT_MPI(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_FORTRAN, MPI_FLOAT, &r));
    TT_MPI(MPI_Type_get_envelope(r, &ni, &na, &nd, &comb));
    TT_CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 8 && na == 0 && nd == 1,
             "subarray envelope %d: %d %d %d", comb, ni, na, nd);
    TT_MPI(MPI_Type_get_contents(r, 8, 0, 1, ints, addrs, got));
    int want[8] = { 2, 4, 6, 2, 3, 1, 2, MPI_ORDER_FORTRAN };
    for (int k = 0; k < 8; k++)
        TT_EQ("subarray contents", want[k], ints[k]);
    TT_MPI(MPI_Type_free(&r));
    TT_MPI(MPI_Type_create_resized(s, -8, 64, &r));
    TT_MPI(MPI_Type_get_envelope(r, &ni, &na, &nd, &comb));
    TT_CHECK(comb == MPI_COMBINER_RESIZED && ni == 0 && na == 2 && nd == 1,
             "resized envelope");
    TT_MPI(MPI_Type_get_contents(r, 0, 2, 1, ints, addrs, got));
    TT_CHECK(addrs[0] == -8 && addrs[1] == 64, "resized contents");
    TT_MPI(MPI_Type_get_envelope(got[0], &ni, &na, &nd, &comb));
    TT_EQ("resized's old type combiner", MPI_COMBINER_STRUCT, comb);
    TT_MPI(MPI_Type_free(&got[0]));
    TT_MPI(MPI_Type_free(&r));
    TT_MPI(MPI_Type_free(&s));
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "dtype_query");
    case_extents();
    case_errors();
    case_contents();
    return tt_finish();
}
