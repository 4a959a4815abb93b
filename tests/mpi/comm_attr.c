/*
 * comm_attr: attribute caching on communicators.
 *
 * Keyvals with user copy and delete callbacks and with the predefined
 * MPI_COMM_DUP_FN / MPI_COMM_NULL_COPY_FN / MPI_COMM_NULL_DELETE_FN; which
 * callbacks run, how often and with which values on set, overwrite, get,
 * delete, MPI_Comm_dup and MPI_Comm_free; a keyval freed while attributes
 * still use it; the deprecated MPI-1 calls; the predefined attributes of
 * MPI_COMM_WORLD; inheritance of the error handler and the empty name; and
 * that MPI_Finalize deletes the attributes of MPI_COMM_SELF first thing,
 * newest first, while MPI still works.
 */
#include "tt.h"

static int marker;                 /* Its address is the extra_state. */
static int n_copy, n_delete;
static long deleted[64];           /* Values the delete callback saw. */
static int extra_ok = 1;
static int delete_size = -1;       /* MPI_Comm_size seen inside a delete. */

static int copy_plus_1000(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm;
    (void)keyval;
    extra_ok &= extra == &marker;
    n_copy++;
    *(void **)out = (void *)((intptr_t)in + 1000);
    *flag = 1;
    return MPI_SUCCESS;
}

static int copy_never(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    (void)in;
    (void)out;
    n_copy++;
    *flag = 0;
    return MPI_SUCCESS;
}

static int copy_fails(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    (void)in;
    (void)out;
    *flag = 0;
    return MPI_ERR_OTHER;
}

static int record_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)keyval;
    extra_ok &= extra == &marker;
    if (n_delete < 64)
        deleted[n_delete] = (long)(intptr_t)val;
    n_delete++;
    /* The communicator is still usable inside the callback. */
    MPI_Comm_size(comm, &delete_size);
    return MPI_SUCCESS;
}

/* Order of deletion of MPI_COMM_SELF's attributes at MPI_Finalize. */
static long self_order[8];
static int n_self, self_finalized_flag = -1, self_rank = -1;

static int record_self_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    if (n_self < 8)
        self_order[n_self] = (long)(intptr_t)val;
    n_self++;
    MPI_Finalized(&self_finalized_flag);
    MPI_Comm_rank(MPI_COMM_WORLD, &self_rank);
    return MPI_SUCCESS;
}

static void *V(long v) { return (void *)(intptr_t)v; }

/* Fails unless comm has keyval set to `value` (or unset when value < 0). */
static void expect_attr(MPI_Comm comm, int keyval, long value, const char *what)
{
    void *got = NULL;
    int flag = -1;
    TT_MPI(MPI_Comm_get_attr(comm, keyval, &got, &flag));
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
    int k1, k2, k3, k4, base;
    MPI_Comm d, d2;
    TT_MPI(MPI_Comm_create_keyval(copy_plus_1000, record_delete, &k1, &marker));
    TT_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, record_delete, &k2, &marker));
    TT_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, record_delete, &k3, &marker));
    TT_MPI(MPI_Comm_create_keyval(copy_never, MPI_COMM_NULL_DELETE_FN, &k4, &marker));
    TT_CHECK(k1 != k2 && k2 != k3 && k3 != k4 && k1 != k3, "keyvals are not distinct");
    TT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    expect_attr(d, k1, -1, "k1 before set");

    TT_MPI(MPI_Comm_set_attr(d, k1, V(7)));
    expect_attr(d, k1, 7, "k1 after set");
    base = n_delete;
    TT_MPI(MPI_Comm_set_attr(d, k1, V(8)));
    expect_deleted(base, 1, (long[]){ 7 }, "overwrite deletes the old value");
    expect_attr(d, k1, 8, "k1 after overwrite");
    TT_MPI(MPI_Comm_set_attr(d, k2, V(20)));
    TT_MPI(MPI_Comm_set_attr(d, k3, V(30)));
    TT_MPI(MPI_Comm_set_attr(d, k4, V(40)));
    expect_attr(MPI_COMM_WORLD, k1, -1, "k1 on world");

    /* Dup: copy_plus_1000 and copy_never run; DUP_FN copies as is. */
    int c0 = n_copy;
    base = n_delete;
    TT_MPI(MPI_Comm_dup(d, &d2));
    TT_EQ("user copy callbacks run by MPI_Comm_dup", 2, n_copy - c0);
    TT_EQ("delete callbacks run by MPI_Comm_dup", 0, n_delete - base);
    expect_attr(d2, k1, 1008, "k1 on the dup");
    expect_attr(d2, k2, 20, "k2 (MPI_COMM_DUP_FN) on the dup");
    expect_attr(d2, k3, -1, "k3 (MPI_COMM_NULL_COPY_FN) on the dup");
    expect_attr(d2, k4, -1, "k4 (flag 0) on the dup");
    expect_attr(d, k1, 8, "k1 on the original after dup");

    /* Delete one; deleting an absent one is no error for the callbacks. */
    base = n_delete;
    TT_MPI(MPI_Comm_delete_attr(d, k2));
    expect_deleted(base, 1, (long[]){ 20 }, "MPI_Comm_delete_attr");
    expect_attr(d, k2, -1, "k2 after delete");
    expect_attr(d2, k2, 20, "k2 on the dup after deleting the original's");

    /* Free k1 while attributes use it: the handle goes, the callbacks stay. */
    int k1_number = k1;
    TT_MPI(MPI_Comm_free_keyval(&k1));
    TT_EQ("keyval after MPI_Comm_free_keyval", MPI_KEYVAL_INVALID, k1);
    base = n_delete;
    delete_size = -1;
    TT_MPI(MPI_Comm_free(&d2));
    expect_deleted(base, 2, (long[]){ 1008, 20 }, "MPI_Comm_free of the dup");
    TT_EQ("MPI_Comm_size inside a delete callback", tt_size, delete_size);
    /* The freed keyval's number still reads and deletes the attributes
     * that use it: the standard has the program free them "via calls to
     * MPI_COMM_DELETE_ATTR" or MPI_Comm_free. */
    expect_attr(d, k1_number, 8, "k1 read with its number after MPI_Comm_free_keyval");
    base = n_delete;
    TT_MPI(MPI_Comm_delete_attr(d, k1_number));
    expect_deleted(base, 1, (long[]){ 8 }, "MPI_Comm_delete_attr with a freed keyval");
    base = n_delete;
    TT_MPI(MPI_Comm_free(&d));
    /* k4 has MPI_COMM_NULL_DELETE_FN: nothing recorded for 40. */
    expect_deleted(base, 1, (long[]){ 30 }, "MPI_Comm_free of the original");
    TT_CHECK(extra_ok, "a callback got the wrong extra_state");
    TT_MPI(MPI_Comm_free_keyval(&k2));
    TT_MPI(MPI_Comm_free_keyval(&k3));
    TT_MPI(MPI_Comm_free_keyval(&k4));
}

/* Other MPIs' headers mark the MPI-1 calls deprecated; using them is the
 * point here. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static void test_deprecated(void)
{
    int kv, flag = 0, base = n_delete;
    void *got = NULL;
    TT_MPI(MPI_Keyval_create(MPI_DUP_FN, record_delete, &kv, &marker));
    TT_MPI(MPI_Attr_put(MPI_COMM_WORLD, kv, V(55)));
    TT_MPI(MPI_Attr_get(MPI_COMM_WORLD, kv, &got, &flag));
    TT_CHECK(flag && got == V(55), "MPI_Attr_get: flag %d value %ld", flag, (long)(intptr_t)got);
    TT_MPI(MPI_Attr_delete(MPI_COMM_WORLD, kv));
    expect_deleted(base, 1, (long[]){ 55 }, "MPI_Attr_delete");
    TT_MPI(MPI_Keyval_free(&kv));
    TT_EQ("keyval after MPI_Keyval_free", MPI_KEYVAL_INVALID, kv);
}

static void test_predefined(void)
{
    int *val = NULL, flag = 0;
    TT_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &val, &flag));
    TT_CHECK(flag && val && *val >= 32767, "MPI_TAG_UB: flag %d value %d", flag, val ? *val : -1);
    TT_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &val, &flag));
    TT_CHECK(!flag || *val == 0 || *val == 1, "MPI_WTIME_IS_GLOBAL is %d", *val);
    TT_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &val, &flag));
    TT_CHECK(flag, "MPI_IO is missing");
}

static void test_errors_and_inheritance(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len, rc, cls;
    MPI_Get_library_version(lib, &len);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* An error; its class is MPI_ERR_KEYVAL in Tern (Open MPI says
     * MPI_ERR_OTHER). */
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, V(1));
    MPI_Error_class(rc, &cls);
    TT_CHECK(rc != MPI_SUCCESS, "MPI_Comm_set_attr with MPI_KEYVAL_INVALID succeeded");
    if (!strncmp(lib, "Tern", 4))
        TT_EQ("class of MPI_Comm_set_attr with MPI_KEYVAL_INVALID", MPI_ERR_KEYVAL, cls);

    /* New communicators inherit the handler and have no name. */
    MPI_Comm d;
    MPI_Errhandler e;
    TT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    TT_MPI(MPI_Comm_get_errhandler(d, &e));
    TT_CHECK(e == MPI_ERRORS_RETURN, "the dup did not inherit MPI_ERRORS_RETURN");
    MPI_Errhandler_free(&e);
    char name[MPI_MAX_OBJECT_NAME];
    TT_MPI(MPI_Comm_get_name(d, name, &len));
    TT_EQ("name length of a dup", 0, len);

    if (!strncmp(lib, "Tern", 4)) {
        /* A failing copy callback makes MPI_Comm_dup fail, and the copies
         * made before it are deleted again. */
        int ka, kb, base = n_delete;
        MPI_Comm d2 = MPI_COMM_WORLD;
        TT_MPI(MPI_Comm_create_keyval(copy_plus_1000, record_delete, &ka, &marker));
        TT_MPI(MPI_Comm_create_keyval(copy_fails, record_delete, &kb, &marker));
        TT_MPI(MPI_Comm_set_attr(d, ka, V(3)));
        TT_MPI(MPI_Comm_set_attr(d, kb, V(4)));
        rc = MPI_Comm_dup(d, &d2);
        TT_CHECK(rc != MPI_SUCCESS, "MPI_Comm_dup succeeded though a copy callback failed");
        TT_CHECK(d2 == MPI_COMM_NULL, "a failed MPI_Comm_dup did not set the new handle to "
                                      "MPI_COMM_NULL");
        expect_deleted(base, 1, (long[]){ 1003 }, "undoing the copies of a failed dup");
        rc = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, V(1));
        MPI_Error_class(rc, &cls);
        TT_EQ("class of MPI_Comm_set_attr on MPI_TAG_UB", MPI_ERR_KEYVAL, cls);
        TT_MPI(MPI_Comm_free_keyval(&ka));
        TT_MPI(MPI_Comm_free_keyval(&kb));
    }
    TT_MPI(MPI_Comm_free(&d));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "comm_attr");
    test_callbacks();
    test_deprecated();
    test_predefined();
    test_errors_and_inheritance();

    int kself;
    TT_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, record_self_delete, &kself, NULL));
    int kself2;
    TT_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, record_self_delete, &kself2, NULL));
    TT_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, kself, V(1)));
    TT_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, kself2, V(2)));
    /* The keyval may be freed before MPI_Finalize; the attribute stays. */
    TT_MPI(MPI_Comm_free_keyval(&kself2));

    /* tt_finish, with the checks of the finalize-time deletion between
     * MPI_Finalize and the OK line. */
    int token = 1;
    if (tt_rank == 0) {
        for (int r = 1; r < tt_size; r++)
            TT_MPI(MPI_Recv(&token, 1, MPI_INT, r, TT_TAG_DONE, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
    } else {
        TT_MPI(MPI_Send(&token, 1, MPI_INT, 0, TT_TAG_DONE, MPI_COMM_WORLD));
    }
    TT_EQ("MPI_COMM_SELF delete callbacks before MPI_Finalize", 0, n_self);
    TT_MPI(MPI_Finalize());
    if (n_self != 2 || self_order[0] != 2 || self_order[1] != 1 || self_finalized_flag != 0 ||
        self_rank != tt_rank) {
        fprintf(stderr, "FAIL comm_attr rank %d: MPI_COMM_SELF attributes at MPI_Finalize: "
                "%d deleted (expected 2), order %ld %ld (expected 2 1), MPI_Finalized %d "
                "(expected 0), MPI_Comm_rank %d (expected %d)\n", tt_rank, n_self,
                self_order[0], self_order[1], self_finalized_flag, self_rank, tt_rank);
        return 1;
    }
    if (tt_rank == 0)
        printf("OK comm_attr\n");
    return 0;
}
