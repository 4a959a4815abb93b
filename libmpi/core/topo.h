/*
 * Process topologies attached to communicators: Cartesian grids, graphs
 * and distributed graphs (MPI-4.1 chapter 8). A topology is a description
 * only; Tern never reorders ranks (reorder is a hint the standard lets an
 * implementation ignore), so a communicator with a topology is the parent's
 * first n ranks in their order.
 *
 * One allocation holds the struct and its arrays. MPI_Comm_dup and
 * MPI_Comm_idup copy the topology; the other constructors do not.
 *
 * Cartesian ranks are row-major: the last dimension varies fastest, as the
 * standard fixes.
 *
 * Errors: 0 or a negative TERN_E* code.
 */
#ifndef TERN_CORE_TOPO_H
#define TERN_CORE_TOPO_H

#include <stdint.h>

struct tern_topo {
    int kind;               /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH. */
    /* MPI_CART */
    int ndims;
    int *dims, *periods;
    /* MPI_GRAPH: index[i] is the number of edges of nodes 0..i, edges[]
     * their neighbours, as the user passed them. */
    int nnodes, nedges;
    int *index, *edges;
    /* MPI_DIST_GRAPH: this process's in- and out-neighbours and their
     * weights (all 1 when the user gave MPI_UNWEIGHTED). */
    int indegree, outdegree, weighted;
    int *sources, *sourceweights, *dests, *destweights;
};

/* A Cartesian topology of ndims dimensions (0 allowed). */
int tern_topo_cart(int ndims, const int *dims, const int *periods, struct tern_topo **out);

/* A graph topology of nnodes nodes (index and edges as in MPI_Graph_create). */
int tern_topo_graph(int nnodes, const int *index, const int *edges, struct tern_topo **out);

/* A distributed graph topology from this process's neighbours; NULL
 * weights are all 1. `weighted` is what MPI_Dist_graph_neighbors_count
 * reports (0 when the user passed MPI_UNWEIGHTED). */
int tern_topo_dist_graph(int indegree, const int *sources, const int *sourceweights,
                         int outdegree, const int *dests, const int *destweights,
                         int weighted, struct tern_topo **out);

/* A copy of t (NULL for NULL). */
int tern_topo_dup(const struct tern_topo *t, struct tern_topo **out);

void tern_topo_free(struct tern_topo *t);

struct tern_comm;

/* Folds n ints into the hash h (start with 0): what the ranks compare to
 * find out whether they passed the same grid or graph. */
uint64_t tern_topo_fingerprint(uint64_t h, const int *v, int n);

/* The constructors' collective part: tern_comm_split of parent by color
 * (MPI_UNDEFINED: no communicator) with the parent's order kept; the new
 * communicator takes t, which is freed where none is made. */
int tern_topo_split(struct tern_comm *parent, int color, struct tern_topo *t,
                    struct tern_comm **out);

/* Cartesian: the coordinates of rank r (ndims of them). */
void tern_topo_cart_coords(const struct tern_topo *t, int r, int *coords);

/* Cartesian: the rank at coords; a coordinate outside a periodic
 * dimension wraps around, one outside a non-periodic one gives -1
 * (MPI_PROC_NULL for shifts; an error for MPI_Cart_rank). */
int tern_topo_cart_rank(const struct tern_topo *t, const int *coords);

/* The neighbours of rank r for the neighbourhood collectives, in the
 * standard's order: *nin sources and *nout destinations. For a Cartesian
 * grid, per dimension the neighbour in the negative direction and then
 * the one in the positive direction, MPI_PROC_NULL where the grid ends;
 * for a graph, r's edges as both lists; for a distributed graph (r must
 * be the calling process) its sources and destinations. in and out may be
 * NULL, for the counts alone. */
void tern_topo_neighbors(const struct tern_topo *t, int r, int *nin, int *in, int *nout,
                         int *out);

/* Cartesian: the number of ranks in the grid (1 for ndims 0). */
long tern_topo_cart_size(int ndims, const int *dims);

#endif
