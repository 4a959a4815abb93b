/*
 * type_attr: attribute caching on datatypes, MPI_Type_match_size, and
 * MPI_Get_elements on the pair types.
 *
 * Attributes: keyvals with user copy and delete callbacks and with the
 * predefined MPI_TYPE_DUP_FN / MPI_TYPE_NULL_COPY_FN /
 * MPI_TYPE_NULL_DELETE_FN; which callbacks run, how often and with which
 * values on set, overwrite, get, delete, MPI_Type_dup and MPI_Type_free;
 * attributes on a predefined type and on an uncommitted one; a keyval
 * freed while attributes still use it (its number still reads and deletes
 * them); a communicator keyval refused on a datatype; with Tern, a failing
 * delete callback makes MPI_Type_free fail and keeps the type.
 *
 * MPI_Type_match_size: for every C type of each class, a predefined type
 * of that class and size comes back; a size no type has is an error.
 *
 * MPI_Get_elements: the standard defines MPI_FLOAT_INT and the other pair
 * types as structs of two basic elements, so a message of one pair holds
 * two elements, and a message that ends after a pair's first member holds
 * one more than the whole pairs before it.
 *
 * Every rank runs the same local checks. Uses only the standard MPI API.
 */
#include "tt.h"

static int marker;                 /* Its address is the extra_state. */
static int n_copy, n_delete;
static long deleted[16];           /* Values the delete callback saw. */
static int extra_ok = 1;

#define V(x) ((void *)(intptr_t)(x))

static int copy_plus_100(MPI_Datatype t, int keyval, void *extra, void *in, void *out,
                         int *flag)
{
    (void)t;
    (void)keyval;
    extra_ok &= extra == &marker;
    n_copy++;
    *(void **)out = (void *)((intptr_t)in + 100);
    *flag = 1;
    return MPI_SUCCESS;
}

static int record_delete(MPI_Datatype t, int keyval, void *value, void *extra)
{
    (void)t;
    (void)keyval;
    extra_ok &= extra == &marker;
    if (n_delete < (int)(sizeof deleted / sizeof *deleted))
        deleted[n_delete] = (long)(intptr_t)value;
    n_delete++;
    return MPI_SUCCESS;
}

static int delete_fails(MPI_Datatype t, int keyval, void *value, void *extra)
{
    (void)t;
    (void)keyval;
    (void)value;
    (void)extra;
    return MPI_ERR_OTHER;
}

static void expect_attr(MPI_Datatype t, int keyval, long value, const char *what)
{
    void *got = NULL;
    int flag = -1;
    TT_MPI(MPI_Type_get_attr(t, keyval, &got, &flag));
    if (value < 0) {
        TT_CHECK(!flag, "%s: attribute present (value %ld), expected none", what,
                 (long)(intptr_t)got);
    } else {
        TT_CHECK(flag, "%s: attribute missing, expected %ld", what, value);
        TT_EQ(what, value, (long)(intptr_t)got);
    }
}

/* Fails unless the delete callback saw exactly these values since `from`,
 * in any order. */
static void expect_deleted(int from, int n, const long *values, const char *what)
{
    TT_EQ(what, n, n_delete - from);
    for (int i = 0; i < n; i++) {
        int found = 0;
        for (int j = from; j < n_delete; j++)
            found |= deleted[j] == values[i];
        TT_CHECK(found, "%s: no delete callback for value %ld", what, values[i]);
    }
}

static void test_callbacks(void)
{
    int k1, k2, k3, base;
    MPI_Datatype vec, dup;
    TT_MPI(MPI_Type_create_keyval(copy_plus_100, record_delete, &k1, &marker));
    TT_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, record_delete, &k2, &marker));
    TT_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &k3,
                                  &marker));
    TT_CHECK(k1 != k2 && k2 != k3 && k1 != k3, "keyvals are not distinct");

    /* On an uncommitted type, before and after it is committed. */
    TT_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    expect_attr(vec, k1, -1, "k1 before set");
    TT_MPI(MPI_Type_set_attr(vec, k1, V(1)));
    TT_MPI(MPI_Type_commit(&vec));
    expect_attr(vec, k1, 1, "k1 after commit");
    base = n_delete;
    TT_MPI(MPI_Type_set_attr(vec, k1, V(2)));
    expect_deleted(base, 1, (long[]){ 1 }, "overwrite deletes the old value");
    TT_MPI(MPI_Type_set_attr(vec, k2, V(3)));
    TT_MPI(MPI_Type_set_attr(vec, k3, V(4)));

    /* Dup: copy_plus_100 runs, DUP_FN copies as is, NULL_COPY_FN not. */
    int c0 = n_copy;
    base = n_delete;
    TT_MPI(MPI_Type_dup(vec, &dup));
    TT_EQ("user copy callbacks run by MPI_Type_dup", 1, n_copy - c0);
    TT_EQ("delete callbacks run by MPI_Type_dup", 0, n_delete - base);
    expect_attr(dup, k1, 102, "k1 on the dup");
    expect_attr(dup, k2, 3, "k2 (MPI_TYPE_DUP_FN) on the dup");
    expect_attr(dup, k3, -1, "k3 (MPI_TYPE_NULL_COPY_FN) on the dup");
    expect_attr(vec, k1, 2, "k1 on the original after the dup");

    base = n_delete;
    TT_MPI(MPI_Type_delete_attr(vec, k2));
    expect_deleted(base, 1, (long[]){ 3 }, "MPI_Type_delete_attr");
    expect_attr(vec, k2, -1, "k2 after delete");
    expect_attr(dup, k2, 3, "k2 on the dup after deleting the original's");

    /* Free k1 while attributes use it: its number still reads and deletes
     * them, and MPI_Type_free still runs its delete callback. */
    int k1_number = k1;
    TT_MPI(MPI_Type_free_keyval(&k1));
    TT_EQ("keyval after MPI_Type_free_keyval", MPI_KEYVAL_INVALID, k1);
    expect_attr(vec, k1_number, 2, "k1 read with its number after MPI_Type_free_keyval");
    base = n_delete;
    TT_MPI(MPI_Type_delete_attr(vec, k1_number));
    expect_deleted(base, 1, (long[]){ 2 }, "MPI_Type_delete_attr with a freed keyval");

    base = n_delete;
    TT_MPI(MPI_Type_free(&dup));
    expect_deleted(base, 2, (long[]){ 3, 102 }, "MPI_Type_free of the dup");
    TT_CHECK(dup == MPI_DATATYPE_NULL, "MPI_Type_free did not reset the handle");
    base = n_delete;
    TT_MPI(MPI_Type_free(&vec));
    /* k3 has MPI_TYPE_NULL_DELETE_FN: nothing recorded for 4. */
    TT_EQ("delete callbacks run by MPI_Type_free of the original", 0, n_delete - base);
    TT_CHECK(extra_ok, "a callback got the wrong extra_state");
    TT_MPI(MPI_Type_free_keyval(&k2));
    TT_MPI(MPI_Type_free_keyval(&k3));
}

/* Predefined types cache attributes too; MPI_Type_dup of one copies them. */
static void test_predefined(void)
{
    int k, base = n_delete;
    MPI_Datatype d;
    TT_MPI(MPI_Type_create_keyval(copy_plus_100, record_delete, &k, &marker));
    TT_MPI(MPI_Type_set_attr(MPI_DOUBLE, k, V(5)));
    expect_attr(MPI_DOUBLE, k, 5, "an attribute on MPI_DOUBLE");
    expect_attr(MPI_FLOAT, k, -1, "the same keyval on MPI_FLOAT");
    TT_MPI(MPI_Type_dup(MPI_DOUBLE, &d));
    expect_attr(d, k, 105, "the attribute on a dup of MPI_DOUBLE");
    TT_MPI(MPI_Type_free(&d));
    TT_MPI(MPI_Type_delete_attr(MPI_DOUBLE, k));
    expect_deleted(base, 2, (long[]){ 105, 5 }, "MPI_DOUBLE's attribute and its copy");
    TT_MPI(MPI_Type_free_keyval(&k));
}

static int tern(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    return !strncmp(lib, "Tern", 4);
}

static void test_errors(void)
{
    int kc, kt, rc, cls;
    MPI_Datatype t;
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    TT_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kc, NULL));
    rc = MPI_Type_set_attr(MPI_INT, kc, V(1));
    TT_CHECK(rc != MPI_SUCCESS, "MPI_Type_set_attr with a communicator keyval succeeded");
    MPI_Error_class(rc, &cls);
    if (tern())
        TT_EQ("class of MPI_Type_set_attr with a communicator keyval", MPI_ERR_KEYVAL, cls);
    TT_MPI(MPI_Comm_free_keyval(&kc));

    /* A delete callback that fails makes the call erroneous (MPI-4.1
     * 7.7.2); Tern's MPI_Type_free then fails and keeps the type, as its
     * MPI_Comm_free does (MPICH and Open MPI free it). */
    if (tern()) {
        TT_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_fails, &kt, NULL));
        TT_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
        TT_MPI(MPI_Type_commit(&t));
        TT_MPI(MPI_Type_set_attr(t, kt, V(9)));
        rc = MPI_Type_free(&t);
        TT_CHECK(rc != MPI_SUCCESS, "MPI_Type_free succeeded though a delete callback failed");
        TT_CHECK(t != MPI_DATATYPE_NULL, "a failed MPI_Type_free reset the handle");
        int size = 0;
        TT_MPI(MPI_Type_size(t, &size));
        TT_EQ("size of a type whose MPI_Type_free failed", (int)(2 * sizeof(int)), size);
        expect_attr(t, kt, 9, "the attribute whose delete callback failed");
    }
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void expect_match(int typeclass, int size, const char *what)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int got = -1;
    TT_MPI(MPI_Type_match_size(typeclass, size, &t));
    TT_MPI(MPI_Type_size(t, &got));
    TT_EQ(what, size, got);
}

static void test_match_size(void)
{
    expect_match(MPI_TYPECLASS_REAL, sizeof(float), "MPI_Type_match_size, REAL, float");
    expect_match(MPI_TYPECLASS_REAL, sizeof(double), "... REAL, double");
    expect_match(MPI_TYPECLASS_REAL, sizeof(long double), "... REAL, long double");
    expect_match(MPI_TYPECLASS_INTEGER, sizeof(char), "... INTEGER, char");
    expect_match(MPI_TYPECLASS_INTEGER, sizeof(short), "... INTEGER, short");
    expect_match(MPI_TYPECLASS_INTEGER, sizeof(int), "... INTEGER, int");
    expect_match(MPI_TYPECLASS_INTEGER, sizeof(long long), "... INTEGER, long long");
    expect_match(MPI_TYPECLASS_COMPLEX, 2 * sizeof(float), "... COMPLEX, float pair");
    expect_match(MPI_TYPECLASS_COMPLEX, 2 * sizeof(double), "... COMPLEX, double pair");
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype t;
    TT_CHECK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t) != MPI_SUCCESS,
             "MPI_Type_match_size found an INTEGER type of 3 bytes");
    TT_CHECK(MPI_Type_match_size(12345, 4, &t) != MPI_SUCCESS,
             "MPI_Type_match_size accepted type class 12345");
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* Sends `bytes` packed bytes of MPI_BYTE to itself, receives them as
 * `count` elements of type t, and checks MPI_Get_elements and
 * MPI_Get_count against the expected values. */
static void expect_elements(const void *buf, int bytes, MPI_Datatype t, int count,
                            int elements, int whole, const char *what)
{
    char in[256];
    MPI_Status st;
    MPI_Request r;
    TT_MPI(MPI_Irecv(in, count, t, tt_rank, 5, MPI_COMM_WORLD, &r));
    TT_MPI(MPI_Send(buf, bytes, MPI_BYTE, tt_rank, 5, MPI_COMM_WORLD));
    TT_MPI(MPI_Wait(&r, &st));
    int n = -1, c = -1;
    TT_MPI(MPI_Get_elements(&st, t, &n));
    TT_MPI(MPI_Get_count(&st, t, &c));
    TT_EQ(what, elements, n);
    TT_EQ(what, whole, c);
}

static void test_pair_elements(void)
{
    struct { double d; int i; } di[3] = { { 1.0, 1 }, { 2.0, 2 }, { 3.0, 3 } };
    char packed[64];
    int pos = 0;
    /* Packed: whole pairs, then a lone double. */
    TT_MPI(MPI_Pack(di, 2, MPI_DOUBLE_INT, packed, sizeof packed, &pos, MPI_COMM_SELF));
    int two = pos;
    TT_MPI(MPI_Pack(&di[2].d, 1, MPI_DOUBLE, packed, sizeof packed, &pos, MPI_COMM_SELF));
    expect_elements(packed, two / 2, MPI_DOUBLE_INT, 3, 2, 1, "one MPI_DOUBLE_INT");
    expect_elements(packed, two, MPI_DOUBLE_INT, 3, 4, 2, "two MPI_DOUBLE_INT");
    expect_elements(packed, pos, MPI_DOUBLE_INT, 3, 5, MPI_UNDEFINED,
                    "two MPI_DOUBLE_INT and a double");
    MPI_Datatype two_pairs;
    TT_MPI(MPI_Type_contiguous(2, MPI_2INT, &two_pairs));
    TT_MPI(MPI_Type_commit(&two_pairs));
    int ints[8] = { 0 };
    expect_elements(ints, 4 * sizeof(int), two_pairs, 2, 4, 1,
                    "MPI_Type_contiguous(2, MPI_2INT)");
    expect_elements(ints, 3 * sizeof(int), two_pairs, 2, 3, MPI_UNDEFINED,
                    "three ints into MPI_Type_contiguous(2, MPI_2INT)");

    /* MPI_Status_set_elements: three basic elements of MPI_FLOAT_INT are
     * one pair and a float. */
    MPI_Status st;
    int n = -1;
    TT_MPI(MPI_Status_set_elements(&st, MPI_FLOAT_INT, 3));
    TT_MPI(MPI_Get_elements(&st, MPI_FLOAT_INT, &n));
    TT_EQ("MPI_Get_elements after MPI_Status_set_elements(MPI_FLOAT_INT, 3)", 3, n);
    TT_MPI(MPI_Get_count(&st, MPI_FLOAT_INT, &n));
    TT_EQ("MPI_Get_count after MPI_Status_set_elements(MPI_FLOAT_INT, 3)", MPI_UNDEFINED, n);
    TT_MPI(MPI_Type_free(&two_pairs));
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "type_attr");
    test_callbacks();
    test_predefined();
    test_errors();
    test_match_size();
    test_pair_elements();
    return tt_finish();
}
