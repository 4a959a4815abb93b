/*
 * intercomm: intercommunicators between the even and the odd world ranks.
 *
 *  - MPI_Intercomm_create over MPI_COMM_WORLD as the peer communicator:
 *    MPI_Comm_test_inter true; size and rank of the local group;
 *    MPI_Comm_remote_size and MPI_Comm_remote_group (the other parity, in
 *    order); MPI_Comm_compare with MPI_COMM_WORLD unequal.
 *  - Point-to-point: every rank sends to and receives from every remote
 *    rank (ranks name the remote group; the status names the sender's rank
 *    there), 8 B and 200 KB (eager and rendezvous), and MPI_ANY_SOURCE;
 *    a rank beyond the remote group is MPI_ERR_RANK.
 *  - MPI_Comm_dup: an intercommunicator congruent to the first, whose
 *    messages never match the first one's receives.
 *  - MPI_Intercomm_merge: the group that passed high = 0 first, and with
 *    the same high on both sides the group of world rank 0 first; the
 *    merged communicator works for collectives.
 *  - Two intercommunicators made one after the other, with different tags,
 *    and one over a merged communicator as the peer.
 *  - What Tern does not do on an intercommunicator (collectives,
 *    MPI_Comm_split) is MPI_ERR_UNSUPPORTED_OPERATION; MPI_Intercomm_merge
 *    of an intracommunicator is MPI_ERR_COMM.
 *
 * Needs 2 ranks at least (on 1 it only checks MPI_Comm_test_inter).
 * Uses only the standard MPI API.
 */
#include "tt.h"

#define BIG (200 * 1000)

static int color, nlocal, nremote, lrank;

/* World rank of rank r of the group of parity c. */
static int world_of(int c, int r)
{
    return 2 * r + c;
}

static int group_size(int c)
{
    return (tt_size - c + 1) / 2;
}

static MPI_Comm make_inter(MPI_Comm local, MPI_Comm peer, int remote_leader, int tag)
{
    MPI_Comm inter;
    TT_MPI(MPI_Intercomm_create(local, 0, peer, remote_leader, tag, &inter));
    int flag = 0, size = -1, rank = -1, rsize = -1;
    TT_MPI(MPI_Comm_test_inter(inter, &flag));
    TT_EQ("MPI_Comm_test_inter of an intercommunicator", 1, flag);
    TT_MPI(MPI_Comm_size(inter, &size));
    TT_EQ("MPI_Comm_size (the local group)", nlocal, size);
    TT_MPI(MPI_Comm_rank(inter, &rank));
    TT_EQ("MPI_Comm_rank (in the local group)", lrank, rank);
    TT_MPI(MPI_Comm_remote_size(inter, &rsize));
    TT_EQ("MPI_Comm_remote_size", nremote, rsize);
    return inter;
}

static void remote_group(MPI_Comm inter)
{
    MPI_Group rg, wg;
    int ranks[64], world[64];
    TT_MPI(MPI_Comm_remote_group(inter, &rg));
    TT_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    for (int i = 0; i < nremote; i++)
        ranks[i] = i;
    TT_MPI(MPI_Group_translate_ranks(rg, nremote, ranks, wg, world));
    for (int i = 0; i < nremote; i++)
        TT_EQ("world rank of a remote group member", world_of(!color, i), world[i]);
    TT_MPI(MPI_Group_free(&rg));
    TT_MPI(MPI_Group_free(&wg));
    int result = -1;
    TT_MPI(MPI_Comm_compare(inter, MPI_COMM_WORLD, &result));
    TT_EQ("MPI_Comm_compare(intercommunicator, MPI_COMM_WORLD)", MPI_UNEQUAL, result);
}

/* Every rank exchanges n ints with every remote rank, tagged `tag`. */
static void all_pairs(MPI_Comm inter, int n, int tag)
{
    int *out = tt_malloc(sizeof(int) * (size_t)n);
    int *in = tt_malloc(sizeof(int) * (size_t)n * (size_t)nremote);
    MPI_Request *r = tt_malloc(sizeof(MPI_Request) * 2 * (size_t)nremote);
    MPI_Status *st = tt_malloc(sizeof(MPI_Status) * 2 * (size_t)nremote);
    for (int i = 0; i < n; i++)
        out[i] = tt_rank * 1000 + i;
    for (int j = 0; j < nremote; j++)
        TT_MPI(MPI_Irecv(in + (size_t)j * n, n, MPI_INT, j, tag, inter, &r[j]));
    for (int j = 0; j < nremote; j++)
        TT_MPI(MPI_Isend(out, n, MPI_INT, j, tag, inter, &r[nremote + j]));
    TT_MPI(MPI_Waitall(2 * nremote, r, st));
    for (int j = 0; j < nremote; j++) {
        TT_CHECK_STATUS(st[j], j, tag, MPI_INT, n, "receive on the intercommunicator");
        for (int i = 0; i < n; i += n / 7 + 1)
            TT_EQ("value from a remote rank", world_of(!color, j) * 1000 + i,
                  in[(size_t)j * n + i]);
    }
    free(out);
    free(in);
    free(r);
    free(st);
}

static void any_source(MPI_Comm inter)
{
    /* Remote rank 0 gets one message from each of this group's ranks. */
    int v = tt_rank;
    TT_MPI(MPI_Send(&v, 1, MPI_INT, 0, 5, inter));
    if (lrank == 0) {
        int seen[64] = { 0 };
        for (int k = 0; k < nremote; k++) {
            int v = -1;
            MPI_Status st;
            TT_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 5, inter, &st));
            TT_CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < nremote,
                     "MPI_ANY_SOURCE: source %d outside the remote group", st.MPI_SOURCE);
            TT_EQ("MPI_ANY_SOURCE: value from that source", world_of(!color, st.MPI_SOURCE),
                  v);
            TT_CHECK(!seen[st.MPI_SOURCE]++, "MPI_ANY_SOURCE: source %d twice",
                     st.MPI_SOURCE);
        }
    }
}

static void dup_is_separate(MPI_Comm inter)
{
    MPI_Comm dup;
    TT_MPI(MPI_Comm_dup(inter, &dup));
    int flag = 0, result = -1;
    TT_MPI(MPI_Comm_test_inter(dup, &flag));
    TT_EQ("MPI_Comm_test_inter of a duplicate", 1, flag);
    TT_MPI(MPI_Comm_compare(inter, dup, &result));
    TT_EQ("MPI_Comm_compare(intercommunicator, its duplicate)", MPI_CONGRUENT, result);
    /* Rank 0 of each side sends on inter, then on dup; the receiver takes
     * dup's first. */
    if (lrank == 0) {
        int a = 1, b = 2, got_dup = 0, got_inter = 0;
        MPI_Request r[2];
        TT_MPI(MPI_Isend(&a, 1, MPI_INT, 0, 9, inter, &r[0]));
        TT_MPI(MPI_Isend(&b, 1, MPI_INT, 0, 9, dup, &r[1]));
        TT_MPI(MPI_Recv(&got_dup, 1, MPI_INT, 0, 9, dup, MPI_STATUS_IGNORE));
        TT_MPI(MPI_Recv(&got_inter, 1, MPI_INT, 0, 9, inter, MPI_STATUS_IGNORE));
        TT_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        TT_EQ("message on the duplicate", 2, got_dup);
        TT_EQ("message on the original", 1, got_inter);
    }
    all_pairs(dup, 3, 11);
    TT_MPI(MPI_Comm_free(&dup));
}

/* Merges with the given high and checks the order: first_color's group
 * first. */
static MPI_Comm merge(MPI_Comm inter, int high, int first_color)
{
    MPI_Comm merged;
    TT_MPI(MPI_Intercomm_merge(inter, high, &merged));
    int flag = 1, size = -1, rank = -1;
    TT_MPI(MPI_Comm_test_inter(merged, &flag));
    TT_EQ("MPI_Comm_test_inter of a merged communicator", 0, flag);
    TT_MPI(MPI_Comm_size(merged, &size));
    TT_EQ("size of the merged communicator", tt_size, size);
    TT_MPI(MPI_Comm_rank(merged, &rank));
    int want = color == first_color ? lrank : group_size(first_color) + lrank;
    TT_EQ("rank in the merged communicator", want, rank);
    int sum = -1, ranks = rank;
    TT_MPI(MPI_Allreduce(&ranks, &sum, 1, MPI_INT, MPI_SUM, merged));
    TT_EQ("MPI_Allreduce over the merged communicator", tt_size * (tt_size - 1) / 2, sum);
    return merged;
}

static void unsupported(MPI_Comm inter)
{
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int v = 0, cls = -1;
    TT_MPI(MPI_Error_class(MPI_Send(&v, 1, MPI_INT, nremote, 0, inter), &cls));
    TT_EQ("MPI_Send to a rank beyond the remote group", MPI_ERR_RANK, cls);
    TT_MPI(MPI_Error_class(MPI_Barrier(inter), &cls));
    TT_EQ("MPI_Barrier on an intercommunicator", MPI_ERR_UNSUPPORTED_OPERATION, cls);
    MPI_Comm sub = MPI_COMM_NULL;
    TT_MPI(MPI_Error_class(MPI_Comm_split(inter, 0, 0, &sub), &cls));
    TT_EQ("MPI_Comm_split of an intercommunicator", MPI_ERR_UNSUPPORTED_OPERATION, cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    TT_MPI(MPI_Error_class(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &sub), &cls));
    TT_EQ("MPI_Intercomm_merge of an intracommunicator", MPI_ERR_COMM, cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "intercomm");
    int flag = 1;
    TT_MPI(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    TT_EQ("MPI_Comm_test_inter(MPI_COMM_WORLD)", 0, flag);
    if (tt_size < 2)
        return tt_finish();

    color = tt_rank % 2;
    lrank = tt_rank / 2;
    nlocal = group_size(color);
    nremote = group_size(!color);
    MPI_Comm local;
    TT_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, tt_rank, &local));

    MPI_Comm inter = make_inter(local, MPI_COMM_WORLD, !color, 77);
    remote_group(inter);
    all_pairs(inter, 2, 1);
    all_pairs(inter, BIG, 2);
    any_source(inter);
    dup_is_separate(inter);

    MPI_Comm m1 = merge(inter, color, 0);
    MPI_Comm m2 = merge(inter, 0, 0);
    MPI_Comm m3 = merge(inter, !color, 1);

    /* A second intercommunicator right after, another tag, and a third
     * whose peer is a merged communicator (the leaders are its ranks 0 and
     * nlocal of the even group first). */
    MPI_Comm inter2 = make_inter(local, MPI_COMM_WORLD, !color, 78);
    all_pairs(inter2, 4, 3);
    MPI_Comm inter3 = make_inter(local, m1, color ? 0 : group_size(0), 79);
    all_pairs(inter3, 4, 4);
    unsupported(inter3);

    MPI_Comm *all[] = { &m1, &m2, &m3, &inter, &inter2, &inter3, &local };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        TT_MPI(MPI_Comm_free(all[i]));
    return tt_finish();
}
