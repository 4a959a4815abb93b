/*
 * info: info objects (MPI 4.1, chapter "The Info Object") and the calls
 * that take one.
 *
 *  - Info calls work before MPI_Init.
 *  - Set, get, replace, delete; MPI_Info_get_nthkey numbers the keys in
 *    the order they were first set, replacing a value keeps a key's place
 *    and deleting one moves the later ones down; keys and values keep
 *    their blanks in C (the standard strips them only in Fortran).
 *  - MPI_Info_get_string: buflen in (the buffer's size) and out (the
 *    value's length plus one), truncation with a null, buflen 0 only
 *    asking for the length; MPI_Info_get: valuelen characters and a null;
 *    MPI_Info_get_valuelen. A missing key gives flag false and leaves
 *    value and buflen alone.
 *  - MPI_Info_dup copies the pairs in order, and the copy is independent.
 *  - Errors, with their classes: keys of 0 and MPI_MAX_INFO_KEY characters
 *    (MPI_ERR_INFO_KEY; MPI_MAX_INFO_KEY - 1 is fine), values of 0 and
 *    MPI_MAX_INFO_VAL + 1 characters (MPI_ERR_INFO_VALUE), deleting a
 *    missing key (MPI_ERR_INFO_NOKEY), n out of range in get_nthkey
 *    (MPI_ERR_ARG), MPI_INFO_NULL, garbage, freed and other kinds of
 *    handles (MPI_ERR_INFO); they go to MPI_COMM_SELF's error handler.
 *  - MPI_Info_free sets the handle to MPI_INFO_NULL.
 *  - MPI_INFO_ENV holds "command" (this program), cannot be changed or
 *    freed; MPI_Info_create_env from argc and argv.
 *  - Calls that take hints accept an info: MPI_Comm_set_info,
 *    MPI_Comm_get_info (a new info), MPI_Comm_dup_with_info,
 *    MPI_Comm_split_type, and persistent collectives (MPI_Allreduce_init
 *    and MPI_Bcast_init, the info freed before MPI_Start).
 *
 * Uses only the standard MPI API (MPI 4.0 for MPI_Info_get_string,
 * MPI_Info_create_env and the persistent collectives).
 */
#include "tt.h"

/* Fails unless info holds key with exactly the value want. */
static void expect_value(MPI_Info info, const char *key, const char *want)
{
    char buf[MPI_MAX_INFO_VAL + 1];
    int len = (int)sizeof(buf), flag = 0;
    TT_MPI(MPI_Info_get_string(info, key, &len, buf, &flag));
    TT_CHECK(flag, "key \"%s\": not found", key);
    TT_CHECK(strcmp(buf, want) == 0, "key \"%s\": value \"%s\", expected \"%s\"", key,
             buf, want);
    TT_EQ("buflen returned: value length + 1", (int)strlen(want) + 1, len);
}

/* Fails unless info holds exactly the keys want[0..n-1], in that order. */
static void expect_keys(MPI_Info info, const char *const *want, int n)
{
    int nkeys = -1;
    TT_MPI(MPI_Info_get_nkeys(info, &nkeys));
    TT_EQ("MPI_Info_get_nkeys", n, nkeys);
    for (int k = 0; k < n; k++) {
        char key[MPI_MAX_INFO_KEY];
        TT_MPI(MPI_Info_get_nthkey(info, k, key));
        TT_CHECK(strcmp(key, want[k]) == 0, "key %d is \"%s\", expected \"%s\"", k, key,
                 want[k]);
    }
}

static void before_init(void)
{
    MPI_Info info;
    TT_MPI(MPI_Info_create(&info));
    TT_MPI(MPI_Info_set(info, "early", "yes"));
    expect_value(info, "early", "yes");
    TT_MPI(MPI_Info_free(&info));
    TT_CHECK(info == MPI_INFO_NULL, "MPI_Info_free did not set MPI_INFO_NULL");
}

static void set_get_delete(void)
{
    MPI_Info info;
    TT_MPI(MPI_Info_create(&info));
    expect_keys(info, NULL, 0);
    TT_MPI(MPI_Info_set(info, "b", "2"));
    TT_MPI(MPI_Info_set(info, "a", "1"));
    TT_MPI(MPI_Info_set(info, " c ", " three "));
    expect_keys(info, (const char *[]){ "b", "a", " c " }, 3);
    expect_value(info, " c ", " three ");

    TT_MPI(MPI_Info_set(info, "b", "two"));
    expect_keys(info, (const char *[]){ "b", "a", " c " }, 3);
    expect_value(info, "b", "two");

    TT_MPI(MPI_Info_delete(info, "b"));
    expect_keys(info, (const char *[]){ "a", " c " }, 2);
    TT_MPI(MPI_Info_set(info, "b", "again"));
    expect_keys(info, (const char *[]){ "a", " c ", "b" }, 3);

    /* A missing key: flag false, value and buflen left alone. */
    char buf[8] = "xxxxxxx";
    int len = 8, flag = 1;
    TT_MPI(MPI_Info_get_string(info, "c", &len, buf, &flag));
    TT_CHECK(!flag && len == 8 && strcmp(buf, "xxxxxxx") == 0,
             "MPI_Info_get_string of a missing key: flag %d, buflen %d, value \"%s\"",
             flag, len, buf);
    flag = 1;
    TT_MPI(MPI_Info_get(info, "c", 7, buf, &flag));
    TT_CHECK(!flag && strcmp(buf, "xxxxxxx") == 0, "MPI_Info_get of a missing key");
    TT_MPI(MPI_Info_free(&info));
}

static void lengths(void)
{
    MPI_Info info;
    TT_MPI(MPI_Info_create(&info));
    TT_MPI(MPI_Info_set(info, "k", "hello"));
    char buf[8];
    int len = 0, flag = 0;
    TT_MPI(MPI_Info_get_string(info, "k", &len, NULL, &flag));
    TT_CHECK(flag && len == 6, "buflen 0: flag %d, buflen %d (expected 6)", flag, len);
    memset(buf, 'x', sizeof(buf));
    len = 3;
    TT_MPI(MPI_Info_get_string(info, "k", &len, buf, &flag));
    TT_CHECK(strcmp(buf, "he") == 0 && len == 6 && buf[3] == 'x',
             "buflen 3: value \"%s\", buflen %d", buf, len);
    len = 6;
    TT_MPI(MPI_Info_get_string(info, "k", &len, buf, &flag));
    TT_CHECK(strcmp(buf, "hello") == 0 && len == 6, "buflen 6: value \"%s\"", buf);

    memset(buf, 'x', sizeof(buf));
    TT_MPI(MPI_Info_get(info, "k", 2, buf, &flag));
    TT_CHECK(flag && strcmp(buf, "he") == 0 && buf[3] == 'x',
             "MPI_Info_get, valuelen 2: value \"%s\"", buf);
    TT_MPI(MPI_Info_get(info, "k", 7, buf, &flag));
    TT_CHECK(strcmp(buf, "hello") == 0, "MPI_Info_get, valuelen 7: value \"%s\"", buf);
    len = -1;
    TT_MPI(MPI_Info_get_valuelen(info, "k", &len, &flag));
    TT_CHECK(flag && len == 5, "MPI_Info_get_valuelen: flag %d, valuelen %d", flag, len);

    /* The longest key and value allowed, and one character more. */
    char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 2];
    memset(key, 'K', sizeof(key) - 1);
    key[MPI_MAX_INFO_KEY - 1] = '\0';
    memset(value, 'V', sizeof(value) - 1);
    value[MPI_MAX_INFO_VAL] = '\0';
    TT_MPI(MPI_Info_set(info, key, value));
    expect_value(info, key, value);
    key[MPI_MAX_INFO_KEY - 1] = 'K';
    key[MPI_MAX_INFO_KEY] = '\0';
    value[MPI_MAX_INFO_VAL] = 'V';
    value[MPI_MAX_INFO_VAL + 1] = '\0';
    TT_EXPECT_CLASS(MPI_Info_set(info, key, "v"), MPI_ERR_INFO_KEY);
    TT_EXPECT_CLASS(MPI_Info_set(info, "", "v"), MPI_ERR_INFO_KEY);
    TT_EXPECT_CLASS(MPI_Info_set(info, "k", value), MPI_ERR_INFO_VALUE);
    TT_EXPECT_CLASS(MPI_Info_set(info, "k", ""), MPI_ERR_INFO_VALUE);
    TT_EXPECT_CLASS(MPI_Info_get_string(info, key, &len, buf, &flag), MPI_ERR_INFO_KEY);
    TT_EXPECT_CLASS(MPI_Info_delete(info, key), MPI_ERR_INFO_KEY);
    expect_value(info, "k", "hello");
    TT_MPI(MPI_Info_free(&info));
}

static void duplicate(void)
{
    MPI_Info a, b;
    TT_MPI(MPI_Info_create(&a));
    TT_MPI(MPI_Info_set(a, "z", "26"));
    TT_MPI(MPI_Info_set(a, "y", "25"));
    TT_MPI(MPI_Info_dup(a, &b));
    TT_CHECK(a != b, "MPI_Info_dup returned the same handle");
    expect_keys(b, (const char *[]){ "z", "y" }, 2);
    expect_value(b, "y", "25");
    TT_MPI(MPI_Info_set(b, "z", "zed"));
    TT_MPI(MPI_Info_delete(b, "y"));
    expect_keys(a, (const char *[]){ "z", "y" }, 2);
    expect_value(a, "z", "26");
    TT_MPI(MPI_Info_free(&a));
    expect_value(b, "z", "zed");
    TT_MPI(MPI_Info_free(&b));
}

static int self_class = MPI_SUCCESS;

static void on_self(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    MPI_Error_class(*code, &self_class);
}

static void errors(void)
{
    MPI_Errhandler eh;
    TT_MPI(MPI_Comm_create_errhandler(on_self, &eh));
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh));
    MPI_Info info, freed, junk = (MPI_Info)(intptr_t)0x5a5a50;
    TT_MPI(MPI_Info_create(&info));
    TT_MPI(MPI_Info_set(info, "a", "1"));
    TT_EXPECT_CLASS(MPI_Info_delete(info, "b"), MPI_ERR_INFO_NOKEY);
    TT_EQ("class seen by MPI_COMM_SELF's handler", MPI_ERR_INFO_NOKEY, self_class);
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    TT_MPI(MPI_Errhandler_free(&eh));

    char key[MPI_MAX_INFO_KEY];
    int n = 0;
    TT_EXPECT_CLASS(MPI_Info_get_nthkey(info, 1, key), MPI_ERR_ARG);
    TT_EXPECT_CLASS(MPI_Info_get_nthkey(info, -1, key), MPI_ERR_ARG);
    TT_EXPECT_CLASS(MPI_Info_get_nkeys(MPI_INFO_NULL, &n), MPI_ERR_INFO);
    TT_EXPECT_CLASS(MPI_Info_get_nkeys(junk, &n), MPI_ERR_INFO);
    MPI_Comm comm;
    TT_MPI(MPI_Comm_dup(MPI_COMM_SELF, &comm));
    TT_EXPECT_CLASS(MPI_Info_get_nkeys((MPI_Info)(void *)comm, &n), MPI_ERR_INFO);
    TT_MPI(MPI_Comm_free(&comm));
    TT_EXPECT_CLASS(MPI_Info_set(MPI_INFO_NULL, "a", "1"), MPI_ERR_INFO);
    MPI_Info null = MPI_INFO_NULL;
    TT_EXPECT_CLASS(MPI_Info_free(&null), MPI_ERR_INFO);

    TT_MPI(MPI_Info_dup(info, &freed));
    MPI_Info stale = freed;
    TT_MPI(MPI_Info_free(&freed));
    TT_EXPECT_CLASS(MPI_Info_set(stale, "a", "1"), MPI_ERR_INFO);
    TT_EXPECT_CLASS(MPI_Info_free(&stale), MPI_ERR_INFO);
    TT_MPI(MPI_Info_free(&info));
}

static void env(const char *argv0)
{
    /* "command" is argv[0] as the process got it. */
    expect_value(MPI_INFO_ENV, "command", argv0);
    TT_EXPECT_CLASS(MPI_Info_set(MPI_INFO_ENV, "a", "1"), MPI_ERR_INFO);
    MPI_Info e = MPI_INFO_ENV;
    TT_EXPECT_CLASS(MPI_Info_free(&e), MPI_ERR_INFO);

    MPI_Info info;
    TT_MPI(MPI_Info_dup(MPI_INFO_ENV, &info));
    TT_MPI(MPI_Info_set(info, "a", "1"));
    TT_MPI(MPI_Info_free(&info));

    char *args[] = { "prog", "x", "y z", NULL };
    TT_MPI(MPI_Info_create_env(3, args, &info));
    expect_value(info, "command", "prog");
    expect_value(info, "argv", "x y z");
    TT_MPI(MPI_Info_free(&info));
    TT_MPI(MPI_Info_create_env(0, NULL, &info));
    expect_value(info, "command", argv0);
    TT_MPI(MPI_Info_free(&info));
}

/* Calls that take hints accept an info; the info may be freed at once. */
static void hints(void)
{
    MPI_Info info, used;
    MPI_Comm dup, node;
    TT_MPI(MPI_Info_create(&info));
    TT_MPI(MPI_Info_set(info, "mpi_assert_no_any_source", "true"));
    TT_MPI(MPI_Comm_set_info(MPI_COMM_WORLD, info));
    TT_MPI(MPI_Comm_get_info(MPI_COMM_WORLD, &used));
    int n = -1;
    TT_MPI(MPI_Info_get_nkeys(used, &n));
    TT_CHECK(n >= 0, "MPI_Comm_get_info: %d keys", n);
    TT_MPI(MPI_Info_free(&used));
    TT_MPI(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &dup));
    TT_MPI(MPI_Comm_split_type(dup, MPI_COMM_TYPE_SHARED, 0, info, &node));

    int in = tt_rank + 1, out = -1, root = tt_size - 1, token = -1;
    MPI_Request r[2];
    TT_MPI(MPI_Allreduce_init(&in, &out, 1, MPI_INT, MPI_SUM, dup, info, &r[0]));
    TT_MPI(MPI_Bcast_init(&token, 1, MPI_INT, root, dup, info, &r[1]));
    TT_MPI(MPI_Info_free(&info));
    for (int round = 0; round < 2; round++) {
        out = -1;
        token = tt_rank == root ? 100 + round : -1;
        TT_MPI(MPI_Start(&r[0]));
        TT_MPI(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
        TT_EQ("persistent MPI_Allreduce with an info: sum", tt_size * (tt_size + 1) / 2, out);
        TT_MPI(MPI_Start(&r[1]));
        TT_MPI(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
        TT_EQ("persistent MPI_Bcast with an info: value", 100 + round, token);
    }
    TT_MPI(MPI_Request_free(&r[0]));
    TT_MPI(MPI_Request_free(&r[1]));
    TT_MPI(MPI_Comm_free(&node));
    TT_MPI(MPI_Comm_free(&dup));
}

int main(int argc, char **argv)
{
    before_init();
    tt_init(&argc, &argv, "info");
    /* Info calls report errors to MPI_COMM_SELF's handler. */
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    set_get_delete();
    lengths();
    duplicate();
    errors();
    env(argv[0]);
    hints();
    return tt_finish();
}
