/*
 * Graph topologies: MPI_Graph_create, MPI_Graph_map and their queries
 * (distributed graphs are in dist_graph_api.c). As for Cartesian grids
 * (cart_api.c), ranks are never reordered, and the queries copy at most as
 * many entries as the caller's arrays hold.
 */
#include <stdint.h>

#include "libmpi/api/api.h"
#include "libmpi/core/comm.h"
#include "libmpi/core/topo.h"
#include "tern/err.h"

/* MPI_Graph_create's description of a graph on at most `size` processes. */
static int check_graph(int nnodes, const int index[], const int edges[], int size)
{
    if (nnodes < 0 || nnodes > size) {
        tern_api_detail("invalid nnodes %d: the communicator has %d processes", nnodes, size);
        return TERN_EARG;
    }
    int rc = nnodes > 0 ? tern_check_ptr(index, "index") : 0;
    for (int i = 0; !rc && i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0)) {
            tern_api_detail("invalid index[%d] = %d: index counts the edges of nodes 0 to "
                            "i, so it never decreases and starts at 0 or more", i, index[i]);
            rc = TERN_EARG;
        }
    int nedges = rc || nnodes == 0 ? 0 : index[nnodes - 1];
    if (!rc && nedges > 0)
        rc = tern_check_ptr(edges, "edges");
    for (int i = 0; !rc && i < nedges; i++)
        rc = tern_api_topo_node(edges[i], nnodes, "edges", i);
    return rc;
}

#pragma weak MPI_Graph_create = PMPI_Graph_create
int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    (void)reorder;
    struct tern_comm *c = NULL, *nc = NULL;
    struct tern_topo *t = NULL;
    int rc = tern_check_comm_ctor(comm_old, &c, comm_graph);
    if (!rc) {
        int bad = check_graph(nnodes, index, edges, c->size);
        uint64_t fp = 0;
        if (!bad) {
            fp = tern_topo_fingerprint(0, index, nnodes);
            fp = tern_topo_fingerprint(fp, edges, nnodes > 0 ? index[nnodes - 1] : 0);
        }
        rc = tern_api_topo_agree(c, bad, fp);
    }
    if (!rc)
        rc = tern_topo_graph(nnodes, index, edges, &t);
    if (!rc)
        rc = tern_topo_split(c, c->rank < nnodes ? 0 : MPI_UNDEFINED, t, &nc);
    if (rc)
        return tern_api_error(c, "MPI_Graph_create", rc);
    *comm_graph = nc ? nc->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_map = PMPI_Graph_map
int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                   int *newrank)
{
    struct tern_comm *c = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, &c);
    if (!rc)
        rc = check_graph(nnodes, index, edges, c->size);
    if (!rc)
        rc = tern_check_ptr(newrank, "newrank");
    if (rc)
        return tern_api_error(c, "MPI_Graph_map", rc);
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

#pragma weak MPI_Graphdims_get = PMPI_Graphdims_get
int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    struct tern_comm *c = NULL;
    int rc = tern_api_topo_check(comm, MPI_GRAPH, &c);
    if (!rc)
        rc = tern_check_ptr(nnodes, "nnodes");
    if (!rc)
        rc = tern_check_ptr(nedges, "nedges");
    if (rc)
        return tern_api_error(c, "MPI_Graphdims_get", rc);
    *nnodes = c->topo->nnodes;
    *nedges = c->topo->nedges;
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_get = PMPI_Graph_get
int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    struct tern_comm *c = NULL;
    int rc = tern_api_topo_check(comm, MPI_GRAPH, &c);
    if (!rc)
        rc = tern_api_topo_copy_out(index, c->topo->index, c->topo->nnodes, maxindex, "maxindex", "index");
    if (!rc)
        rc = tern_api_topo_copy_out(edges, c->topo->edges, c->topo->nedges, maxedges, "maxedges", "edges");
    if (rc)
        return tern_api_error(c, "MPI_Graph_get", rc);
    return MPI_SUCCESS;
}

/* A graph node's neighbours: their count and where they start in edges. */
static int neighbours(const struct tern_comm *c, int rank, int *first, int *n)
{
    const struct tern_topo *t = c->topo;
    if (rank < 0 || rank >= t->nnodes) {
        tern_api_detail("invalid rank %d: the graph has nodes 0 to %d", rank, t->nnodes - 1);
        return TERN_ERANK;
    }
    *first = rank ? t->index[rank - 1] : 0;
    *n = t->index[rank] - *first;
    return 0;
}

#pragma weak MPI_Graph_neighbors_count = PMPI_Graph_neighbors_count
int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    struct tern_comm *c = NULL;
    int first = 0, n = 0;
    int rc = tern_api_topo_check(comm, MPI_GRAPH, &c);
    if (!rc)
        rc = neighbours(c, rank, &first, &n);
    if (!rc)
        rc = tern_check_ptr(nneighbors, "nneighbors");
    if (rc)
        return tern_api_error(c, "MPI_Graph_neighbors_count", rc);
    *nneighbors = n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_neighbors = PMPI_Graph_neighbors
int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    struct tern_comm *c = NULL;
    int first = 0, n = 0;
    int rc = tern_api_topo_check(comm, MPI_GRAPH, &c);
    if (!rc)
        rc = neighbours(c, rank, &first, &n);
    if (!rc)
        rc = tern_api_topo_copy_out(neighbors, c->topo->edges + first, n, maxneighbors, "maxneighbors",
                      "neighbors");
    if (rc)
        return tern_api_error(c, "MPI_Graph_neighbors", rc);
    return MPI_SUCCESS;
}
