/*
 * coll_neighbor: the neighbourhood collectives.
 *
 * Over a 2-D grid periodic in one dimension, a periodic ring (at 1 and 2
 * ranks a process is its own neighbour, or both of a rank's neighbours are
 * the same process), a graph ring and a distributed graph with two
 * out-edges per rank (several edges between one pair at small sizes):
 *
 *  - MPI_Neighbor_allgather: block k holds in-neighbour k's rank; blocks
 *    of missing neighbours (MPI_PROC_NULL) are left alone.
 *  - MPI_Neighbor_alltoall: block k holds what in-neighbour k put in the
 *    block for this rank: on a grid, the one it sent the other way along
 *    the same dimension (block k ^ 1); on a graph, where several edges join
 *    two ranks, the m-th edge from q pairs with the m-th edge to q.
 *  - MPI_Neighbor_allgatherv and _alltoallv with counts that differ by
 *    block and gaps between blocks; MPI_Neighbor_alltoallw with byte
 *    displacements and a strided receive type; the _c forms.
 *  - A star (rank 0 sends to all, receives from none): a degree of 0 on
 *    one side, with NULL arrays there in the v and w forms.
 *  - MPI_Ineighbor_alltoall overlapped with a ring of point-to-point
 *    messages on the same communicator.
 *  - Errors: no topology (MPI_ERR_TOPOLOGY), MPI_IN_PLACE (MPI_ERR_BUFFER).
 */
#include "tt.h"

#define MAXN 16
#define SENTINEL -99

struct nbrs {
    MPI_Comm comm;
    int cart;                       /* The grid rule for pairing blocks. */
    int nin, nout, in[MAXN], out[MAXN];
};

/* This rank's neighbours in comm, in the standard's order. */
static void neighbours_of(MPI_Comm comm, int rank, struct nbrs *n)
{
    int kind;
    n->comm = comm;
    TT_MPI(MPI_Topo_test(comm, &kind));
    n->cart = kind == MPI_CART;
    if (kind == MPI_CART) {
        int nd;
        TT_MPI(MPI_Cartdim_get(comm, &nd));
        n->nin = n->nout = 2 * nd;
        for (int d = 0; d < nd; d++)
            TT_MPI(MPI_Cart_shift(comm, d, 1, &n->in[2 * d], &n->in[2 * d + 1]));
        memcpy(n->out, n->in, sizeof n->in);
    } else if (kind == MPI_GRAPH) {
        TT_MPI(MPI_Graph_neighbors_count(comm, rank, &n->nin));
        TT_MPI(MPI_Graph_neighbors(comm, rank, MAXN, n->in));
        n->nout = n->nin;
        memcpy(n->out, n->in, sizeof n->in);
    } else {
        int w;
        TT_MPI(MPI_Dist_graph_neighbors_count(comm, &n->nin, &n->nout, &w));
        TT_MPI(MPI_Dist_graph_neighbors(comm, MAXN, n->in, MPI_UNWEIGHTED, MAXN, n->out,
                                        MPI_UNWEIGHTED));
    }
}

/* The send block of in-neighbour k (rank q) whose data lands in this
 * rank's block k; q's out-neighbours are qout[0 .. nq). */
static int pair_slot(const struct nbrs *me, int k, const int *qout, int nq)
{
    if (me->cart)
        return k ^ 1;
    int q = me->in[k], m = 0;
    for (int i = 0; i < k; i++)
        m += me->in[i] == q;
    for (int j = 0; j < nq; j++)
        if (qout[j] == tt_rank && m-- == 0)
            return j;
    TT_FAIL("rank %d lists rank %d as an in-neighbour but not the other way", tt_rank, q);
}

/* The value of element e of the block that rank q sends from its slot j. */
static int value(int q, int j, int e)
{
    return q * 1000 + j * 10 + e;
}

/* Rank q's out-neighbours, as q itself computes them: the tests build
 * every topology from formulas, so any rank can (dist graphs: ring_out). */
static int (*dist_out)(int q, int *out);

static int out_of(const struct nbrs *me, int q, int *out)
{
    if (me->cart)
        return 0; /* pair_slot needs no list there. */
    if (!dist_out) {
        struct nbrs n;
        neighbours_of(me->comm, q, &n);
        memcpy(out, n.out, sizeof n.out);
        return n.nout;
    }
    return dist_out(q, out);
}

static void check_allgather(const struct nbrs *n)
{
    int mine = tt_rank, got[MAXN];
    for (int k = 0; k < MAXN; k++)
        got[k] = SENTINEL;
    TT_MPI(MPI_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, n->comm));
    for (int k = 0; k < n->nin; k++)
        TT_EQ("MPI_Neighbor_allgather block", n->in[k] == MPI_PROC_NULL ? SENTINEL : n->in[k],
              got[k]);
    /* Allgatherv: 2 ints from each neighbour, at displacements 3 apart. */
    int two[2] = { tt_rank, -tt_rank }, v[3 * MAXN], counts[MAXN], displs[MAXN];
    for (int k = 0; k < 3 * MAXN; k++)
        v[k] = SENTINEL;
    for (int k = 0; k < n->nin; k++) {
        counts[k] = 2;
        displs[k] = 3 * k;
    }
    TT_MPI(MPI_Neighbor_allgatherv(two, 2, MPI_INT, v, counts, displs, MPI_INT, n->comm));
    for (int k = 0; k < n->nin; k++) {
        int q = n->in[k];
        TT_EQ("MPI_Neighbor_allgatherv first", q == MPI_PROC_NULL ? SENTINEL : q, v[3 * k]);
        TT_EQ("MPI_Neighbor_allgatherv second", q == MPI_PROC_NULL ? SENTINEL : -q,
              v[3 * k + 1]);
        TT_EQ("MPI_Neighbor_allgatherv gap", SENTINEL, v[3 * k + 2]);
    }
}

static void check_alltoall(const struct nbrs *n, int nonblocking)
{
    int send[MAXN], got[MAXN], qout[MAXN];
    for (int j = 0; j < n->nout; j++)
        send[j] = value(tt_rank, j, 0);
    for (int k = 0; k < MAXN; k++)
        got[k] = SENTINEL;
    if (nonblocking) {
        /* A ring of point-to-point messages while the collective runs. */
        MPI_Request r[3];
        int size, rank, x = tt_rank, y = -1;
        MPI_Comm_size(n->comm, &size);
        MPI_Comm_rank(n->comm, &rank);
        TT_MPI(MPI_Ineighbor_alltoall(send, 1, MPI_INT, got, 1, MPI_INT, n->comm, &r[0]));
        TT_MPI(MPI_Irecv(&y, 1, MPI_INT, (rank + size - 1) % size, 7, n->comm, &r[1]));
        TT_MPI(MPI_Isend(&x, 1, MPI_INT, (rank + 1) % size, 7, n->comm, &r[2]));
        TT_MPI(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
        TT_EQ("message beside MPI_Ineighbor_alltoall", (rank + size - 1) % size, y);
    } else {
        TT_MPI(MPI_Neighbor_alltoall_c(send, 1, MPI_INT, got, 1, MPI_INT, n->comm));
    }
    for (int k = 0; k < n->nin; k++) {
        int q = n->in[k];
        if (q == MPI_PROC_NULL) {
            TT_EQ("MPI_Neighbor_alltoall block from MPI_PROC_NULL", SENTINEL, got[k]);
            continue;
        }
        int nq = out_of(n, q, qout);
        TT_EQ("MPI_Neighbor_alltoall block", value(q, pair_slot(n, k, qout, nq), 0), got[k]);
    }
}

/* Alltoallv: the block from slot j holds j + 1 ints; alltoallw: the same
 * data, received through a type that puts each int 2 ints apart. */
static void check_alltoallv(const struct nbrs *n)
{
    int send[MAXN * MAXN], sc[MAXN], sd[MAXN], rc[MAXN], rd[MAXN], got[2 * MAXN * MAXN];
    int qout[MAXN], slot[MAXN];
    MPI_Aint swd[MAXN], rwd[MAXN];
    MPI_Datatype st[MAXN], rt[MAXN], strided;
    TT_MPI(MPI_Type_vector(MAXN, 1, 2, MPI_INT, &strided));
    TT_MPI(MPI_Type_commit(&strided));
    for (int j = 0, at = 0; j < n->nout; j++) {
        sc[j] = j + 1;
        sd[j] = at;
        swd[j] = (MPI_Aint)at * (MPI_Aint)sizeof(int);
        st[j] = MPI_INT;
        for (int e = 0; e < j + 1; e++)
            send[at++] = value(tt_rank, j, e);
    }
    for (int k = 0; k < n->nin; k++) {
        slot[k] = -1;
        if (n->in[k] != MPI_PROC_NULL)
            slot[k] = pair_slot(n, k, qout, out_of(n, n->in[k], qout));
        rc[k] = slot[k] + 1;
        rd[k] = k * MAXN;
        rwd[k] = (MPI_Aint)k * 2 * MAXN * (MPI_Aint)sizeof(int);
        rt[k] = MPI_INT;
    }
    for (int i = 0; i < MAXN * MAXN; i++)
        got[i] = SENTINEL;
    TT_MPI(MPI_Neighbor_alltoallv(send, sc, sd, MPI_INT, got, rc, rd, MPI_INT, n->comm));
    for (int k = 0; k < n->nin; k++)
        for (int e = 0; e < MAXN; e++) {
            int want = e < rc[k] && slot[k] >= 0 ? value(n->in[k], slot[k], e) : SENTINEL;
            TT_EQ("MPI_Neighbor_alltoallv element", want, got[k * MAXN + e]);
        }

    /* The w form: each received block is one strided element holding up
     * to MAXN ints, of which the sender fills slot + 1; counts as elements
     * of the receive type can then only be 1, so send the whole int run
     * as a contiguous type of slot + 1 ints. */
    MPI_Datatype runs[MAXN];
    int one[MAXN];
    for (int j = 0; j < n->nout; j++) {
        TT_MPI(MPI_Type_contiguous(j + 1, MPI_INT, &runs[j]));
        TT_MPI(MPI_Type_commit(&runs[j]));
        one[j] = 1;
        st[j] = runs[j];
    }
    MPI_Datatype rstr[MAXN];
    for (int k = 0; k < n->nin; k++) {
        int m = rc[k] > 0 ? rc[k] : 1;
        TT_MPI(MPI_Type_vector(m, 1, 2, MPI_INT, &rstr[k]));
        TT_MPI(MPI_Type_commit(&rstr[k]));
        rt[k] = rstr[k];
        rc[k] = slot[k] >= 0 ? 1 : 0;
    }
    for (int i = 0; i < 2 * MAXN * MAXN; i++)
        got[i] = SENTINEL;
    TT_MPI(MPI_Neighbor_alltoallw(send, one, swd, st, got, rc, rwd, rt, n->comm));
    for (int k = 0; k < n->nin; k++)
        for (int e = 0; e < MAXN; e++) {
            int want = slot[k] >= 0 && e <= slot[k] ? value(n->in[k], slot[k], e) : SENTINEL;
            TT_EQ("MPI_Neighbor_alltoallw element", want, got[k * 2 * MAXN + 2 * e]);
            TT_EQ("MPI_Neighbor_alltoallw gap", SENTINEL, got[k * 2 * MAXN + 2 * e + 1]);
        }
    for (int j = 0; j < n->nout; j++)
        MPI_Type_free(&runs[j]);
    for (int k = 0; k < n->nin; k++)
        MPI_Type_free(&rstr[k]);
    MPI_Type_free(&strided);
}

static void run_all(MPI_Comm comm)
{
    struct nbrs n;
    neighbours_of(comm, tt_rank, &n);
    TT_CHECK(n.nin <= MAXN && n.nout <= MAXN, "too many neighbours for the test");
    check_allgather(&n);
    check_alltoall(&n, 0);
    check_alltoall(&n, 1);
    check_alltoallv(&n);
}

/* The distributed graph: rank q's edges go to q + 1 and q + 3. */
static int ring_out(int q, int *out)
{
    out[0] = (q + 1) % tt_size;
    out[1] = (q + 3) % tt_size;
    return 2;
}

/* The star: rank 0's edges go to every other rank, which has none. */
static int star_out(int q, int *out)
{
    if (q != 0)
        return 0;
    for (int i = 1; i < tt_size; i++)
        out[i - 1] = i;
    return tt_size - 1;
}

/* On the star, the side of no neighbours passes NULL arrays (valid: they
 * have no entries). */
static void star_nulls(MPI_Comm c)
{
    int one = 1, zero = 0, x = 7, got = -1;
    int *ones = calloc((size_t)tt_size, sizeof(int)), *zeros = calloc((size_t)tt_size,
                                                                      sizeof(int));
    MPI_Aint *azeros = calloc((size_t)tt_size, sizeof(MPI_Aint));
    MPI_Datatype *ints = calloc((size_t)tt_size, sizeof(MPI_Datatype));
    TT_CHECK(ones && zeros && azeros && ints, "out of memory");
    for (int i = 0; i < tt_size; i++) {
        ones[i] = 1;
        ints[i] = MPI_INT;
    }
    if (tt_rank == 0) {
        TT_MPI(MPI_Neighbor_alltoallv(&x, ones, zeros, MPI_INT, NULL, NULL, NULL, MPI_INT, c));
        TT_MPI(MPI_Neighbor_alltoallw(&x, ones, azeros, ints, NULL, NULL, NULL, NULL, c));
    } else {
        TT_MPI(MPI_Neighbor_alltoallv(NULL, NULL, NULL, MPI_INT, &got, &one, &zero, MPI_INT, c));
        TT_EQ("MPI_Neighbor_alltoallv on the star", 7, got);
        got = -1;
        MPI_Aint azero = 0;
        MPI_Datatype t = MPI_INT;
        TT_MPI(MPI_Neighbor_alltoallw(NULL, NULL, NULL, NULL, &got, &one, &azero, &t, c));
        TT_EQ("MPI_Neighbor_alltoallw on the star", 7, got);
    }
    free(ones);
    free(zeros);
    free(azeros);
    free(ints);
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "coll_neighbor");
    TT_CHECK(tt_size <= 64, "this test runs on at most 64 ranks");
    MPI_Comm c;
    int dims[2] = { 0, 0 }, periods[2] = { 1, 0 };
    TT_MPI(MPI_Dims_create(tt_size, 2, dims));
    TT_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c));
    run_all(c);
    MPI_Comm_free(&c);

    int ring = tt_size, per = 1;
    TT_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, &ring, &per, 0, &c));
    run_all(c);
    MPI_Comm_free(&c);

    int index[64], edges[128];
    for (int i = 0; i < tt_size; i++) {
        edges[2 * i] = (i + tt_size - 1) % tt_size;
        edges[2 * i + 1] = (i + 1) % tt_size;
        index[i] = 2 * i + 2;
    }
    TT_MPI(MPI_Graph_create(MPI_COMM_WORLD, tt_size, index, edges, 0, &c));
    run_all(c);
    MPI_Comm_free(&c);

    int out[64], in[2];
    ring_out(tt_rank, out);
    in[0] = (tt_rank + tt_size - 1) % tt_size;
    in[1] = (tt_rank + 3 * tt_size - 3) % tt_size;
    TT_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, in, MPI_UNWEIGHTED, 2, out,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
    dist_out = ring_out;
    run_all(c);
    dist_out = NULL;
    MPI_Comm_free(&c);

    /* A star: rank 0 has no in-neighbours, the others no out-neighbours. */
    int nout = star_out(tt_rank, out), zero_in = 0;
    TT_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, tt_rank ? 1 : 0, &zero_in,
                                          MPI_UNWEIGHTED, nout, out, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &c));
    dist_out = star_out;
    run_all(c);
    dist_out = NULL;
    star_nulls(c);
    MPI_Comm_free(&c);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int x = 0, y[4], cls = MPI_SUCCESS, rc = MPI_Neighbor_allgather(&x, 1, MPI_INT, y, 1,
                                                                     MPI_INT, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    TT_EQ("MPI_Neighbor_allgather without a topology: error class", MPI_ERR_TOPOLOGY, cls);
    TT_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, &ring, &per, 0, &c));
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    cls = MPI_SUCCESS;
    rc = MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, c);
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    TT_EQ("MPI_Neighbor_alltoall with MPI_IN_PLACE: error class", MPI_ERR_BUFFER, cls);
    MPI_Comm_free(&c);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return tt_finish();
}
