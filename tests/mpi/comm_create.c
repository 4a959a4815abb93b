/*
 * comm_create: groups through the MPI interface, MPI_Comm_create and
 * MPI_Comm_create_group, and the error classes of bad arguments.
 *
 * Every expected group is computed from world ranks by hand-written loops,
 * never by the library: membership and order of each result group, the
 * members of each new communicator (checked with a message ring whose
 * payload names the sender's world rank), and the ranks
 * MPI_Group_translate_ranks gives.
 */
#include "tt.h"

enum { TAG = 21 };

/* Fails unless g holds exactly world ranks want[0..n-1], in order. */
static void check_group(MPI_Group g, int n, const int *want, const char *what)
{
    MPI_Group wg;
    int size, rank, *in = tt_malloc(sizeof(int) * (size_t)(n + 1));
    int *out = tt_malloc(sizeof(int) * (size_t)(n + 1));
    TT_MPI(MPI_Group_size(g, &size));
    TT_EQ(what, n, size);
    TT_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    for (int i = 0; i < n; i++)
        in[i] = i;
    TT_MPI(MPI_Group_translate_ranks(g, n, in, wg, out));
    int my = MPI_UNDEFINED;
    for (int i = 0; i < n; i++) {
        TT_CHECK(out[i] == want[i], "%s: rank %d is world rank %d, expected %d",
                 what, i, out[i], want[i]);
        if (want[i] == tt_rank)
            my = i;
    }
    TT_MPI(MPI_Group_rank(g, &rank));
    TT_CHECK(rank == my, "%s: MPI_Group_rank gave %d, expected %d", what, rank, my);
    TT_MPI(MPI_Group_free(&wg));
    free(in);
    free(out);
}

/* A ring of messages over comm, which must hold world ranks want[]. */
static void check_comm(MPI_Comm comm, int n, const int *want, const char *what)
{
    int size, rank, msg = -1;
    TT_MPI(MPI_Comm_size(comm, &size));
    TT_EQ(what, n, size);
    TT_MPI(MPI_Comm_rank(comm, &rank));
    TT_CHECK(want[rank] == tt_rank, "%s: rank %d is world rank %d, expected %d",
             what, rank, tt_rank, want[rank]);
    MPI_Group g;
    TT_MPI(MPI_Comm_group(comm, &g));
    check_group(g, n, want, what);
    TT_MPI(MPI_Group_free(&g));
    int to = (rank + 1) % n, from = (rank + n - 1) % n;
    TT_MPI(MPI_Sendrecv(&tt_rank, 1, MPI_INT, to, TAG, &msg, 1, MPI_INT, from, TAG,
                        comm, MPI_STATUS_IGNORE));
    TT_CHECK(msg == want[from], "%s: message from rank %d came from world rank %d, "
             "expected %d", what, from, msg, want[from]);
    TT_MPI(MPI_Barrier(comm));
}

static int contains(int n, const int *set, int x)
{
    for (int i = 0; i < n; i++)
        if (set[i] == x)
            return 1;
    return 0;
}

/* Translation from ga (world ranks a[]) into gb (world ranks 0..nb-1),
 * with MPI_PROC_NULL at the end. */
static void check_translate(MPI_Group ga, int na, const int *a, MPI_Group gb, int nb)
{
    int *in = tt_malloc(sizeof(int) * (size_t)(na + 1)), *out = tt_malloc(sizeof(int) * (size_t)(na + 1));
    for (int i = 0; i < na; i++)
        in[i] = i;
    in[na] = MPI_PROC_NULL;
    TT_MPI(MPI_Group_translate_ranks(ga, na + 1, in, gb, out));
    for (int i = 0; i < na; i++) {
        int w = a[i], exp = w < nb ? w : MPI_UNDEFINED;   /* Rank j of gb is world rank j. */
        TT_CHECK(out[i] == exp, "translate a[%d] (world %d) into b: %d, expected %d",
                 i, w, out[i], exp);
    }
    TT_EQ("translate MPI_PROC_NULL", MPI_PROC_NULL, out[na]);
    free(in);
    free(out);
}

static void test_group_ops(MPI_Group wg)
{
    int p = tt_size, *a = tt_malloc(sizeof(int) * (size_t)p), *b = tt_malloc(sizeof(int) * (size_t)p);
    int *want = tt_malloc(sizeof(int) * (size_t)(2 * p)), na = 0, nb = 0, n;
    MPI_Group ga, gb, g;
    /* a: the even world ranks, descending; b: the ranks below 2p/3, ascending. */
    for (int r = p - 1; r >= 0; r--)
        if (r % 2 == 0)
            a[na++] = r;
    for (int r = 0; r < (2 * p + 2) / 3; r++)
        b[nb++] = r;
    TT_MPI(MPI_Group_incl(wg, na, a, &ga));
    check_group(ga, na, a, "incl of the even ranks, descending");
    int range[1][3] = { { 0, nb - 1, 1 } };
    TT_MPI(MPI_Group_range_incl(wg, 1, range, &gb));
    check_group(gb, nb, b, "range_incl of the first two thirds");

    n = 0;
    for (int i = 0; i < na; i++)
        want[n++] = a[i];
    for (int i = 0; i < nb; i++)
        if (!contains(na, a, b[i]))
            want[n++] = b[i];
    TT_MPI(MPI_Group_union(ga, gb, &g));
    check_group(g, n, want, "union");
    TT_MPI(MPI_Group_free(&g));
    TT_CHECK(g == MPI_GROUP_NULL, "MPI_Group_free did not set MPI_GROUP_NULL");

    n = 0;
    for (int i = 0; i < na; i++)
        if (contains(nb, b, a[i]))
            want[n++] = a[i];
    TT_MPI(MPI_Group_intersection(ga, gb, &g));
    check_group(g, n, want, "intersection");
    TT_MPI(MPI_Group_free(&g));

    n = 0;
    for (int i = 0; i < nb; i++)
        if (!contains(na, a, b[i]))
            want[n++] = b[i];
    TT_MPI(MPI_Group_difference(gb, ga, &g));
    check_group(g, n, want, "difference b - a");
    int res;
    if (n == 0) {
        TT_MPI(MPI_Group_compare(g, MPI_GROUP_EMPTY, &res));
        TT_EQ("an empty difference compared with MPI_GROUP_EMPTY", MPI_IDENT, res);
    }
    TT_MPI(MPI_Group_free(&g));

    /* excl and range_excl of the odd ranks both give the even ranks. */
    n = 0;
    for (int r = 1; r < p; r += 2)
        want[n++] = r;
    TT_MPI(MPI_Group_excl(wg, n, want, &g));
    int m = 0;
    for (int r = 0; r < p; r += 2)
        want[m++] = r;
    check_group(g, m, want, "excl of the odd ranks");
    MPI_Group g2;
    int odd[1][3] = { { 1, p - 1, 2 } };
    TT_MPI(MPI_Group_range_excl(wg, p > 1 ? 1 : 0, odd, &g2));
    check_group(g2, m, want, "range_excl of the odd ranks");
    TT_MPI(MPI_Group_compare(g, g2, &res));
    TT_EQ("compare(excl, range_excl)", MPI_IDENT, res);
    TT_MPI(MPI_Group_compare(ga, g, &res));
    TT_EQ("compare(evens descending, evens ascending)", na > 1 ? MPI_SIMILAR : MPI_IDENT, res);
    TT_MPI(MPI_Group_compare(wg, gb, &res));
    TT_EQ("compare(world, first two thirds)", nb == p ? MPI_IDENT : MPI_UNEQUAL, res);
    TT_MPI(MPI_Group_free(&g2));
    TT_MPI(MPI_Group_free(&g));

    check_translate(ga, na, a, gb, nb);
    TT_MPI(MPI_Group_free(&ga));
    TT_MPI(MPI_Group_free(&gb));
    free(a);
    free(b);
    free(want);
}

static void test_create(MPI_Group wg)
{
    int *want = tt_malloc(sizeof(int) * (size_t)tt_size), n = 0;
    MPI_Group g;
    MPI_Comm c;
    /* The ranks from the top down, every third one left out. */
    for (int r = tt_size - 1; r >= 0; r--)
        if (r % 3 != 1)
            want[n++] = r;
    TT_MPI(MPI_Group_incl(wg, n, want, &g));
    TT_MPI(MPI_Comm_create(MPI_COMM_WORLD, g, &c));
    if (contains(n, want, tt_rank)) {
        check_comm(c, n, want, "Comm_create of a subset, reversed");
        TT_MPI(MPI_Comm_free(&c));
    } else {
        TT_CHECK(c == MPI_COMM_NULL, "a non-member got a communicator from Comm_create");
    }
    TT_MPI(MPI_Group_free(&g));

    /* Disjoint groups in one call: the even ranks and the odd ranks. */
    n = 0;
    for (int r = tt_rank % 2; r < tt_size; r += 2)
        want[n++] = r;
    TT_MPI(MPI_Group_incl(wg, n, want, &g));
    TT_MPI(MPI_Comm_create(MPI_COMM_WORLD, g, &c));
    check_comm(c, n, want, "Comm_create with disjoint groups");
    TT_MPI(MPI_Group_free(&g));

    /* Comm_create_group on a parent other than world: only the members of
     * the group call it, the rest go straight on. */
    MPI_Comm c2;
    MPI_Group pg, sub;
    int psize, prank;
    TT_MPI(MPI_Comm_size(c, &psize));
    TT_MPI(MPI_Comm_rank(c, &prank));
    TT_MPI(MPI_Comm_group(c, &pg));
    int range[1][3] = { { psize - 1, 0, -2 } };   /* Every second one, from the top. */
    TT_MPI(MPI_Group_range_incl(pg, 1, range, &sub));
    int m = 0, *want2 = tt_malloc(sizeof(int) * (size_t)tt_size);
    for (int i = psize - 1; i >= 0; i -= 2)
        want2[m++] = want[i];
    if ((psize - 1 - prank) % 2 == 0) {
        TT_MPI(MPI_Comm_create_group(c, sub, 5, &c2));
        check_comm(c2, m, want2, "Comm_create_group, every second rank from the top");
        TT_MPI(MPI_Comm_free(&c2));
    }
    TT_MPI(MPI_Group_free(&sub));
    TT_MPI(MPI_Group_free(&pg));
    TT_MPI(MPI_Comm_free(&c));

    /* Two create_group calls at once on world, on overlapping groups with
     * different tags: the first half, then the even ranks. */
    int h = (tt_size + 1) / 2;
    MPI_Group gh, ge;
    int half[1][3] = { { 0, h - 1, 1 } }, even[1][3] = { { 0, tt_size - 1, 2 } };
    TT_MPI(MPI_Group_range_incl(wg, 1, half, &gh));
    TT_MPI(MPI_Group_range_incl(wg, 1, even, &ge));
    MPI_Comm ch = MPI_COMM_NULL, ce = MPI_COMM_NULL;
    if (tt_rank < h)
        TT_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, gh, 100, &ch));
    if (tt_rank % 2 == 0)
        TT_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, ge, 200, &ce));
    if (ch != MPI_COMM_NULL) {
        for (int i = 0; i < h; i++)
            want[i] = i;
        check_comm(ch, h, want, "Comm_create_group of the first half");
        TT_MPI(MPI_Comm_free(&ch));
    }
    if (ce != MPI_COMM_NULL) {
        n = 0;
        for (int r = 0; r < tt_size; r += 2)
            want[n++] = r;
        check_comm(ce, n, want, "Comm_create_group of the even ranks");
        TT_MPI(MPI_Comm_free(&ce));
    }
    TT_MPI(MPI_Group_free(&gh));
    TT_MPI(MPI_Group_free(&ge));
    free(want);
    free(want2);
}

/* Calls that must fail return the standard's class. */
static void test_errors(MPI_Group wg)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Group g = MPI_GROUP_NULL;
    MPI_Comm c = MPI_COMM_WORLD;
    int cls, rc, bad[] = { tt_size };
    rc = MPI_Group_incl(wg, 1, bad, &g);
    MPI_Error_class(rc, &cls);
    TT_EQ("class of MPI_Group_incl with rank == size", MPI_ERR_RANK, cls);
    rc = MPI_Group_size(MPI_GROUP_NULL, &cls);
    MPI_Error_class(rc, &cls);
    TT_EQ("class of MPI_Group_size(MPI_GROUP_NULL)", MPI_ERR_GROUP, cls);
    rc = MPI_Comm_free(&c);
    MPI_Error_class(rc, &cls);
    TT_EQ("class of MPI_Comm_free(MPI_COMM_WORLD)", MPI_ERR_COMM, cls);
    TT_CHECK(c == MPI_COMM_WORLD, "a failed MPI_Comm_free changed the handle");
    rc = MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &c);
    MPI_Error_class(rc, &cls);
    TT_EQ("class of MPI_Comm_split with color -5", MPI_ERR_ARG, cls);
    /* The standard makes this erroneous; MPICH and Tern report MPI_ERR_COMM,
     * Open MPI answers 0, so only an error's class is checked elsewhere. */
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    rc = MPI_Comm_remote_size(MPI_COMM_WORLD, &cls);
    MPI_Error_class(rc, &cls);
    if (rc != MPI_SUCCESS || !strncmp(lib, "Tern", 4))
        TT_EQ("class of MPI_Comm_remote_size on an intracommunicator", MPI_ERR_COMM, cls);
    int flag = -1;
    TT_MPI(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    TT_EQ("MPI_Comm_test_inter(world)", 0, flag);
    /* Open MPI does not check these ranks (and crashes), so Tern only. */
    int in[] = { 0, tt_size }, out[2];
    if (!strncmp(lib, "Tern", 4)) {
        rc = MPI_Group_translate_ranks(wg, 2, in, wg, out);
        MPI_Error_class(rc, &cls);
        TT_EQ("class of MPI_Group_translate_ranks with rank == size", MPI_ERR_RANK, cls);
    }
    /* A freed communicator handle is no communicator. */
    MPI_Comm d, stale;
    TT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    stale = d;
    TT_MPI(MPI_Comm_free(&d));
    rc = MPI_Comm_size(MPI_COMM_NULL, &flag);
    MPI_Error_class(rc, &cls);
    TT_EQ("class of MPI_Comm_size(MPI_COMM_NULL)", MPI_ERR_COMM, cls);
    (void)stale;   /* Using it would be erroneous, even if often caught. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "comm_create");
    MPI_Group wg;
    TT_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    test_group_ops(wg);
    test_create(wg);
    test_errors(wg);
    TT_MPI(MPI_Group_free(&wg));
    return tt_finish();
}
