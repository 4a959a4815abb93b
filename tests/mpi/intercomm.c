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
 *  - MPI_Comm_idup of two intercommunicators at once, between two
 *    nonblocking collectives on the first: the same of each duplicate,
 *    which also runs collectives, and the collectives' results.
 *  - MPI_Intercomm_merge: the group that passed high = 0 first, and with
 *    the same high on both sides the group of world rank 0 first; the
 *    merged communicator works for collectives.
 *  - Two intercommunicators made one after the other, with different tags,
 *    one over a merged communicator as the peer, one over an
 *    intercommunicator as the peer.
 *  - Collectives, blocking, nonblocking and persistent, with the standard's meaning
 *    there (collectives/inter.h): Barrier; Bcast, Reduce, Gather(v) and
 *    Scatter(v) from a root in each group in turn (MPI_ROOT, MPI_PROC_NULL
 *    and the remote rank); Allreduce, Allgather(v), Alltoall(v, w), each
 *    Reduce_scatter(_block), each group getting the other's data.
 *  - MPI_Comm_split (a color one side lacks gives MPI_COMM_NULL) and
 *    MPI_Comm_create of an intercommunicator.
 *  - A failed MPI_Ibcast reports through the intercommunicator's own error
 *    handler (MPI_ERR_TRUNCATE where the counts do not fit).
 *  - MPI_Scan and MPI_Exscan_init, which the
 *    standard does not define there, MPI_ERR_COMM; MPI_IN_PLACE
 *    MPI_ERR_BUFFER; MPI_Comm_create_group of one and MPI_Intercomm_merge
 *    of an intracommunicator MPI_ERR_COMM.
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

/* dup, a duplicate of inter, is congruent to it and its messages (tagged
 * `tag`) never match inter's receives. */
static void check_separate(MPI_Comm inter, MPI_Comm dup, int tag)
{
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
        TT_MPI(MPI_Isend(&a, 1, MPI_INT, 0, tag, inter, &r[0]));
        TT_MPI(MPI_Isend(&b, 1, MPI_INT, 0, tag, dup, &r[1]));
        TT_MPI(MPI_Recv(&got_dup, 1, MPI_INT, 0, tag, dup, MPI_STATUS_IGNORE));
        TT_MPI(MPI_Recv(&got_inter, 1, MPI_INT, 0, tag, inter, MPI_STATUS_IGNORE));
        TT_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        TT_EQ("message on the duplicate", 2, got_dup);
        TT_EQ("message on the original", 1, got_inter);
    }
    all_pairs(dup, 3, tag + 1);
}

static void dup_is_separate(MPI_Comm inter)
{
    MPI_Comm dup;
    TT_MPI(MPI_Comm_dup(inter, &dup));
    check_separate(inter, dup, 9);
    TT_MPI(MPI_Comm_free(&dup));
}

/* The sum, over the other side of sub, of the world ranks there. */
static int remote_sum(MPI_Comm sub)
{
    int mine = tt_rank, sum = -1;
    TT_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, sub));
    return sum;
}

/* MPI_Comm_idup of a and b at once, between two nonblocking collectives
 * on a. */
static void idup_is_separate(MPI_Comm a, MPI_Comm b)
{
    MPI_Comm da = MPI_COMM_NULL, db = MPI_COMM_NULL;
    MPI_Request r[4];
    int one = 1, two = 2, sum1 = -1, sum2 = -1;
    TT_MPI(MPI_Iallreduce(&one, &sum1, 1, MPI_INT, MPI_SUM, a, &r[0]));
    TT_MPI(MPI_Comm_idup(a, &da, &r[1]));
    TT_MPI(MPI_Comm_idup(b, &db, &r[2]));
    TT_MPI(MPI_Iallreduce(&two, &sum2, 1, MPI_INT, MPI_SUM, a, &r[3]));
    TT_MPI(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
    TT_EQ("MPI_Iallreduce before MPI_Comm_idup", nremote, sum1);
    TT_EQ("MPI_Iallreduce after MPI_Comm_idup", 2 * nremote, sum2);
    check_separate(a, da, 20);
    check_separate(b, db, 22);
    check_separate(da, db, 24);
    /* Collectives on the two duplicates, started in opposite orders by the
     * two groups, do not mix. */
    int want = 0, x = tt_rank, y = 100 * tt_rank, sa = -1, sb = -1;
    for (int j = 0; j < nremote; j++)
        want += world_of(!color, j);
    MPI_Request q[2];
    TT_MPI(MPI_Iallreduce(color ? &x : &y, color ? &sa : &sb, 1, MPI_INT, MPI_SUM,
                          color ? da : db, &q[0]));
    TT_MPI(MPI_Iallreduce(color ? &y : &x, color ? &sb : &sa, 1, MPI_INT, MPI_SUM,
                          color ? db : da, &q[1]));
    TT_MPI(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    TT_EQ("MPI_Iallreduce over an MPI_Comm_idup duplicate", want, sa);
    TT_EQ("MPI_Iallreduce over another MPI_Comm_idup duplicate", 100 * want, sb);
    TT_EQ("MPI_Allreduce over an MPI_Comm_idup duplicate", want, remote_sum(da));
    /* So are their hidden communicators: MPI_Comm_dup of db agrees over
     * db's local group while an MPI_Iallreduce on da runs over both
     * groups. */
    MPI_Comm ddb;
    sa = -1;
    TT_MPI(MPI_Iallreduce(&x, &sa, 1, MPI_INT, MPI_SUM, da, &q[0]));
    TT_MPI(MPI_Comm_dup(db, &ddb));
    TT_MPI(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    TT_EQ("MPI_Iallreduce over a duplicate while another is duplicated", want, sa);
    all_pairs(ddb, 2, 26);
    TT_MPI(MPI_Comm_free(&ddb));
    TT_MPI(MPI_Comm_free(&da));
    TT_MPI(MPI_Comm_free(&db));
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

/* The root argument of a rooted collective whose root is rank r of the
 * group of parity c. */
static int root_arg(int c, int r)
{
    return c != color ? r : lrank == r ? MPI_ROOT : MPI_PROC_NULL;
}

static void rooted(MPI_Comm inter, int c, int r)
{
    int root = root_arg(c, r), n = nremote, from = world_of(c, r);
    int buf[3] = { -1, -1, -1 }, mine[3], *all = tt_malloc(sizeof(int) * 3 * (size_t)(n + 1));
    int counts[64], displs[64];
    for (int k = 0; k < 3; k++)
        mine[k] = tt_rank * 10 + k;
    /* Bcast */
    if (root == MPI_ROOT)
        memcpy(buf, mine, sizeof mine);
    TT_MPI(MPI_Bcast(buf, 3, MPI_INT, root, inter));
    if (c != color)
        for (int k = 0; k < 3; k++)
            TT_EQ("MPI_Bcast on an intercommunicator", from * 10 + k, buf[k]);
    /* Reduce: the root gets the sum over the other group. */
    TT_MPI(MPI_Reduce(mine, buf, 3, MPI_INT, MPI_SUM, root, inter));
    if (root == MPI_ROOT)
        for (int k = 0; k < 3; k++) {
            int want = 0;
            for (int j = 0; j < n; j++)
                want += world_of(!color, j) * 10 + k;
            TT_EQ("MPI_Reduce on an intercommunicator", want, buf[k]);
        }
    /* Gather and Gatherv (remote rank j sends j % 3 + 1 ints, stored in
     * reverse order of ranks). */
    TT_MPI(MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, root, inter));
    if (root == MPI_ROOT)
        for (int j = 0; j < n; j++)
            TT_EQ("MPI_Gather on an intercommunicator", world_of(!color, j) * 10 + 1,
                  all[2 * j + 1]);
    int at = 0;
    for (int j = n - 1; j >= 0; j--) {
        counts[j] = j % 3 + 1;
        displs[j] = at;
        at += counts[j];
    }
    TT_MPI(MPI_Gatherv(mine, lrank % 3 + 1, MPI_INT, all, counts, displs, MPI_INT, root,
                       inter));
    if (root == MPI_ROOT)
        for (int j = 0; j < n; j++)
            TT_EQ("MPI_Gatherv on an intercommunicator", world_of(!color, j) * 10 + j % 3,
                  all[displs[j] + j % 3]);
    /* Scatter and Scatterv: block j is 100 j + world rank of the root. */
    if (root == MPI_ROOT)
        for (int j = 0; j < n; j++)
            all[j] = 100 * j + tt_rank;
    buf[0] = -1;
    TT_MPI(MPI_Scatter(all, 1, MPI_INT, buf, 1, MPI_INT, root, inter));
    if (c != color)
        TT_EQ("MPI_Scatter on an intercommunicator", 100 * lrank + from, buf[0]);
    for (int j = 0; j < n; j++) {
        counts[j] = 1;
        displs[j] = n - 1 - j;
    }
    if (root == MPI_ROOT)
        for (int j = 0; j < n; j++)
            all[n - 1 - j] = 7 * j + tt_rank;
    TT_MPI(MPI_Scatterv(all, counts, displs, MPI_INT, buf, 1, MPI_INT, root, inter));
    if (c != color)
        TT_EQ("MPI_Scatterv on an intercommunicator", 7 * lrank + from, buf[0]);
    free(all);
}

static void collectives(MPI_Comm inter)
{
    TT_MPI(MPI_Barrier(inter));
    for (int c = 0; c < 2; c++) {
        rooted(inter, c, 0);
        rooted(inter, c, group_size(c) - 1);
    }
    int n = nremote, mine = tt_rank, sum = -1;
    /* Allreduce: the sum of the other group's world ranks. */
    int want = 0;
    for (int j = 0; j < n; j++)
        want += world_of(!color, j);
    TT_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter));
    TT_EQ("MPI_Allreduce on an intercommunicator", want, sum);
    MPI_Request req;
    sum = -1;
    TT_MPI(MPI_Iallreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter, &req));
    TT_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    TT_EQ("MPI_Iallreduce on an intercommunicator", want, sum);
    TT_MPI(MPI_Allreduce_init(&mine, &sum, 1, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &req));
    for (int k = 0; k < 2; k++) {
        sum = -1;
        TT_MPI(MPI_Start(&req));
        TT_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        TT_EQ("MPI_Allreduce_init on an intercommunicator", want, sum);
    }
    TT_MPI(MPI_Request_free(&req));
    /* Allgather, Allgatherv (blocks in reverse order), Alltoall(v, w). */
    int *in = tt_malloc(sizeof(int) * (size_t)n), *out = tt_malloc(sizeof(int) * (size_t)n);
    int counts[64], displs[64], bdispls[64];
    MPI_Datatype types[64];
    TT_MPI(MPI_Allgather(&mine, 1, MPI_INT, in, 1, MPI_INT, inter));
    for (int j = 0; j < n; j++)
        TT_EQ("MPI_Allgather on an intercommunicator", world_of(!color, j), in[j]);
    for (int j = 0; j < n; j++) {
        counts[j] = 1;
        displs[j] = n - 1 - j;
        bdispls[j] = (int)sizeof(int) * j;
        types[j] = MPI_INT;
        out[j] = 1000 * tt_rank + j;
    }
    TT_MPI(MPI_Iallgatherv(&mine, 1, MPI_INT, in, counts, displs, MPI_INT, inter, &req));
    TT_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int j = 0; j < n; j++)
        TT_EQ("MPI_Iallgatherv on an intercommunicator", world_of(!color, j), in[n - 1 - j]);
    TT_MPI(MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, inter));
    for (int j = 0; j < n; j++)
        TT_EQ("MPI_Alltoall on an intercommunicator", 1000 * world_of(!color, j) + lrank,
              in[j]);
    for (int j = 0; j < n; j++)
        displs[j] = j;
    TT_MPI(MPI_Alltoallv(out, counts, displs, MPI_INT, in, counts, displs, MPI_INT, inter));
    for (int j = 0; j < n; j++)
        TT_EQ("MPI_Alltoallv on an intercommunicator", 1000 * world_of(!color, j) + lrank,
              in[j]);
    TT_MPI(MPI_Alltoallw(out, counts, bdispls, types, in, counts, bdispls, types, inter));
    for (int j = 0; j < n; j++)
        TT_EQ("MPI_Alltoallw on an intercommunicator", 1000 * world_of(!color, j) + lrank,
              in[j]);
    /* Reduce_scatter_block: vectors of nlocal * rb ints here, nremote * rb'
     * there, rb * nlocal = rb' * nremote: rb = nremote, rb' = nlocal. The
     * sum over the other group of element i of its vectors: world rank +
     * i, from each. */
    int len = nlocal * nremote, *vec = tt_malloc(sizeof(int) * (size_t)len);
    int *res = tt_malloc(sizeof(int) * (size_t)len), rcounts[64];
    for (int i = 0; i < len; i++)
        vec[i] = tt_rank + i;
    TT_MPI(MPI_Reduce_scatter_block(vec, res, nremote, MPI_INT, MPI_SUM, inter));
    for (int k = 0; k < nremote; k++) {
        int i = lrank * nremote + k, want2 = 0;
        for (int j = 0; j < n; j++)
            want2 += world_of(!color, j) + i;
        TT_EQ("MPI_Reduce_scatter_block on an intercommunicator", want2, res[k]);
    }
    /* Reduce_scatter: local rank i gets i + 1 elements, the rest to rank 0;
     * both groups' vectors hold len elements. */
    for (int i = 0; i < nlocal; i++)
        rcounts[i] = i + 1;
    rcounts[0] += len - nlocal * (nlocal + 1) / 2;
    int off = 0;
    for (int i = 0; i < lrank; i++)
        off += rcounts[i];
    TT_MPI(MPI_Ireduce_scatter(vec, res, rcounts, MPI_INT, MPI_SUM, inter, &req));
    TT_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int k = 0; k < rcounts[lrank]; k++) {
        int want2 = 0;
        for (int j = 0; j < n; j++)
            want2 += world_of(!color, j) + off + k;
        TT_EQ("MPI_Ireduce_scatter on an intercommunicator", want2, res[k]);
    }
    free(vec);
    free(res);
    free(in);
    free(out);
    TT_MPI(MPI_Ibarrier(inter, &req));
    TT_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
}

/* MPI_Comm_split by the parity of the local rank, keys reversing the
 * order; MPI_Comm_create of the local group without its rank 0. */
static void split_and_create(MPI_Comm inter)
{
    MPI_Comm sub;
    int p = lrank % 2, size = -1, rank = -1, rsize = -1;
    TT_MPI(MPI_Comm_split(inter, p, -lrank, &sub));
    /* Ranks of parity p: those below nremote on the other side. */
    int mine_n = (nlocal - p + 1) / 2, theirs_n = (nremote - p + 1) / 2;
    if (theirs_n == 0) {
        TT_CHECK(sub == MPI_COMM_NULL, "MPI_Comm_split: a color the other side lacks "
                 "gave a communicator");
    } else {
        TT_MPI(MPI_Comm_size(sub, &size));
        TT_EQ("MPI_Comm_split of an intercommunicator: size", mine_n, size);
        TT_MPI(MPI_Comm_remote_size(sub, &rsize));
        TT_EQ("MPI_Comm_split of an intercommunicator: remote size", theirs_n, rsize);
        TT_MPI(MPI_Comm_rank(sub, &rank));
        TT_EQ("MPI_Comm_split of an intercommunicator: rank by reversed key",
              mine_n - 1 - lrank / 2, rank);
        int want = 0;
        for (int j = p; j < nremote; j += 2)
            want += world_of(!color, j);
        TT_EQ("MPI_Allreduce over the split intercommunicator", want, remote_sum(sub));
        TT_MPI(MPI_Comm_free(&sub));
    }
    MPI_Group g, without0;
    int zero = 0;
    TT_MPI(MPI_Comm_group(inter, &g));
    TT_MPI(MPI_Group_excl(g, nlocal > 1 ? 1 : 0, &zero, &without0));
    TT_MPI(MPI_Comm_create(inter, without0, &sub));
    int lost = nlocal > 1 && lrank == 0, other_n = nremote > 1 ? nremote - 1 : 1;
    if (lost) {
        TT_CHECK(sub == MPI_COMM_NULL, "MPI_Comm_create gave a communicator to a process "
                 "outside the group");
    } else {
        TT_MPI(MPI_Comm_remote_size(sub, &rsize));
        TT_EQ("MPI_Comm_create of an intercommunicator: remote size", other_n, rsize);
        int want = 0;
        for (int j = nremote > 1 ? 1 : 0; j < nremote; j++)
            want += world_of(!color, j);
        TT_EQ("MPI_Allreduce over the created intercommunicator", want, remote_sum(sub));
        TT_MPI(MPI_Comm_free(&sub));
    }
    TT_MPI(MPI_Group_free(&g));
    TT_MPI(MPI_Group_free(&without0));
}

/* Calls that are wrong on an intercommunicator: a rank beyond the remote
 * group, and what the standard does not define there. */
static void refused(MPI_Comm inter)
{
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int v = 0, w = 0, cls = -1;
    TT_MPI(MPI_Error_class(MPI_Send(&v, 1, MPI_INT, nremote, 0, inter), &cls));
    TT_EQ("MPI_Send to a rank beyond the remote group", MPI_ERR_RANK, cls);
    TT_MPI(MPI_Error_class(MPI_Scan(&v, &w, 1, MPI_INT, MPI_SUM, inter), &cls));
    TT_EQ("MPI_Scan on an intercommunicator", MPI_ERR_COMM, cls);
    MPI_Request scan = MPI_REQUEST_NULL;
    TT_MPI(MPI_Error_class(MPI_Exscan_init(&v, &w, 1, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL,
                                           &scan), &cls));
    TT_EQ("MPI_Exscan_init on an intercommunicator", MPI_ERR_COMM, cls);
    TT_MPI(MPI_Error_class(MPI_Allreduce(MPI_IN_PLACE, &w, 1, MPI_INT, MPI_SUM, inter), &cls));
    TT_EQ("MPI_Allreduce in place on an intercommunicator", MPI_ERR_BUFFER, cls);
    /* A nonblocking collective that fails reports through the error handler
     * set on the intercommunicator after its creation: the root of the even
     * group sends 2 ints where the odd group receives 1. */
    int two[2] = { 1, 2 };
    MPI_Request bc;
    int root = color ? 0 : lrank == 0 ? MPI_ROOT : MPI_PROC_NULL;
    TT_MPI(MPI_Ibcast(two, color ? 1 : 2, MPI_INT, root, inter, &bc));
    TT_MPI(MPI_Error_class(MPI_Wait(&bc, MPI_STATUS_IGNORE), &cls));
    TT_EQ("MPI_Wait on an MPI_Ibcast whose counts do not fit", color ? MPI_ERR_TRUNCATE : MPI_SUCCESS,
          cls);
    MPI_Comm sub = MPI_COMM_NULL;
    MPI_Group g;
    TT_MPI(MPI_Comm_group(inter, &g));
    TT_MPI(MPI_Error_class(MPI_Comm_create_group(inter, g, 0, &sub), &cls));
    TT_EQ("MPI_Comm_create_group of an intercommunicator", MPI_ERR_COMM, cls);
    TT_MPI(MPI_Group_free(&g));
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
    idup_is_separate(inter, inter2);
    MPI_Comm inter3 = make_inter(local, m1, color ? 0 : group_size(0), 79);
    all_pairs(inter3, 4, 4);
    /* The peer may be an intercommunicator: the leaders are each other's
     * remote rank 0 there. */
    MPI_Comm inter4 = make_inter(local, inter, 0, 80);
    all_pairs(inter4, 4, 5);
    collectives(inter);
    collectives(inter3);
    split_and_create(inter);
    refused(inter3);

    MPI_Comm *all[] = { &m1, &m2, &m3, &inter, &inter2, &inter3, &inter4, &local };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        TT_MPI(MPI_Comm_free(all[i]));
    return tt_finish();
}
