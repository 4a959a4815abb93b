/*
 * Process topologies: MPI_Dims_create, which programs also use on its own
 * to lay out a grid of ranks, MPI_Topo_test, and what the constructors
 * and queries share. Those are in cart_api.c, graph_api.c and
 * dist_graph_api.c; the neighbourhood collectives in coll_neighbor_api.c.
 */
#include <limits.h>

#include "collectives/coll.h"
#include "libmpi/api/api.h"
#include "libmpi/core/comm.h"
#include "libmpi/core/datatype.h"
#include "libmpi/core/op.h"
#include "libmpi/core/topo.h"
#include "tern/err.h"

/* The divisors of n, ascending (at most 1600 for an int); their count. */
static int divisors(int n, int *out)
{
    int k = 0, big = 0, high[800];
    for (int d = 1; (long)d * d <= n; d++)
        if (n % d == 0) {
            out[k++] = d;
            if (d != n / d)
                high[big++] = n / d;
        }
    while (big > 0)
        out[k++] = high[--big];
    return k;
}

/* Whether d^k >= m, without overflow. */
static int covers(long d, int k, int m)
{
    long p = 1;
    for (int i = 0; i < k && p < m; i++)
        p *= d;
    return p >= m;
}

/* Fills dims[0 .. k) with factors of m, none above cap, in non-increasing
 * order, the largest as small as it can be, then the next, and so on:
 * dimensions as close to each other as the divisors allow, as the standard
 * asks. div[0 .. nd) are the divisors of the whole number, which include
 * every divisor of m. 0 when no such factors exist. */
static int fill(int m, int k, int cap, const int *div, int nd, int *dims)
{
    if (k == 1) {
        dims[0] = m;
        return m <= cap;
    }
    for (int i = 0; i < nd && div[i] <= cap; i++) {
        int d = div[i];
        if (m % d == 0 && covers(d, k, m) && fill(m / d, k - 1, d, div, nd, dims + 1)) {
            dims[0] = d;
            return 1;
        }
    }
    return 0;
}

/* Checks the arguments; *rest is what the free dimensions must hold. */
static int dims_args(int nnodes, int ndims, const int dims[], int *rest, int *nfree)
{
    if (nnodes < 1) {
        tern_api_detail("invalid nnodes %d: it must be positive", nnodes);
        return TERN_EDIMS;
    }
    if (ndims < 0) {
        tern_api_detail("invalid ndims %d", ndims);
        return TERN_EDIMS;
    }
    if (ndims > 0 && !dims)
        return tern_check_ptr(dims, "dims");
    long fixed = 1;
    *nfree = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0) {
            tern_api_detail("invalid dims[%d] = %d: it must be 0 (to be chosen) or positive",
                            i, dims[i]);
            return TERN_EDIMS;
        }
        if (dims[i] == 0)
            (*nfree)++;
        else if ((fixed *= dims[i]) > INT_MAX)
            fixed = (long)INT_MAX + 1;
    }
    if (nnodes % fixed != 0 || (*nfree == 0 && fixed != nnodes)) {
        tern_api_detail("nnodes %d is not a multiple of %ld, the product of the fixed "
                        "dimensions%s", nnodes, fixed,
                        *nfree ? "" : ", and no dimension is left to choose");
        return TERN_EDIMS;
    }
    *rest = nnodes / (int)fixed;
    return 0;
}

#pragma weak MPI_Dims_create = PMPI_Dims_create
int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    int rest = 1, nfree = 0;
    int rc = tern_check_init();
    if (!rc)
        rc = dims_args(nnodes, ndims, dims, &rest, &nfree);
    if (rc)
        return tern_api_error(NULL, "MPI_Dims_create", rc);
    /* An int has at most 31 prime factors, so at most 31 free dimensions
     * get more than 1. */
    enum { MOST = 31 };
    int chosen[MOST], div[1600], k = nfree < MOST ? nfree : MOST;
    if (k > 0)
        fill(rest, k, rest, div, divisors(rest, div), chosen);
    for (int i = 0, j = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = j < k ? chosen[j++] : 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_Topo_test = PMPI_Topo_test
int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    struct tern_comm *c = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, &c);
    if (!rc)
        rc = tern_check_ptr(status, "status");
    if (rc)
        return tern_api_error(c, "MPI_Topo_test", rc);
    *status = c->topo ? c->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int tern_api_topo_agree(struct tern_comm *c, int rc, uint64_t fingerprint)
{
    /* Failed anywhere; the largest fingerprint; the complement of the
     * smallest (the largest complement). */
    uint64_t v[3] = { rc != 0, fingerprint, ~fingerprint };
    int rc2 = tern_coll_allreduce(MPI_IN_PLACE, v, 3, tern_dtype_get(MPI_UINT64_T),
                                  tern_op_get(MPI_MAX), c);
    if (rc || rc2)
        return rc ? rc : rc2;
    if (v[0]) {
        tern_api_detail("another rank of %s passed invalid arguments to the same call",
                            tern_comm_label(c));
        return TERN_EARG;
    }
    if (v[1] != ~v[2]) {
        tern_api_detail("the ranks of %s passed different arguments where the call "
                            "needs the same on every rank", tern_comm_label(c));
        return TERN_EARG;
    }
    return 0;
}

int tern_api_topo_check(MPI_Comm comm, int kind, struct tern_comm **c)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, c);
    if (!rc && (!(*c)->topo || (*c)->topo->kind != kind)) {
        tern_api_detail("%s has no %s topology (one made by %s)", tern_comm_label(*c),
                        kind == MPI_CART ? "Cartesian" : kind == MPI_GRAPH ? "graph"
                                                                           : "distributed graph",
                        kind == MPI_CART ? "MPI_Cart_create or MPI_Cart_sub"
                        : kind == MPI_GRAPH ? "MPI_Graph_create" : "MPI_Dist_graph_create*");
        rc = TERN_ETOPOLOGY;
    }
    return rc;
}

int tern_api_topo_node(int r, int n, const char *what, int i)
{
    if (r >= 0 && r < n)
        return 0;
    tern_api_detail("invalid %s[%d] = %d: the nodes are 0 to %d", what, i, r, n - 1);
    return TERN_ERANK;
}

int tern_api_topo_copy_out(int *to, const int *from, int n, int max, const char *maxname,
                           const char *what)
{
    if (max < 0) {
        tern_api_detail("invalid %s %d", maxname, max);
        return TERN_EARG;
    }
    int k = n < max ? n : max;
    int rc = k > 0 ? tern_check_ptr(to, what) : 0;
    for (int i = 0; !rc && i < k; i++)
        to[i] = from[i];
    return rc;
}
