/*
 * coll_persist: persistent collectives (MPI_Bcast_init and the others of
 * MPI 4.0).
 *
 *  - Every persistent collective (and a few _c forms) is initialized once
 *    at count argv[1] (default 1000), together with a persistent ring send
 *    and receive; then, round after round, the inputs are refilled, all
 *    requests are started with MPI_Startall and completed with
 *    MPI_Waitall, and every result is compared with a reference computed
 *    here. A later round starts them one by one with MPI_Start and
 *    completes them with MPI_Test loops in reverse order; odd ranks start
 *    them in the opposite order, since persistent collectives match by
 *    the order of their _init calls, not of their starts.
 *  - The derived datatypes and the user op are freed right after the init
 *    calls: the requests must keep what they need.
 *  - The handles stay valid after completion and can be started again.
 *  - Errors, with MPI_ERRORS_RETURN: an invalid root or info handle at init
 *    (MPI_ERR_ROOT, MPI_ERR_INFO, request left alone), MPI_Start of an
 *    active request (MPI_ERR_REQUEST), MPI_Cancel of an active collective
 *    (MPI_ERR_REQUEST); MPI_Request_free of an inactive one.
 */
#include "tt.h"

#define MAXREQ 40
#define ROUNDS 4

static int n;                      /* Elements per block. */
static int size, rank;
static MPI_Request req[MAXREQ];
static int nreq;
static MPI_Datatype pair_vec;      /* Every other int: n of them in 2n. */

/* What rank r contributes in round k at element i. */
static int val(int r, int k, int i)
{
    return r * 100003 + k * 7919 + i % 1009;
}

/* Every buffer of the cases, freed at the end. */
static void *allocs[64];
static int nallocs;

static int *ibuf(size_t elems, int fill)
{
    int *p = tt_malloc((elems ? elems : 1) * sizeof(int));
    for (size_t i = 0; i < elems; i++)
        p[i] = fill;
    if (nallocs == 64)
        TT_FAIL("too many buffers");
    allocs[nallocs++] = p;
    return p;
}

/* A user op, commutative: element-wise maximum. */
static void my_max(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++)
        if (((int *)in)[i] > ((int *)inout)[i])
            ((int *)inout)[i] = ((int *)in)[i];
}

static void add(MPI_Request r)
{
    if (nreq == MAXREQ)
        TT_FAIL("too many requests");
    req[nreq++] = r;
}

/* The buffers of every case. */
struct bufs {
    int *bc, *red_s, *red_r, *ar_s, *ar_r, *ar_ip, *ar_max, *g_s, *g_r, *gv_r, *sc_s, *sc_r,
        *scv_s, *scv_r, *ag_r, *agv_r, *a2a_s, *a2a_r, *a2av_s, *a2av_r, *a2aw_s, *a2aw_r,
        *rsb_r, *rs_r, *scan_r, *exscan_r, *nb_s, *nb_r, *nba_s, *nba_r, *ring_s, *ring_r;
    int *vcounts, *vdispls, *ones, *zeros, *rscounts, *wcounts, *wdispls;
    MPI_Datatype *wtypes;
};

static void init_all(struct bufs *b, MPI_Comm ring)
{
    size_t N = (size_t)n, S = (size_t)size;
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request r;
    MPI_Op op_max;
    TT_MPI(MPI_Op_create(my_max, 1, &op_max));
    TT_MPI(MPI_Type_vector(n, 1, 2, MPI_INT, &pair_vec));
    TT_MPI(MPI_Type_commit(&pair_vec));

    b->vcounts = ibuf(S, 0);
    b->vdispls = ibuf(S, 0);
    b->ones = ibuf(S, 1);
    b->zeros = ibuf(S, 0);
    b->rscounts = ibuf(S, 0);
    size_t vtotal = 0;
    for (int i = 0; i < size; i++) {
        b->vcounts[i] = (i % 3) * n / 3 + 1; /* Differs per rank; at most n. */
        b->vdispls[i] = (int)vtotal;
        vtotal += (size_t)b->vcounts[i];
        b->rscounts[i] = b->vcounts[i];
    }
    int myv = b->vcounts[rank];

    TT_MPI(MPI_Barrier_init(w, MPI_INFO_NULL, &r)); add(r);
    b->bc = ibuf(2 * N, 0);
    TT_MPI(MPI_Bcast_init(b->bc, 1, pair_vec, size - 1, w, MPI_INFO_NULL, &r)); add(r);
    b->red_s = ibuf(N, 0); b->red_r = ibuf(N, 0);
    TT_MPI(MPI_Reduce_init(b->red_s, b->red_r, n, MPI_INT, MPI_SUM, 0, w, MPI_INFO_NULL, &r));
    add(r);
    b->ar_s = ibuf(N, 0); b->ar_r = ibuf(N, 0); b->ar_ip = ibuf(N, 0); b->ar_max = ibuf(N, 0);
    TT_MPI(MPI_Allreduce_init_c(b->ar_s, b->ar_r, n, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, &r));
    add(r);
    TT_MPI(MPI_Allreduce_init(MPI_IN_PLACE, b->ar_ip, n, MPI_INT, MPI_PROD, w, MPI_INFO_NULL,
                              &r));
    add(r);
    TT_MPI(MPI_Allreduce_init(b->ar_s, b->ar_max, n, MPI_INT, op_max, w, MPI_INFO_NULL, &r));
    add(r);
    b->g_s = ibuf(N, 0); b->g_r = ibuf(N * S, 0); b->gv_r = ibuf(vtotal, 0);
    TT_MPI(MPI_Gather_init(b->g_s, n, MPI_INT, b->g_r, n, MPI_INT, 1 % size, w, MPI_INFO_NULL,
                           &r));
    add(r);
    TT_MPI(MPI_Gatherv_init(b->g_s, myv, MPI_INT, b->gv_r, b->vcounts, b->vdispls, MPI_INT, 0, w,
                            MPI_INFO_NULL, &r));
    add(r);
    b->sc_s = ibuf(N * S, 0); b->sc_r = ibuf(N, 0);
    TT_MPI(MPI_Scatter_init(b->sc_s, n, MPI_INT, b->sc_r, n, MPI_INT, 0, w, MPI_INFO_NULL, &r));
    add(r);
    b->scv_s = ibuf(vtotal, 0); b->scv_r = ibuf(N, 0);
    TT_MPI(MPI_Scatterv_init(b->scv_s, b->vcounts, b->vdispls, MPI_INT, b->scv_r, myv, MPI_INT,
                             size - 1, w, MPI_INFO_NULL, &r));
    add(r);
    b->ag_r = ibuf(N * S, 0); b->agv_r = ibuf(vtotal, 0);
    TT_MPI(MPI_Allgather_init(b->g_s, n, MPI_INT, b->ag_r, n, MPI_INT, w, MPI_INFO_NULL, &r));
    add(r);
    TT_MPI(MPI_Allgatherv_init(b->g_s, myv, MPI_INT, b->agv_r, b->vcounts, b->vdispls, MPI_INT,
                               w, MPI_INFO_NULL, &r));
    add(r);
    b->a2a_s = ibuf(N * S, 0); b->a2a_r = ibuf(N * S, 0);
    TT_MPI(MPI_Alltoall_init(b->a2a_s, n, MPI_INT, b->a2a_r, n, MPI_INT, w, MPI_INFO_NULL, &r));
    add(r);
    /* Alltoallv: rank i sends block j of vcounts[j] elements... each
     * receiver gets vcounts[its rank] from everyone. */
    b->a2av_s = ibuf(vtotal, 0); b->a2av_r = ibuf((size_t)myv * S, 0);
    int *rc = ibuf(S, myv), *rd = ibuf(S, 0);
    for (int i = 0; i < size; i++)
        rd[i] = i * myv;
    TT_MPI(MPI_Alltoallv_init(b->a2av_s, b->vcounts, b->vdispls, MPI_INT, b->a2av_r, rc, rd,
                              MPI_INT, w, MPI_INFO_NULL, &r));
    add(r);
    /* Alltoallw: one strided block to each rank, received contiguous. */
    b->a2aw_s = ibuf(2 * N * S, 0); b->a2aw_r = ibuf(N * S, 0);
    b->wcounts = ibuf(S, 1);
    b->wdispls = ibuf(S, 0);
    int *wrc = ibuf(S, n), *wrd = ibuf(S, 0);
    MPI_Datatype *st = tt_malloc(S * sizeof *st), *rt = tt_malloc(S * sizeof *rt);
    for (int i = 0; i < size; i++) {
        b->wdispls[i] = i * 2 * n * (int)sizeof(int);
        wrd[i] = i * n * (int)sizeof(int);
        st[i] = pair_vec;
        rt[i] = MPI_INT;
    }
    TT_MPI(MPI_Alltoallw_init(b->a2aw_s, b->wcounts, b->wdispls, st, b->a2aw_r, wrc, wrd, rt, w,
                              MPI_INFO_NULL, &r));
    add(r);
    b->rsb_r = ibuf(N, 0); b->rs_r = ibuf(N, 0);
    TT_MPI(MPI_Reduce_scatter_block_init(b->a2a_s, b->rsb_r, n, MPI_INT, MPI_SUM, w,
                                         MPI_INFO_NULL, &r));
    add(r);
    TT_MPI(MPI_Reduce_scatter_init(b->scv_s, b->rs_r, b->rscounts, MPI_INT, MPI_SUM, w,
                                   MPI_INFO_NULL, &r));
    add(r);
    b->scan_r = ibuf(N, 0); b->exscan_r = ibuf(N, 0);
    TT_MPI(MPI_Scan_init(b->ar_s, b->scan_r, n, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, &r));
    add(r);
    TT_MPI(MPI_Exscan_init(b->ar_s, b->exscan_r, n, MPI_INT, MPI_MAX, w, MPI_INFO_NULL, &r));
    add(r);
    b->nb_s = ibuf(N, 0); b->nb_r = ibuf(2 * N, 0);
    TT_MPI(MPI_Neighbor_allgather_init(b->nb_s, n, MPI_INT, b->nb_r, n, MPI_INT, ring,
                                       MPI_INFO_NULL, &r));
    add(r);
    b->nba_s = ibuf(2 * N, 0); b->nba_r = ibuf(2 * N, 0);
    TT_MPI(MPI_Neighbor_alltoall_init_c(b->nba_s, n, MPI_INT, b->nba_r, n, MPI_INT, ring,
                                        MPI_INFO_NULL, &r));
    add(r);
    b->ring_s = ibuf(N, 0); b->ring_r = ibuf(N, 0);
    TT_MPI(MPI_Recv_init(b->ring_r, n, MPI_INT, tt_prev(), 5, w, &r)); add(r);
    TT_MPI(MPI_Send_init(b->ring_s, n, MPI_INT, tt_next(), 5, w, &r)); add(r);

    /* The requests keep the types, the op and the arrays they need. */
    TT_MPI(MPI_Type_free(&pair_vec));
    TT_MPI(MPI_Op_free(&op_max));
    for (int i = 0; i < size; i++)
        rc[i] = rd[i] = wrc[i] = wrd[i] = -99;
    free(st);
    free(rt);
}

static void fill(struct bufs *b, int k)
{
    size_t N = (size_t)n;
    for (size_t i = 0; i < N; i++) {
        int v = val(rank, k, (int)i);
        b->bc[2 * i] = rank == size - 1 ? v : -1;
        b->bc[2 * i + 1] = -7;
        b->red_s[i] = b->ar_s[i] = b->g_s[i] = b->nb_s[i] = b->ring_s[i] = v;
        b->ar_ip[i] = (rank + k + (int)i) % 3 + 1;
        b->nba_s[i] = v;
        b->nba_s[N + i] = -v;
    }
    for (int d = 0; d < size; d++)
        for (size_t i = 0; i < N; i++) {
            b->sc_s[d * N + i] = val(d, k, (int)i) + 1;
            b->a2a_s[d * N + i] = val(rank, k, (int)i) + d;
            b->a2aw_s[2 * (d * N + i)] = val(rank, k, (int)i) - d;
            b->a2aw_s[2 * (d * N + i) + 1] = -5;
        }
    for (int d = 0; d < size; d++)
        for (int i = 0; i < b->vcounts[d]; i++) {
            b->scv_s[b->vdispls[d] + i] = val(d, k, i) + 2;
            b->a2av_s[b->vdispls[d] + i] = val(rank, k, i) + 3 * d;
        }
}

static void expect(const char *what, int k, size_t i, int want, int got)
{
    if (want != got)
        TT_FAIL("%s, round %d, element %zu: expected %d, got %d", what, k, i, want, got);
}

static void check(const struct bufs *b, int k)
{
    size_t N = (size_t)n;
    int prev = tt_prev(), next = tt_next();
    for (size_t i = 0; i < N; i++) {
        int ii = (int)i, sum = 0, prod = 1, max = val(0, k, ii), scan = 0;
        for (int r = 0; r < size; r++) {
            sum += val(r, k, ii);
            prod *= (r + k + ii) % 3 + 1;
            if (val(r, k, ii) > max)
                max = val(r, k, ii);
            if (r <= rank)
                scan += val(r, k, ii);
        }
        expect("Bcast_init (strided)", k, i, val(size - 1, k, ii), b->bc[2 * i]);
        expect("Bcast_init (gap)", k, i, -7, b->bc[2 * i + 1]);
        if (rank == 0)
            expect("Reduce_init", k, i, sum, b->red_r[i]);
        expect("Allreduce_init_c", k, i, sum, b->ar_r[i]);
        expect("Allreduce_init in place (MPI_PROD)", k, i, prod, b->ar_ip[i]);
        expect("Allreduce_init (user op)", k, i, max, b->ar_max[i]);
        expect("Scatter_init", k, i, val(rank, k, ii) + 1, b->sc_r[i]);
        expect("Reduce_scatter_block_init", k, i, sum + size * rank, b->rsb_r[i]);
        expect("Scan_init", k, i, scan, b->scan_r[i]);
        if (rank > 0)
            expect("Exscan_init (MPI_MAX)", k, i, val(rank - 1, k, ii), b->exscan_r[i]);
        expect("Neighbor_allgather_init (left)", k, i, val(prev, k, ii), b->nb_r[i]);
        expect("Neighbor_allgather_init (right)", k, i, val(next, k, ii), b->nb_r[N + i]);
        /* Block 0 goes left and comes back as the right neighbour's... */
        expect("Neighbor_alltoall_init_c (from left)", k, i, -val(prev, k, ii), b->nba_r[i]);
        expect("Neighbor_alltoall_init_c (from right)", k, i, val(next, k, ii),
               b->nba_r[N + i]);
        expect("persistent ring receive", k, i, val(prev, k, ii), b->ring_r[i]);
        for (int r = 0; r < size; r++) {
            if (rank == 1 % size)
                expect("Gather_init", k, i, val(r, k, ii), b->g_r[r * N + i]);
            expect("Allgather_init", k, i, val(r, k, ii), b->ag_r[r * N + i]);
            expect("Alltoall_init", k, i, val(r, k, ii) + rank, b->a2a_r[r * N + i]);
            expect("Alltoallw_init", k, i, val(r, k, ii) - rank, b->a2aw_r[r * N + i]);
        }
    }
    int myv = b->vcounts[rank];
    for (int r = 0; r < size; r++)
        for (int i = 0; i < b->vcounts[r]; i++) {
            if (rank == 0)
                expect("Gatherv_init", k, (size_t)i, val(r, k, i), b->gv_r[b->vdispls[r] + i]);
            expect("Allgatherv_init", k, (size_t)i, val(r, k, i), b->agv_r[b->vdispls[r] + i]);
        }
    for (int i = 0; i < myv; i++) {
        int sum = 0;
        for (int r = 0; r < size; r++) {
            sum += val(rank, k, i) + 2;
            expect("Alltoallv_init", k, (size_t)i, val(r, k, i) + 3 * rank,
                   b->a2av_r[r * myv + i]);
        }
        expect("Scatterv_init", k, (size_t)i, val(rank, k, i) + 2, b->scv_r[i]);
        expect("Reduce_scatter_init", k, (size_t)i, sum, b->rs_r[i]);
    }
}

static void errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int x = 0;
    MPI_Request r = MPI_REQUEST_NULL;
    TT_EQ("MPI_Bcast_init with root = size: error class", MPI_ERR_ROOT,
          tt_class(MPI_Bcast_init(&x, 1, MPI_INT, size, MPI_COMM_WORLD, MPI_INFO_NULL, &r)));
    TT_CHECK(r == MPI_REQUEST_NULL, "a failed MPI_Bcast_init set the request");
    MPI_Info junk = (MPI_Info)(intptr_t)0x5a5a50;
    TT_EQ("MPI_Allreduce_init with an invalid info: error class", MPI_ERR_INFO,
          tt_class(MPI_Allreduce_init(&x, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, junk, &r)));
    TT_CHECK(r == MPI_REQUEST_NULL, "a failed MPI_Allreduce_init set the request");

    TT_MPI(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    TT_MPI(MPI_Start(&r));
    TT_EQ("MPI_Start of an active persistent barrier: error class", MPI_ERR_REQUEST,
          tt_class(MPI_Start(&r)));
    TT_EQ("MPI_Cancel of an active persistent barrier: error class", MPI_ERR_REQUEST,
          tt_class(MPI_Cancel(&r)));
    TT_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    TT_CHECK(r != MPI_REQUEST_NULL, "MPI_Wait freed a persistent collective request");
    TT_MPI(MPI_Request_free(&r));
    TT_CHECK(r == MPI_REQUEST_NULL, "MPI_Request_free left the handle");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "coll_persist");
    n = argc > 1 ? (int)tt_parse_size(argv[1]) : 1000;
    size = tt_size;
    rank = tt_rank;
    MPI_Comm ring;
    int dims[1] = { size }, periods[1] = { 1 };
    TT_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));

    struct bufs b;
    init_all(&b, ring);
    for (int k = 0; k < ROUNDS; k++) {
        fill(&b, k);
        if (k % 2 == 0) {
            TT_MPI(MPI_Startall(nreq, req));
            TT_MPI(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
        } else {
            /* Odd ranks start them in the opposite order: persistent
             * collectives match in the order of their _init calls. */
            for (int j = 0; j < nreq; j++)
                TT_MPI(MPI_Start(&req[rank % 2 ? nreq - 1 - j : j]));
            for (int i = nreq - 1; i >= 0; i--) {
                int flag = 0;
                while (!flag)
                    TT_MPI(MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE));
            }
        }
        for (int i = 0; i < nreq; i++)
            TT_CHECK(req[i] != MPI_REQUEST_NULL, "request %d became MPI_REQUEST_NULL", i);
        check(&b, k);
    }
    for (int i = 0; i < nreq; i++)
        TT_MPI(MPI_Request_free(&req[i]));
    errors();
    TT_MPI(MPI_Comm_free(&ring));
    for (int i = 0; i < nallocs; i++)
        free(allocs[i]);
    return tt_finish();
}
