/*
 * Distributed graph topologies: MPI_Dist_graph_create_adjacent,
 * MPI_Dist_graph_create and their queries. As for the other topologies,
 * ranks are never reordered, and the queries copy at most as many entries
 * as the caller's arrays hold.
 *
 * MPI_Dist_graph_create lets any process name any edge, so each edge goes
 * to the two processes it joins (an alltoall of the counts, then an
 * alltoallv of the edges), which keep them in the order of the ranks that
 * named them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "libmpi/api/api.h"
#include "libmpi/core/comm.h"
#include "libmpi/core/datatype.h"
#include "libmpi/core/topo.h"
#include "tern/err.h"

/* One side of MPI_Dist_graph_create_adjacent: degree ranks and their
 * weights (MPI_UNWEIGHTED, or MPI_WEIGHTS_EMPTY for degree 0, allowed). */
static int check_side(int degree, const int ranks[], const int *weights, int size,
                      const char *dname, const char *rname, const char *wname)
{
    if (degree < 0) {
        tern_api_detail("invalid %s %d", dname, degree);
        return TERN_EARG;
    }
    int rc = degree > 0 ? tern_check_ptr(ranks, rname) : 0;
    for (int i = 0; !rc && i < degree; i++)
        rc = tern_api_topo_node(ranks[i], size, rname, i);
    if (rc || degree == 0 || weights == MPI_UNWEIGHTED)
        return rc;
    if (!weights || weights == MPI_WEIGHTS_EMPTY) {
        tern_api_detail("invalid %s: %s is %d, so it needs %d weights (or MPI_UNWEIGHTED)",
                        wname, dname, degree, degree);
        return TERN_EARG;
    }
    for (int i = 0; i < degree; i++)
        if (weights[i] < 0) {
            tern_api_detail("invalid %s[%d] = %d: weights are 0 or more", wname, i, weights[i]);
            return TERN_EARG;
        }
    return 0;
}

/* Weights to store: NULL (all 1) for MPI_UNWEIGHTED or an empty side. */
static const int *weights_of(const int *w, int degree)
{
    return w == MPI_UNWEIGHTED || degree == 0 ? NULL : w;
}

#pragma weak MPI_Dist_graph_create_adjacent = PMPI_Dist_graph_create_adjacent
int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int *sourceweights, int outdegree,
                                    const int destinations[], const int *destweights,
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    (void)reorder;
    struct tern_comm *c = NULL, *nc = NULL;
    struct tern_topo *t = NULL;
    int rc = tern_check_comm_ctor(comm_old, &c, comm_dist_graph);
    if (!rc)
        rc = tern_check_info(info);
    if (!rc) {
        int bad = check_side(indegree, sources, sourceweights, c->size, "indegree", "sources",
                             "sourceweights");
        if (!bad)
            bad = check_side(outdegree, destinations, destweights, c->size, "outdegree",
                             "destinations", "destweights");
        rc = tern_api_topo_agree(c, bad, 0);
    }
    if (!rc)
        rc = tern_topo_dist_graph(indegree, sources, weights_of(sourceweights, indegree),
                                  outdegree, destinations, weights_of(destweights, outdegree),
                                  sourceweights != MPI_UNWEIGHTED, &t);
    if (!rc)
        rc = tern_topo_split(c, 0, t, &nc);
    if (rc)
        return tern_api_error(c, "MPI_Dist_graph_create_adjacent", rc);
    *comm_dist_graph = nc->handle;
    return MPI_SUCCESS;
}

/* MPI_Dist_graph_create's edges named here: n sources, degrees[i] edges
 * from sources[i], to the ranks in destinations, with their weights. *m
 * is the number of edges. */
static int check_edges(int n, const int sources[], const int degrees[],
                       const int destinations[], const int *weights, int size, int *m)
{
    if (n < 0) {
        tern_api_detail("invalid n %d", n);
        return TERN_EARG;
    }
    int rc = n > 0 ? tern_check_ptr(sources, "sources") : 0;
    if (!rc && n > 0)
        rc = tern_check_ptr(degrees, "degrees");
    long total = 0;
    for (int i = 0; !rc && i < n; i++) {
        rc = tern_api_topo_node(sources[i], size, "sources", i);
        if (!rc && degrees[i] < 0) {
            tern_api_detail("invalid degrees[%d] = %d", i, degrees[i]);
            rc = TERN_EARG;
        }
        if (!rc && (total += degrees[i]) > INT32_MAX / 3) {
            tern_api_detail("too many edges: degrees add up to more than %d", INT32_MAX / 3);
            rc = TERN_EARG;
        }
    }
    *m = (int)total;
    if (rc || total == 0)
        return rc;
    return check_side((int)total, destinations, weights, size, "the sum of degrees",
                      "destinations", "weights");
}

/* What MPI_Dist_graph_create exchanges, taken before its first agreement
 * so that a failed allocation fails the call on every rank: the edges
 * named here as (source, destination, weight) triples, room to sort them
 * by the rank they go to, the triple counts sent and received, and the
 * counts and displacements of the alltoallv. */
struct edge_bufs {
    int *mine, *out, *counts;
    size_t *v;
};

static int edge_bufs_alloc(struct edge_bufs *b, int m, int p)
{
    b->mine = malloc(9 * (size_t)m * sizeof(int) + 1);
    b->counts = calloc(2 * (size_t)p, sizeof(int));
    b->v = malloc(4 * (size_t)p * sizeof(size_t));
    b->out = b->mine ? b->mine + 3 * (size_t)m : NULL;
    return b->mine && b->counts && b->v ? 0 : TERN_ENOMEM;
}

static void edge_bufs_free(struct edge_bufs *b)
{
    free(b->mine);
    free(b->counts);
    free(b->v);
}

/* Sends every edge named here to its source and to its destination (once
 * when they are the same rank), and returns in *in the *nin triples sent
 * to this rank, ordered by the rank that named them and then as that rank
 * listed them: an alltoall of the triple counts, then an alltoallv of the
 * triples, so that a process holds only its own edges and those that
 * touch it. */
static int exchange_edges(struct tern_comm *c, struct edge_bufs *b, int m, int **in, int *nin)
{
    const struct tern_dtype *int_t = tern_dtype_get(MPI_INT);
    int p = c->size, *mine = b->mine, *counts = b->counts;
    size_t *sc = b->v, *sd = sc + p, *rcounts = sd + p, *rd = rcounts + p;
    for (int e = 0; e < m; e++) {
        counts[mine[3 * e]] += 3;
        if (mine[3 * e + 1] != mine[3 * e])
            counts[mine[3 * e + 1]] += 3;
    }
    size_t total = 0;
    for (int r = 0; r < p; r++) {
        sc[r] = (size_t)counts[r];
        sd[r] = total;
        total += sc[r];
    }
    /* The buckets, in the order the edges were named. */
    for (int e = 0; e < m; e++)
        for (int side = 0; side < 2; side++) {
            int to = mine[3 * e + side];
            if (side == 1 && to == mine[3 * e])
                break;
            memcpy(b->out + sd[to], mine + 3 * e, 3 * sizeof(int));
            sd[to] += 3;
        }
    for (int r = 0; r < p; r++)
        sd[r] -= sc[r];
    struct tern_coll_args a = { .kind = TERN_COLL_ALLTOALL, .comm = c, .sbuf = counts,
                                .scount = 1, .sdt = int_t, .rbuf = counts + p,
                                .rcount = 1, .rdt = int_t };
    int rc = tern_coll_run(&a, NULL);
    if (rc)
        return rc;
    total = 0;
    for (int r = 0; r < p; r++) {
        rcounts[r] = (size_t)counts[p + r];
        rd[r] = total;
        total += rcounts[r];
    }
    /* Only this process knows how many edges touch it, so all agree on
     * whether every process can take its own before they are sent. */
    int bad = 0;
    if (total / 3 > INT32_MAX / 3) {
        tern_api_detail("too many edges: %zu touch rank %d, more than %d", total / 3, c->rank,
                        INT32_MAX / 3);
        bad = TERN_EARG;
    } else if (!(*in = malloc(total * sizeof(int) + 1))) {
        bad = TERN_ENOMEM;
    }
    rc = tern_api_topo_agree(c, bad, 0);
    if (rc)
        return rc;
    struct tern_coll_args av = { .kind = TERN_COLL_ALLTOALLV, .comm = c, .sbuf = b->out,
                                 .sdt = int_t, .scounts = sc, .sdispls = sd, .rbuf = *in,
                                 .rdt = int_t, .rcounts = rcounts, .rdispls = rd };
    *nin = (int)(total / 3);
    return tern_coll_run(&av, NULL);
}

/* The topology of this process from the edges that touch it. */
static int topo_from_edges(int me, const int *all, int nall, int weighted,
                           struct tern_topo **out)
{
    int nin = 0, nout = 0;
    for (int e = 0; e < nall; e++) {
        nin += all[3 * e + 1] == me;
        nout += all[3 * e] == me;
    }
    int *v = malloc(2 * ((size_t)nin + (size_t)nout) * sizeof(int) + 1);
    if (!v)
        return TERN_ENOMEM;
    int *src = v, *sw = src + nin, *dst = sw + nin, *dw = dst + nout, i = 0, o = 0;
    for (int e = 0; e < nall; e++) {
        const int *x = all + 3 * e;
        if (x[1] == me) {
            src[i] = x[0];
            sw[i++] = x[2];
        }
        if (x[0] == me) {
            dst[o] = x[1];
            dw[o++] = x[2];
        }
    }
    int rc = tern_topo_dist_graph(nin, src, sw, nout, dst, dw, weighted, out);
    free(v);
    return rc;
}

#pragma weak MPI_Dist_graph_create = PMPI_Dist_graph_create
int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int *weights, MPI_Info info,
                           int reorder, MPI_Comm *comm_dist_graph)
{
    (void)reorder;
    struct tern_comm *c = NULL, *nc = NULL;
    struct tern_topo *t = NULL;
    struct edge_bufs b = { 0 };
    int m = 0, nall = 0, *all = NULL;
    int rc = tern_check_comm_ctor(comm_old, &c, comm_dist_graph);
    if (!rc)
        rc = tern_check_info(info);
    if (!rc) {
        int bad = check_edges(n, sources, degrees, destinations, weights, c->size, &m);
        if (!bad)
            bad = edge_bufs_alloc(&b, m, c->size);
        rc = tern_api_topo_agree(c, bad, 0);
    }
    for (int i = 0, e = 0; !rc && i < n; i++)
        for (int k = 0; k < degrees[i]; k++, e++) {
            b.mine[3 * e] = sources[i];
            b.mine[3 * e + 1] = destinations[e];
            b.mine[3 * e + 2] = weights == MPI_UNWEIGHTED || weights == MPI_WEIGHTS_EMPTY
                                    ? 1 : weights[e];
        }
    if (!rc)
        rc = exchange_edges(c, &b, m, &all, &nall);
    if (!rc)
        rc = topo_from_edges(c->rank, all, nall, weights != MPI_UNWEIGHTED, &t);
    edge_bufs_free(&b);
    free(all);
    if (!rc)
        rc = tern_topo_split(c, 0, t, &nc);
    if (rc)
        return tern_api_error(c, "MPI_Dist_graph_create", rc);
    *comm_dist_graph = nc->handle;
    return MPI_SUCCESS;
}

#pragma weak MPI_Dist_graph_neighbors_count = PMPI_Dist_graph_neighbors_count
int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree,
                                    int *weighted)
{
    struct tern_comm *c = NULL;
    int rc = tern_api_topo_check(comm, MPI_DIST_GRAPH, &c);
    if (!rc)
        rc = tern_check_ptr(indegree, "indegree");
    if (!rc)
        rc = tern_check_ptr(outdegree, "outdegree");
    if (!rc)
        rc = tern_check_ptr(weighted, "weighted");
    if (rc)
        return tern_api_error(c, "MPI_Dist_graph_neighbors_count", rc);
    *indegree = c->topo->indegree;
    *outdegree = c->topo->outdegree;
    *weighted = c->topo->weighted;
    return MPI_SUCCESS;
}

#pragma weak MPI_Dist_graph_neighbors = PMPI_Dist_graph_neighbors
int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
                              int *sourceweights, int maxoutdegree, int destinations[],
                              int *destweights)
{
    struct tern_comm *c = NULL;
    int rc = tern_api_topo_check(comm, MPI_DIST_GRAPH, &c);
    const struct tern_topo *t = rc ? NULL : c->topo;
    if (!rc)
        rc = tern_api_topo_copy_out(sources, t->sources, t->indegree, maxindegree, "maxindegree", "sources");
    if (!rc && sourceweights != MPI_UNWEIGHTED)
        rc = tern_api_topo_copy_out(sourceweights, t->sourceweights, t->indegree, maxindegree,
                      "maxindegree", "sourceweights");
    if (!rc)
        rc = tern_api_topo_copy_out(destinations, t->dests, t->outdegree, maxoutdegree, "maxoutdegree",
                      "destinations");
    if (!rc && destweights != MPI_UNWEIGHTED)
        rc = tern_api_topo_copy_out(destweights, t->destweights, t->outdegree, maxoutdegree,
                      "maxoutdegree", "destweights");
    if (rc)
        return tern_api_error(c, "MPI_Dist_graph_neighbors", rc);
    return MPI_SUCCESS;
}
