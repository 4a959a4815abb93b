/*
 * Cartesian topologies: MPI_Cart_create, MPI_Cart_sub, MPI_Cart_map and
 * the queries (MPI_Cartdim_get, MPI_Cart_get, MPI_Cart_rank,
 * MPI_Cart_coords, MPI_Cart_shift). The grid is described in
 * libmpi/core/topo.h; ranks are never reordered, so process i of the grid
 * is rank i of the old communicator.
 *
 * The queries copy at most maxdims entries, as Open MPI and MPICH do.
 */
#include <stdlib.h>

#include "libmpi/api/api.h"
#include "libmpi/core/comm.h"
#include "libmpi/core/topo.h"
#include "tern/err.h"

/* A grid of ndims dimensions dims[] on at most `size` processes: each
 * dimension positive, their product (*n) at most size. */
static int check_grid(int ndims, const int dims[], const int periods[], int size, int *n)
{
    if (ndims < 0) {
        tern_api_detail("invalid ndims %d: it must be 0 or more", ndims);
        return TERN_EDIMS;
    }
    int rc = ndims > 0 ? tern_check_ptr(dims, "dims") : 0;
    if (!rc && ndims > 0)
        rc = tern_check_ptr(periods, "periods");
    long prod = 1;
    for (int i = 0; !rc && i < ndims; i++) {
        if (dims[i] <= 0) {
            tern_api_detail("invalid dims[%d] = %d: every dimension must be positive",
                            i, dims[i]);
            return TERN_EDIMS;
        }
        if ((prod *= dims[i]) > size) {
            tern_api_detail("the grid needs at least %ld processes (dims[0] to dims[%d]) "
                            "and the communicator has %d", prod, i, size);
            return TERN_EDIMS;
        }
    }
    *n = (int)prod;
    return rc;
}

/* What must be alike on every rank: the number of dimensions, the
 * dimensions, whether each is periodic (or, for MPI_Cart_sub, kept). */
static uint64_t flags_fingerprint(uint64_t h, const int *flags, int n)
{
    for (int i = 0; i < n; i++) {
        int f = flags[i] != 0;
        h = tern_topo_fingerprint(h, &f, 1);
    }
    return h;
}

#pragma weak MPI_Cart_create = PMPI_Cart_create
int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    (void)reorder;
    struct tern_comm *c = NULL, *nc = NULL;
    struct tern_topo *t = NULL;
    int n = 0;
    int rc = tern_check_comm_ctor(comm_old, &c, comm_cart);
    if (!rc) {
        int bad = check_grid(ndims, dims, periods, c->size, &n);
        uint64_t fp = bad ? 0 : flags_fingerprint(tern_topo_fingerprint(0, dims, ndims),
                                                  periods, ndims);
        rc = tern_api_topo_agree(c, bad, fp);
    }
    if (!rc)
        rc = tern_topo_cart(ndims, dims, periods, &t);
    if (!rc)
        rc = tern_topo_split(c, c->rank < n ? 0 : MPI_UNDEFINED, t, &nc);
    if (rc)
        return tern_api_error(c, "MPI_Cart_create", rc);
    *comm_cart = nc ? nc->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}

/* MPI_Cart_sub: the processes that share their coordinates in the dropped
 * dimensions form one communicator, in the old order (which is row-major
 * in the kept dimensions too). */
#pragma weak MPI_Cart_sub = PMPI_Cart_sub
int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    struct tern_comm *c = NULL, *nc = NULL;
    int rc = tern_api_topo_check(comm, MPI_CART, &c);
    if (!rc) {
        int nd = c->topo->ndims, bad = nd > 0 ? tern_check_ptr(remain_dims, "remain_dims") : 0;
        if (!bad)
            bad = tern_check_ptr(newcomm, "newcomm");
        rc = tern_api_topo_agree(c, bad, bad ? 0 : flags_fingerprint(0, remain_dims, nd));
    }
    const struct tern_topo *ct = rc ? NULL : c->topo;
    /* coords, then the kept dims, then their periods. */
    int *v = rc ? NULL : malloc(3 * (size_t)ct->ndims * sizeof(int) + 1);
    if (!rc && !v)
        rc = TERN_ENOMEM;
    struct tern_topo *t = NULL;
    int color = 0;
    if (!rc) {
        int *coords = v, *dims = v + ct->ndims, *periods = dims + ct->ndims, k = 0;
        tern_topo_cart_coords(ct, c->rank, coords);
        for (int i = 0; i < ct->ndims; i++) {
            if (remain_dims[i]) {
                dims[k] = ct->dims[i];
                periods[k++] = ct->periods[i];
            } else {
                color = color * ct->dims[i] + coords[i];
            }
        }
        rc = tern_topo_cart(k, dims, periods, &t);
    }
    free(v);
    if (!rc)
        rc = tern_topo_split(c, color, t, &nc);
    if (rc)
        return tern_api_error(c, "MPI_Cart_sub", rc);
    *newcomm = nc->handle;
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_map = PMPI_Cart_map
int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                  int *newrank)
{
    struct tern_comm *c = NULL;
    int n = 0;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, &c);
    if (!rc)
        rc = check_grid(ndims, dims, periods, c->size, &n);
    if (!rc)
        rc = tern_check_ptr(newrank, "newrank");
    if (rc)
        return tern_api_error(c, "MPI_Cart_map", rc);
    *newrank = c->rank < n ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

#pragma weak MPI_Cartdim_get = PMPI_Cartdim_get
int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    struct tern_comm *c = NULL;
    int rc = tern_api_topo_check(comm, MPI_CART, &c);
    if (!rc)
        rc = tern_check_ptr(ndims, "ndims");
    if (rc)
        return tern_api_error(c, "MPI_Cartdim_get", rc);
    *ndims = c->topo->ndims;
    return MPI_SUCCESS;
}

/* maxdims >= 0; the number of entries to copy, at most the topology's. */
static int check_maxdims(const struct tern_topo *t, int maxdims, int *k)
{
    if (maxdims < 0) {
        tern_api_detail("invalid maxdims %d", maxdims);
        return TERN_EARG;
    }
    *k = maxdims < t->ndims ? maxdims : t->ndims;
    return 0;
}

#pragma weak MPI_Cart_get = PMPI_Cart_get
int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    struct tern_comm *c = NULL;
    int k = 0;
    int rc = tern_api_topo_check(comm, MPI_CART, &c);
    if (!rc)
        rc = check_maxdims(c->topo, maxdims, &k);
    if (!rc && k > 0)
        rc = tern_check_ptr(dims, "dims");
    if (!rc && k > 0)
        rc = tern_check_ptr(periods, "periods");
    if (!rc && k > 0)
        rc = tern_check_ptr(coords, "coords");
    int *all = rc ? NULL : malloc((size_t)c->topo->ndims * sizeof(int) + 1);
    if (!rc && !all)
        rc = TERN_ENOMEM;
    if (rc)
        return tern_api_error(c, "MPI_Cart_get", rc);
    tern_topo_cart_coords(c->topo, c->rank, all);
    for (int i = 0; i < k; i++) {
        dims[i] = c->topo->dims[i];
        periods[i] = c->topo->periods[i];
        coords[i] = all[i];
    }
    free(all);
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_rank = PMPI_Cart_rank
int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    struct tern_comm *c = NULL;
    int rc = tern_api_topo_check(comm, MPI_CART, &c);
    if (!rc && c->topo->ndims > 0)
        rc = tern_check_ptr(coords, "coords");
    if (!rc)
        rc = tern_check_ptr(rank, "rank");
    const struct tern_topo *t = rc ? NULL : c->topo;
    for (int i = 0; !rc && i < t->ndims; i++)
        if (!t->periods[i] && (coords[i] < 0 || coords[i] >= t->dims[i])) {
            tern_api_detail("invalid coords[%d] = %d: dimension %d is not periodic and "
                            "has coordinates 0 to %d", i, coords[i], i, t->dims[i] - 1);
            rc = TERN_EARG;
        }
    if (rc)
        return tern_api_error(c, "MPI_Cart_rank", rc);
    *rank = tern_topo_cart_rank(t, coords);
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_coords = PMPI_Cart_coords
int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    struct tern_comm *c = NULL;
    int k = 0;
    int rc = tern_api_topo_check(comm, MPI_CART, &c);
    if (!rc && (rank < 0 || rank >= c->size)) {
        tern_api_detail("invalid rank %d: %s has ranks 0 to %d", rank, tern_comm_label(c),
                        c->size - 1);
        rc = TERN_ERANK;
    }
    if (!rc)
        rc = check_maxdims(c->topo, maxdims, &k);
    if (!rc && k > 0)
        rc = tern_check_ptr(coords, "coords");
    int *all = rc ? NULL : malloc((size_t)c->topo->ndims * sizeof(int) + 1);
    if (!rc && !all)
        rc = TERN_ENOMEM;
    if (rc)
        return tern_api_error(c, "MPI_Cart_coords", rc);
    tern_topo_cart_coords(c->topo, rank, all);
    for (int i = 0; i < k; i++)
        coords[i] = all[i];
    free(all);
    return MPI_SUCCESS;
}

/* The rank disp steps from this one along `direction`: its coordinates
 * in coords (this rank's, changed and restored here). */
static int step(const struct tern_topo *t, int *coords, int direction, long disp)
{
    int mine = coords[direction];
    long to = mine + disp;
    /* Any step past a whole period is the same as its remainder. */
    if (t->periods[direction])
        to %= t->dims[direction];
    else if (to < 0 || to >= t->dims[direction])
        return MPI_PROC_NULL;
    coords[direction] = (int)to;
    int r = tern_topo_cart_rank(t, coords);
    coords[direction] = mine;
    return r;
}

#pragma weak MPI_Cart_shift = PMPI_Cart_shift
int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    struct tern_comm *c = NULL;
    int rc = tern_api_topo_check(comm, MPI_CART, &c);
    if (!rc && (direction < 0 || direction >= c->topo->ndims)) {
        tern_api_detail("invalid direction %d: the topology has dimensions 0 to %d",
                        direction, c->topo->ndims - 1);
        rc = TERN_EARG;
    }
    if (!rc)
        rc = tern_check_ptr(rank_source, "rank_source");
    if (!rc)
        rc = tern_check_ptr(rank_dest, "rank_dest");
    int *coords = rc ? NULL : malloc((size_t)c->topo->ndims * sizeof(int));
    if (!rc && !coords)
        rc = TERN_ENOMEM;
    if (rc)
        return tern_api_error(c, "MPI_Cart_shift", rc);
    tern_topo_cart_coords(c->topo, c->rank, coords);
    *rank_dest = step(c->topo, coords, direction, disp);
    *rank_source = step(c->topo, coords, direction, -(long)disp);
    free(coords);
    return MPI_SUCCESS;
}
