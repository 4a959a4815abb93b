/*
 * Process topologies (see topo.h).
 */
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "libmpi/core/comm.h"
#include "libmpi/core/topo.h"
#include "tern/err.h"

/* The struct followed by n ints; the arrays point into them. */
static struct tern_topo *alloc(int kind, size_t n)
{
    struct tern_topo *t = calloc(1, sizeof *t + n * sizeof(int));
    if (t)
        t->kind = kind;
    return t;
}

/* Copies n ints from src (or fills them with 1 when src is NULL) to the
 * next free place *at, and returns where they went. */
static int *take(int **at, const int *src, int n)
{
    int *p = *at;
    for (int i = 0; i < n; i++)
        p[i] = src ? src[i] : 1;
    *at = p + n;
    return p;
}

static int *ints_after(struct tern_topo *t)
{
    return (int *)(t + 1);
}

int tern_topo_cart(int ndims, const int *dims, const int *periods, struct tern_topo **out)
{
    struct tern_topo *t = alloc(MPI_CART, 2 * (size_t)ndims);
    if (!(*out = t))
        return TERN_ENOMEM;
    int *at = ints_after(t);
    t->ndims = ndims;
    t->dims = take(&at, dims, ndims);
    t->periods = take(&at, periods, ndims);
    for (int i = 0; i < ndims; i++)
        t->periods[i] = t->periods[i] != 0;
    return 0;
}

int tern_topo_graph(int nnodes, const int *index, const int *edges, struct tern_topo **out)
{
    int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    struct tern_topo *t = alloc(MPI_GRAPH, (size_t)nnodes + (size_t)nedges);
    if (!(*out = t))
        return TERN_ENOMEM;
    int *at = ints_after(t);
    t->nnodes = nnodes;
    t->nedges = nedges;
    t->index = take(&at, index, nnodes);
    t->edges = take(&at, edges, nedges);
    return 0;
}

int tern_topo_dist_graph(int indegree, const int *sources, const int *sourceweights,
                         int outdegree, const int *dests, const int *destweights,
                         int weighted, struct tern_topo **out)
{
    struct tern_topo *t = alloc(MPI_DIST_GRAPH, 2 * ((size_t)indegree + (size_t)outdegree));
    if (!(*out = t))
        return TERN_ENOMEM;
    int *at = ints_after(t);
    t->indegree = indegree;
    t->outdegree = outdegree;
    t->weighted = weighted;
    t->sources = take(&at, sources, indegree);
    t->sourceweights = take(&at, sourceweights, indegree);
    t->dests = take(&at, dests, outdegree);
    t->destweights = take(&at, destweights, outdegree);
    return 0;
}

int tern_topo_dup(const struct tern_topo *t, struct tern_topo **out)
{
    *out = NULL;
    if (!t)
        return 0;
    switch (t->kind) {
    case MPI_CART:
        return tern_topo_cart(t->ndims, t->dims, t->periods, out);
    case MPI_GRAPH:
        return tern_topo_graph(t->nnodes, t->index, t->edges, out);
    default:
        return tern_topo_dist_graph(t->indegree, t->sources, t->sourceweights, t->outdegree,
                                    t->dests, t->destweights, t->weighted, out);
    }
}

void tern_topo_free(struct tern_topo *t)
{
    free(t);
}

long tern_topo_cart_size(int ndims, const int *dims)
{
    long n = 1;
    for (int i = 0; i < ndims; i++)
        n *= dims[i];
    return n;
}

void tern_topo_cart_coords(const struct tern_topo *t, int r, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = r % t->dims[i];
        r /= t->dims[i];
    }
}

int tern_topo_cart_rank(const struct tern_topo *t, const int *coords)
{
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        int c = coords[i], d = t->dims[i];
        if (c < 0 || c >= d) {
            if (!t->periods[i])
                return -1;
            c %= d;
            if (c < 0)
                c += d;
        }
        r = r * d + c;
    }
    return r;
}

uint64_t tern_topo_fingerprint(uint64_t h, const int *v, int n)
{
    /* FNV-1a over the ints, and their number. */
    if (h == 0)
        h = 14695981039346656037ull;
    for (int i = 0; i <= n; i++) {
        uint32_t x = i < n ? (uint32_t)v[i] : (uint32_t)n;
        for (int b = 0; b < 4; b++) {
            h ^= (x >> (8 * b)) & 0xff;
            h *= 1099511628211ull;
        }
    }
    return h;
}

int tern_topo_split(struct tern_comm *parent, int color, struct tern_topo *t,
                    struct tern_comm **out)
{
    int rc = tern_comm_split(parent, color, parent->rank, out);
    if (!rc && *out)
        (*out)->topo = t;
    else
        tern_topo_free(t);
    return rc;
}

/* Fills n ints of to (if not NULL) from from. */
static void fill(int *to, const int *from, int n)
{
    for (int i = 0; to && i < n; i++)
        to[i] = from[i];
}

/* The Cartesian neighbours of r (if nb is not NULL): per dimension the
 * ranks one step down and one step up, if the grid goes on there. A step
 * in dimension d moves the rank by the product of the later dimensions. */
static void cart_neighbors(const struct tern_topo *t, int r, int *nb)
{
    long stride = 1;
    for (int d = t->ndims - 1; nb && d >= 0; d--) {
        int n = t->dims[d], c = (int)(r / stride % n);
        for (int side = 0; side < 2; side++) {
            int to = c + (side ? 1 : -1);
            if (t->periods[d])
                to = (to + n) % n;
            nb[2 * d + side] = to < 0 || to >= n ? MPI_PROC_NULL
                                                 : (int)(r + (to - c) * stride);
        }
        stride *= n;
    }
}

void tern_topo_neighbors(const struct tern_topo *t, int r, int *nin, int *in, int *nout,
                         int *out)
{
    switch (t->kind) {
    case MPI_CART:
        *nin = *nout = 2 * t->ndims;
        cart_neighbors(t, r, in);
        cart_neighbors(t, r, out);
        break;
    case MPI_GRAPH: {
        int first = r ? t->index[r - 1] : 0;
        *nin = *nout = t->index[r] - first;
        fill(in, t->edges + first, *nin);
        fill(out, t->edges + first, *nout);
        break;
    }
    default:
        *nin = t->indegree;
        *nout = t->outdegree;
        fill(in, t->sources, *nin);
        fill(out, t->dests, *nout);
    }
}
