/*
 * topo: process topologies.
 *
 *  - MPI_Cart_create on a grid from MPI_Dims_create (periodic in dimension
 *    0 only): MPI_Topo_test, MPI_Cartdim_get, MPI_Cart_get, row-major
 *    coordinates, MPI_Cart_rank and MPI_Cart_coords inverse to each other,
 *    MPI_Cart_rank wrapping periodic coordinates, MPI_Cart_shift against
 *    the coordinates (negative and long steps too) and then used for a
 *    halo exchange whose data must come from the source it names.
 *  - A grid smaller than the communicator: the ranks left out get
 *    MPI_COMM_NULL; a grid of 0 dimensions holds rank 0 alone.
 *  - MPI_Cart_sub: rows and single processes; MPI_Comm_dup keeps the
 *    topology, MPI_Comm_split does not; MPI_Cart_map.
 *  - MPI_Graph_create on a ring with a chord: the queries give back what
 *    was passed; MPI_Graph_map.
 *  - MPI_Dist_graph_create_adjacent (weighted and not) and
 *    MPI_Dist_graph_create with all edges named by rank 0, or each by its
 *    source: every process sees its in- and out-neighbours with their
 *    weights.
 *  - Errors: too large a grid, a zero dimension, a query of the wrong kind,
 *    a direction, coordinate or rank out of range, a graph edge to no node;
 *    arguments invalid on one rank only, or different grids on different
 *    ranks, give every rank an error (they hung before).
 */
#include "tt.h"

static int topo_kind(MPI_Comm c)
{
    int k = -1;
    TT_MPI(MPI_Topo_test(c, &k));
    return k;
}

/* The rank at (x, y) of a dx x dy grid, periodic in x only; -1 if none. */
static int grid_rank(int x, int y, int dx, int dy)
{
    x = ((x % dx) + dx) % dx;
    return y < 0 || y >= dy ? -1 : x * dy + y;
}

static void cart_2d(void)
{
    int dims[2] = { 0, 0 }, periods[2] = { 1, 0 };
    TT_MPI(MPI_Dims_create(tt_size, 2, dims));
    MPI_Comm cart;
    TT_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart));
    TT_CHECK(cart != MPI_COMM_NULL, "MPI_Cart_create gave MPI_COMM_NULL to a grid member");
    TT_EQ("MPI_Topo_test", MPI_CART, topo_kind(cart));
    int nd = -1, me = -1, size = -1;
    TT_MPI(MPI_Cartdim_get(cart, &nd));
    TT_EQ("MPI_Cartdim_get", 2, nd);
    TT_MPI(MPI_Comm_rank(cart, &me));
    TT_MPI(MPI_Comm_size(cart, &size));
    TT_EQ("rank in the grid (no reordering)", tt_rank, me);
    TT_EQ("grid size", tt_size, size);

    int gd[2], gp[2], gc[2];
    TT_MPI(MPI_Cart_get(cart, 2, gd, gp, gc));
    TT_EQ("dims[0]", dims[0], gd[0]);
    TT_EQ("dims[1]", dims[1], gd[1]);
    TT_EQ("periods[0]", 1, gp[0] != 0);
    TT_EQ("periods[1]", 0, gp[1] != 0);
    TT_EQ("coords[0] (row-major)", me / dims[1], gc[0]);
    TT_EQ("coords[1] (row-major)", me % dims[1], gc[1]);

    for (int r = 0; r < size; r++) {
        int c[2], back = -1;
        TT_MPI(MPI_Cart_coords(cart, r, 2, c));
        TT_MPI(MPI_Cart_rank(cart, c, &back));
        TT_EQ("MPI_Cart_rank(MPI_Cart_coords(r))", r, back);
    }
    int wrap[2] = { gc[0] - 3 * dims[0], gc[1] }, r = -1;
    TT_MPI(MPI_Cart_rank(cart, wrap, &r));
    TT_EQ("MPI_Cart_rank of a coordinate three periods below", me, r);

    int steps[] = { 1, -1, 2, -3, 2 * dims[0] + 1 };
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
        for (int d = 0; d < 2; d++) {
            int src = -2, dst = -2, k = steps[i];
            TT_MPI(MPI_Cart_shift(cart, d, k, &src, &dst));
            int ex = d ? grid_rank(gc[0], gc[1] + k, dims[0], dims[1])
                       : grid_rank(gc[0] + k, gc[1], dims[0], dims[1]);
            int es = d ? grid_rank(gc[0], gc[1] - k, dims[0], dims[1])
                       : grid_rank(gc[0] - k, gc[1], dims[0], dims[1]);
            TT_EQ("MPI_Cart_shift rank_dest", ex < 0 ? MPI_PROC_NULL : ex, dst);
            TT_EQ("MPI_Cart_shift rank_source", es < 0 ? MPI_PROC_NULL : es, src);
            /* The halo exchange the shift is for. */
            int out = me, in = -7;
            TT_MPI(MPI_Sendrecv(&out, 1, MPI_INT, dst, 5, &in, 1, MPI_INT, src, 5, cart,
                                MPI_STATUS_IGNORE));
            TT_EQ("value received from rank_source", src == MPI_PROC_NULL ? -7 : src, in);
        }
    }

    /* Rows: dimension 1 kept. */
    int keep_row[2] = { 0, 1 }, none[2] = { 0, 0 };
    MPI_Comm row, single;
    TT_MPI(MPI_Cart_sub(cart, keep_row, &row));
    TT_MPI(MPI_Comm_size(row, &size));
    TT_MPI(MPI_Comm_rank(row, &r));
    TT_EQ("row size", dims[1], size);
    TT_EQ("rank in the row", gc[1], r);
    TT_MPI(MPI_Cartdim_get(row, &nd));
    TT_EQ("MPI_Cartdim_get of a row", 1, nd);
    int sum = 0;
    TT_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, row));
    TT_EQ("sum of the world ranks in the row", gc[0] * dims[1] * dims[1]
          + dims[1] * (dims[1] - 1) / 2, sum);
    TT_MPI(MPI_Cart_sub(cart, none, &single));
    TT_MPI(MPI_Comm_size(single, &size));
    TT_EQ("size after keeping no dimension", 1, size);
    TT_MPI(MPI_Cartdim_get(single, &nd));
    TT_EQ("MPI_Cartdim_get with no dimension kept", 0, nd);

    MPI_Comm dup, split;
    TT_MPI(MPI_Comm_dup(cart, &dup));
    TT_EQ("MPI_Topo_test of a dup", MPI_CART, topo_kind(dup));
    TT_MPI(MPI_Cart_get(dup, 2, gd, gp, gc));
    TT_EQ("dup's dims[1]", dims[1], gd[1]);
    TT_MPI(MPI_Comm_split(cart, 0, me, &split));
    TT_EQ("MPI_Topo_test of a split", MPI_UNDEFINED, topo_kind(split));

    int nr = -2, line[1] = { tt_size > 1 ? tt_size - 1 : 1 }, per[1] = { 0 };
    TT_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, line, per, &nr));
    TT_EQ("MPI_Cart_map", tt_rank < line[0] ? tt_rank : MPI_UNDEFINED, nr);

    TT_MPI(MPI_Comm_free(&split));
    TT_MPI(MPI_Comm_free(&dup));
    TT_MPI(MPI_Comm_free(&single));
    TT_MPI(MPI_Comm_free(&row));
    TT_MPI(MPI_Comm_free(&cart));
}

static void cart_small(void)
{
    /* A line one shorter than the world (or the whole of a world of 1). */
    int n = tt_size > 1 ? tt_size - 1 : 1, per = 1;
    MPI_Comm line, zero;
    TT_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, &n, &per, 0, &line));
    if (tt_rank < n) {
        int size = -1, src, dst;
        TT_CHECK(line != MPI_COMM_NULL, "a member of the line got MPI_COMM_NULL");
        TT_MPI(MPI_Comm_size(line, &size));
        TT_EQ("line size", n, size);
        TT_MPI(MPI_Cart_shift(line, 0, 1, &src, &dst));
        TT_EQ("periodic line: right neighbour", (tt_rank + 1) % n, dst);
        TT_EQ("periodic line: left neighbour", (tt_rank + n - 1) % n, src);
        TT_MPI(MPI_Comm_free(&line));
    } else {
        TT_CHECK(line == MPI_COMM_NULL, "rank %d is outside the line of %d but got a "
                 "communicator", tt_rank, n);
    }
    TT_MPI(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &zero));
    if (tt_rank == 0) {
        int size = -1, nd = -1, r = -1;
        TT_MPI(MPI_Comm_size(zero, &size));
        TT_EQ("size of a 0-dimensional grid", 1, size);
        TT_MPI(MPI_Cartdim_get(zero, &nd));
        TT_EQ("MPI_Cartdim_get of a 0-dimensional grid", 0, nd);
        TT_MPI(MPI_Cart_rank(zero, NULL, &r));
        TT_EQ("MPI_Cart_rank in a 0-dimensional grid", 0, r);
        TT_MPI(MPI_Comm_free(&zero));
    } else {
        TT_CHECK(zero == MPI_COMM_NULL, "a 0-dimensional grid holds rank 0 only");
    }
}

/* Ring 0 - 1 - ... - n-1 - 0 with a chord from node 0 to node n/2. */
static void graph(void)
{
    int n = tt_size, index[64], edges[256], ne = 0;
    for (int i = 0; i < n; i++) {
        if (n > 1) {
            edges[ne++] = (i + n - 1) % n;
            edges[ne++] = (i + 1) % n;
        }
        if (i == 0 && n > 2)
            edges[ne++] = n / 2;
        index[i] = ne;
    }
    MPI_Comm g;
    TT_MPI(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &g));
    TT_EQ("MPI_Topo_test of a graph", MPI_GRAPH, topo_kind(g));
    int nn = -1, nedges = -1, gi[64], ge[256];
    TT_MPI(MPI_Graphdims_get(g, &nn, &nedges));
    TT_EQ("MPI_Graphdims_get nnodes", n, nn);
    TT_EQ("MPI_Graphdims_get nedges", ne, nedges);
    TT_MPI(MPI_Graph_get(g, 64, 256, gi, ge));
    for (int i = 0; i < n; i++)
        TT_EQ("MPI_Graph_get index", index[i], gi[i]);
    for (int i = 0; i < ne; i++)
        TT_EQ("MPI_Graph_get edges", edges[i], ge[i]);
    for (int r = 0; r < n; r++) {
        int cnt = -1, nb[8], first = r ? index[r - 1] : 0;
        TT_MPI(MPI_Graph_neighbors_count(g, r, &cnt));
        TT_EQ("MPI_Graph_neighbors_count", index[r] - first, cnt);
        TT_MPI(MPI_Graph_neighbors(g, r, 8, nb));
        for (int k = 0; k < cnt; k++)
            TT_EQ("MPI_Graph_neighbors", edges[first + k], nb[k]);
    }
    int nr = -2;
    TT_MPI(MPI_Graph_map(MPI_COMM_WORLD, n, index, edges, &nr));
    TT_EQ("MPI_Graph_map", tt_rank, nr);
    TT_MPI(MPI_Comm_free(&g));
}

/* Checks a distributed graph in which this rank's only in-neighbour is
 * the previous rank and its only out-neighbour the next, each edge weighed
 * by its source's rank plus 10 (when weighted). */
static void check_ring(MPI_Comm d, int weighted)
{
    int in = -1, out = -1, w = -1, src = -1, sw = -1, dst = -1, dw = -1;
    TT_EQ("MPI_Topo_test of a distributed graph", MPI_DIST_GRAPH, topo_kind(d));
    TT_MPI(MPI_Dist_graph_neighbors_count(d, &in, &out, &w));
    TT_EQ("indegree", 1, in);
    TT_EQ("outdegree", 1, out);
    TT_EQ("weighted", weighted, w != 0);
    TT_MPI(MPI_Dist_graph_neighbors(d, 1, &src, weighted ? &sw : MPI_UNWEIGHTED, 1, &dst,
                                    weighted ? &dw : MPI_UNWEIGHTED));
    TT_EQ("source", tt_prev(), src);
    TT_EQ("destination", tt_next(), dst);
    if (weighted) {
        TT_EQ("source weight", tt_prev() + 10, sw);
        TT_EQ("destination weight", tt_rank + 10, dw);
    }
}

/* The edges rank q names in dist_graph_third_party: a self-loop, an edge
 * between two other ranks, and an edge from rank 0 to the last rank (the
 * same edge from every rank); weight 100 q + k for its k-th edge. */
static int named_edges(int q, int src[3], int dst[3], int w[3])
{
    int p = tt_size;
    int s[3] = { q, (q + 1) % p, 0 }, d[3] = { q, (q + 2) % p, p - 1 };
    for (int k = 0; k < 3; k++) {
        src[k] = s[k];
        dst[k] = d[k];
        w[k] = 100 * q + k;
    }
    return 3;
}

/* MPI_Dist_graph_create where ranks name edges that do not touch them,
 * with self-loops and repeated edges: each rank's neighbours come in the
 * order of the ranks that named the edges, then as each listed them, and
 * a self-loop is both a source and a destination. */
static void dist_graph_third_party(void)
{
    int src[3], dst[3], w[3], deg[3] = { 1, 1, 1 };
    int n = named_edges(tt_rank, src, dst, w);
    MPI_Comm d;
    TT_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, n, src, deg, dst, w, MPI_INFO_NULL, 0, &d));
    int want_in = 0, want_out = 0, ws[3 * 64], wsw[3 * 64], wd[3 * 64], wdw[3 * 64];
    for (int q = 0; q < tt_size; q++) {
        int qs[3], qd[3], qw[3];
        for (int k = 0, m = named_edges(q, qs, qd, qw); k < m; k++) {
            if (qd[k] == tt_rank) {
                ws[want_in] = qs[k];
                wsw[want_in++] = qw[k];
            }
            if (qs[k] == tt_rank) {
                wd[want_out] = qd[k];
                wdw[want_out++] = qw[k];
            }
        }
    }
    int in, out, weighted;
    TT_MPI(MPI_Dist_graph_neighbors_count(d, &in, &out, &weighted));
    TT_EQ("indegree, edges named by other ranks", want_in, in);
    TT_EQ("outdegree, edges named by other ranks", want_out, out);
    int gs[3 * 64], gsw[3 * 64], gd[3 * 64], gdw[3 * 64];
    TT_MPI(MPI_Dist_graph_neighbors(d, in, gs, gsw, out, gd, gdw));
    for (int i = 0; i < in; i++)
        TT_CHECK(gs[i] == ws[i] && gsw[i] == wsw[i], "source %d: expected %d (weight %d), "
                 "got %d (weight %d)", i, ws[i], wsw[i], gs[i], gsw[i]);
    for (int i = 0; i < out; i++)
        TT_CHECK(gd[i] == wd[i] && gdw[i] == wdw[i], "destination %d: expected %d (weight "
                 "%d), got %d (weight %d)", i, wd[i], wdw[i], gd[i], gdw[i]);
    TT_MPI(MPI_Comm_free(&d));
}

static void dist_graph(void)
{
    int prev = tt_prev(), next = tt_next(), pw = prev + 10, nw = tt_rank + 10;
    MPI_Comm d;
    TT_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &prev, &pw, 1, &next, &nw,
                                          MPI_INFO_NULL, 0, &d));
    check_ring(d, 1);
    TT_MPI(MPI_Comm_free(&d));
    TT_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &prev, MPI_UNWEIGHTED, 1, &next,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d));
    check_ring(d, 0);
    TT_MPI(MPI_Comm_free(&d));

    /* Every edge named by rank 0. */
    int n = tt_rank == 0 ? tt_size : 0, src[64], deg[64], dst[64], w[64];
    for (int i = 0; i < n; i++) {
        src[i] = i;
        deg[i] = 1;
        dst[i] = (i + 1) % tt_size;
        w[i] = i + 10;
    }
    TT_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, n, src, deg, dst, w, MPI_INFO_NULL, 0, &d));
    check_ring(d, 1);
    TT_MPI(MPI_Comm_free(&d));
    /* Each edge named by its source. */
    int one = 1;
    TT_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &tt_rank, &one, &next, MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 0, &d));
    check_ring(d, 0);
    TT_MPI(MPI_Comm_free(&d));
}

static void errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm c = MPI_COMM_NULL;
    int big[2] = { tt_size, 2 }, zero[2] = { tt_size, 0 }, per[2] = { 0, 0 }, x, y;
    TT_EXPECT_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 2, big, per, 0, &c), MPI_ERR_DIMS);
    TT_EXPECT_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 2, zero, per, 0, &c), MPI_ERR_DIMS);
    TT_EXPECT_CLASS(MPI_Cart_create(MPI_COMM_WORLD, -1, big, per, 0, &c), MPI_ERR_DIMS);
    TT_EXPECT_CLASS(MPI_Cartdim_get(MPI_COMM_WORLD, &x), MPI_ERR_TOPOLOGY);
    TT_EXPECT_CLASS(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &x, &y), MPI_ERR_TOPOLOGY);
    TT_EXPECT_CLASS(MPI_Graphdims_get(MPI_COMM_WORLD, &x, &y), MPI_ERR_TOPOLOGY);

    int line = tt_size;
    TT_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, &line, per, 0, &c));
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int out = tt_size;
    TT_EXPECT_CLASS(MPI_Cart_shift(c, 1, 1, &x, &y), MPI_ERR_ARG);
    TT_EXPECT_CLASS(MPI_Cart_rank(c, &out, &x), MPI_ERR_ARG);
    TT_EXPECT_CLASS(MPI_Cart_coords(c, tt_size, 1, &x), MPI_ERR_RANK);
    TT_EXPECT_CLASS(MPI_Graph_neighbors_count(c, 0, &x), MPI_ERR_TOPOLOGY);
    TT_EXPECT_CLASS(MPI_Dist_graph_neighbors_count(c, &x, &y, &out), MPI_ERR_TOPOLOGY);
    TT_MPI(MPI_Comm_free(&c));

    /* Invalid on one rank only, or valid but different: every rank gets
     * an error, none waits for the others. */
    int mine = tt_rank == tt_size - 1 ? tt_size + 1 : tt_size;
    TT_EXPECT_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 1, &mine, per, 0, &c),
                 tt_rank == tt_size - 1 ? MPI_ERR_DIMS : MPI_ERR_ARG);
    if (tt_size > 1) {
        int differ = tt_rank == 0 ? 1 : tt_size;
        TT_EXPECT_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 1, &differ, per, 0, &c), MPI_ERR_ARG);
        int bad_src = tt_rank == 0 ? tt_size : 0, w = 1;
        TT_EXPECT_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &bad_src, &w, 0, NULL,
                                                    MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &c),
                     tt_rank == 0 ? MPI_ERR_RANK : MPI_ERR_ARG);
    }

    int index[1] = { 1 }, edges[1] = { 1 };
    TT_EXPECT_CLASS(MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &c), MPI_ERR_RANK);
    TT_EXPECT_CLASS(MPI_Graph_create(MPI_COMM_WORLD, tt_size + 1, index, edges, 0, &c),
                 MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "topo");
    TT_CHECK(tt_size <= 64, "this test runs on at most 64 ranks");
    cart_2d();
    cart_small();
    graph();
    dist_graph();
    dist_graph_third_party();
    errors();
    return tt_finish();
}
