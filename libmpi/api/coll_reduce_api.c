/*
 * The reduction collectives: Reduce, Allreduce, Reduce_scatter_block,
 * Reduce_scatter, Scan, Exscan, in their blocking, nonblocking, persistent
 * and large-count forms.
 *
 * All take one datatype and one op, which must be defined for it. Every
 * rank may pass MPI_IN_PLACE as sendbuf (its input is then in recvbuf),
 * except that in Reduce only the root may; recvbuf is never MPI_IN_PLACE,
 * and in Reduce it matters only at the root. The arguments for
 * collectives/: scount is the number of elements of this rank's input
 * (count, or the sum of the blocks for the reduce-scatters), rcount that of
 * its result (recvcount for the reduce-scatters).
 */
#include <stdint.h>
#include <stdio.h>

#include "libmpi/api/coll_check.h"
#include "tern/err.h"

/* Where a rank's element counts come from, for the error messages of
 * reduce_bufs only: `name` is the count argument; Reduce_scatter_block's
 * input (`block`) is one block of it per rank, Reduce_scatter's (`summed`)
 * the sum of its recvcounts. */
struct counts_from {
    const char *name;
    int block;
    int summed;
};

/* Reports a buffer that tern_coll_buf_ok refused: the input (out == 0) or
 * the result of this rank, with where its number of elements comes from. */
static int buf_error(const struct tern_coll_args *a, const struct counts_from *f, int out)
{
    char why[96];
    if (f->summed && out)
        snprintf(why, sizeof(why), "%s[%d] = %zu", f->name, a->comm->rank, a->rcount);
    else if (f->summed)
        snprintf(why, sizeof(why), "%s adding up to %zu", f->name, a->scount);
    else if (out || !f->block)
        snprintf(why, sizeof(why), "%s %zu", f->name, a->rcount);
    else
        snprintf(why, sizeof(why), "%s %zu for each of %d ranks", f->name, a->rcount,
                 a->comm->size);
    return out ? tern_check_coll_buf(a->rbuf, "recvbuf", a->rcount, a->rdt, why)
               : tern_check_coll_buf(a->sbuf, "sendbuf", a->scount, a->sdt, why);
}

/* The input and result buffers of one rank: sendbuf holds a->scount
 * elements unless it is MPI_IN_PLACE, if it is significant here (`input`:
 * not at the root's group of a Reduce on an intercommunicator), recvbuf
 * a->rcount if it is. Good calls format no text. */
static int reduce_bufs(const struct tern_coll_args *a, int input, int significant,
                       const struct counts_from *f)
{
    int rc = 0;
    if (a->kind == TERN_COLL_REDUCE)
        rc = tern_check_in_place_root(a->sbuf, "sendbuf", a->comm, a->root);
    if (!rc && input && a->sbuf != MPI_IN_PLACE &&
        !tern_coll_buf_ok(a->sbuf, a->scount, a->sdt))
        rc = buf_error(a, f, 0);
    if (!significant || rc)
        return rc;
    rc = tern_check_not_in_place(a->rbuf, "recvbuf", a->kind == TERN_COLL_REDUCE
                                 ? "only the root's sendbuf may be MPI_IN_PLACE"
                                 : "only sendbuf may be MPI_IN_PLACE");
    if (!rc && !tern_coll_buf_ok(a->rbuf, a->rcount, a->rdt))
        rc = buf_error(a, f, 1);
    if (!rc)
        rc = tern_check_alias(a->sbuf, a->scount * a->sdt->size, a->rbuf,
                              a->rcount * a->rdt->size);
    return rc;
}

/* Reduce, Allreduce, Scan, Exscan: count elements in and out.
 * Reduce_scatter_block: size blocks of count elements in, one out. */
static int reduce_like(const char *fn, enum tern_coll_kind kind, const void *sbuf, void *rbuf,
                       MPI_Count count, MPI_Datatype type, MPI_Op op, int root,
                       MPI_Comm comm, MPI_Request *req)
{
    struct tern_api_coll x;
    tern_api_coll_init(&x, kind, sbuf, rbuf, kind == TERN_COLL_REDUCE ? root : 0);
    struct tern_coll_args *a = &x.a;
    int block = kind == TERN_COLL_REDUCE_SCATTER_BLOCK;
    const struct counts_from f = { .name = block ? "recvcount" : "count", .block = block };
    int rc = tern_api_coll_begin(comm, req, &a->comm);
    if (!rc && kind == TERN_COLL_REDUCE)
        rc = tern_check_root(a->comm, root);
    if (!rc)
        rc = tern_check_coll_count(count, f.name);
    if (!rc)
        rc = tern_check_coll_type(type, "datatype", &a->sdt);
    if (!rc)
        rc = tern_check_op(op, a->sdt, &a->op);
    int nblocks = block && !rc ? a->comm->size : 1;
    if (!rc && !tern_coll_fits((size_t)count, (size_t)nblocks)) {
        tern_api_detail("invalid %s %lld: %d blocks of it do not fit in memory", f.name,
                        (long long)count, nblocks);
        rc = TERN_ECOUNT;
    }
    if (!rc) {
        a->rdt = a->sdt;
        a->scount = (size_t)count * (size_t)nblocks;
        a->rcount = (size_t)count;
        int reduce = kind == TERN_COLL_REDUCE;
        rc = reduce_bufs(a, !reduce || tern_api_coll_sends_to_root(a->comm, root),
                         !reduce || tern_api_coll_is_root(a->comm, root), &f);
    }
    return tern_api_coll_run(fn, &x, rc, req);
}

#pragma weak MPI_Reduce = PMPI_Reduce
int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
    return reduce_like("MPI_Reduce", TERN_COLL_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Reduce_c = PMPI_Reduce_c
int PMPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
    return reduce_like("MPI_Reduce_c", TERN_COLL_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Ireduce = PMPI_Ireduce
int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    return reduce_like("MPI_Ireduce", TERN_COLL_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm, request);
}

#pragma weak MPI_Reduce_init = PMPI_Reduce_init
int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Reduce_init", comm, info);
    return rc ? rc : reduce_like("MPI_Reduce_init", TERN_COLL_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm, request);
}

#pragma weak MPI_Ireduce_c = PMPI_Ireduce_c
int PMPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    return reduce_like("MPI_Ireduce_c", TERN_COLL_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm, request);
}

#pragma weak MPI_Reduce_init_c = PMPI_Reduce_init_c
int PMPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Reduce_init_c", comm, info);
    return rc ? rc : reduce_like("MPI_Reduce_init_c", TERN_COLL_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm, request);
}

#pragma weak MPI_Allreduce = PMPI_Allreduce
int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_like("MPI_Allreduce", TERN_COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Allreduce_c = PMPI_Allreduce_c
int PMPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_like("MPI_Allreduce_c", TERN_COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Iallreduce = PMPI_Iallreduce
int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return reduce_like("MPI_Iallreduce", TERN_COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm, request);
}

#pragma weak MPI_Allreduce_init = PMPI_Allreduce_init
int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Allreduce_init", comm, info);
    return rc ? rc : reduce_like("MPI_Allreduce_init", TERN_COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm, request);
}

#pragma weak MPI_Iallreduce_c = PMPI_Iallreduce_c
int PMPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return reduce_like("MPI_Iallreduce_c", TERN_COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm, request);
}

#pragma weak MPI_Allreduce_init_c = PMPI_Allreduce_init_c
int PMPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Allreduce_init_c", comm, info);
    return rc ? rc : reduce_like("MPI_Allreduce_init_c", TERN_COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm, request);
}

#pragma weak MPI_Scan = PMPI_Scan
int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_like("MPI_Scan", TERN_COLL_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Scan_c = PMPI_Scan_c
int PMPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_like("MPI_Scan_c", TERN_COLL_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Iscan = PMPI_Iscan
int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return reduce_like("MPI_Iscan", TERN_COLL_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, request);
}

#pragma weak MPI_Scan_init = PMPI_Scan_init
int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Scan_init", comm, info);
    return rc ? rc : reduce_like("MPI_Scan_init", TERN_COLL_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, request);
}

#pragma weak MPI_Iscan_c = PMPI_Iscan_c
int PMPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return reduce_like("MPI_Iscan_c", TERN_COLL_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, request);
}

#pragma weak MPI_Scan_init_c = PMPI_Scan_init_c
int PMPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Scan_init_c", comm, info);
    return rc ? rc : reduce_like("MPI_Scan_init_c", TERN_COLL_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, request);
}

#pragma weak MPI_Exscan = PMPI_Exscan
int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_like("MPI_Exscan", TERN_COLL_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Exscan_c = PMPI_Exscan_c
int PMPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_like("MPI_Exscan_c", TERN_COLL_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Iexscan = PMPI_Iexscan
int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return reduce_like("MPI_Iexscan", TERN_COLL_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, request);
}

#pragma weak MPI_Exscan_init = PMPI_Exscan_init
int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Exscan_init", comm, info);
    return rc ? rc : reduce_like("MPI_Exscan_init", TERN_COLL_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, request);
}

#pragma weak MPI_Iexscan_c = PMPI_Iexscan_c
int PMPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return reduce_like("MPI_Iexscan_c", TERN_COLL_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, request);
}

#pragma weak MPI_Exscan_init_c = PMPI_Exscan_init_c
int PMPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Exscan_init_c", comm, info);
    return rc ? rc : reduce_like("MPI_Exscan_init_c", TERN_COLL_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, request);
}

#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_like("MPI_Reduce_scatter_block", TERN_COLL_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, recvcount, datatype, op, 0, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Reduce_scatter_block_c = PMPI_Reduce_scatter_block_c
int PMPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_like("MPI_Reduce_scatter_block_c", TERN_COLL_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, recvcount, datatype, op, 0, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Ireduce_scatter_block = PMPI_Ireduce_scatter_block
int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return reduce_like("MPI_Ireduce_scatter_block", TERN_COLL_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, recvcount, datatype, op, 0, comm, request);
}

#pragma weak MPI_Reduce_scatter_block_init = PMPI_Reduce_scatter_block_init
int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Reduce_scatter_block_init", comm, info);
    return rc ? rc : reduce_like("MPI_Reduce_scatter_block_init", TERN_COLL_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, recvcount, datatype, op, 0, comm, request);
}

#pragma weak MPI_Ireduce_scatter_block_c = PMPI_Ireduce_scatter_block_c
int PMPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return reduce_like("MPI_Ireduce_scatter_block_c", TERN_COLL_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, recvcount, datatype, op, 0, comm, request);
}

#pragma weak MPI_Reduce_scatter_block_init_c = PMPI_Reduce_scatter_block_init_c
int PMPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Reduce_scatter_block_init_c", comm, info);
    return rc ? rc : reduce_like("MPI_Reduce_scatter_block_init_c", TERN_COLL_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, recvcount, datatype, op, 0, comm, request);
}

/* Reduce_scatter: recvcounts[i] elements of the result go to rank i. */
static int reduce_scatter(const char *fn, const void *sbuf, void *rbuf,
                          struct tern_api_array rcounts, MPI_Datatype type, MPI_Op op,
                          MPI_Comm comm, MPI_Request *req)
{
    struct tern_api_coll x;
    tern_api_coll_init(&x, TERN_COLL_REDUCE_SCATTER, sbuf, rbuf, 0);
    struct tern_coll_args *a = &x.a;
    size_t total = 0;
    int rc = tern_api_coll_begin(comm, req, &a->comm);
    if (!rc)
        rc = tern_api_coll_counts(&x, rcounts, a->comm->size, "recvcounts", &a->rcounts,
                                  &total);
    if (!rc)
        rc = tern_check_coll_type(type, "datatype", &a->sdt);
    if (!rc)
        rc = tern_check_op(op, a->sdt, &a->op);
    if (!rc) {
        const struct counts_from f = { .name = "recvcounts", .summed = 1 };
        a->rdt = a->sdt;
        a->scount = total;
        a->rcount = a->rcounts[a->comm->rank];
        rc = reduce_bufs(a, 1, 1, &f);
    }
    return tern_api_coll_run(fn, &x, rc, req);
}

#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter("MPI_Reduce_scatter", sendbuf, recvbuf, TERN_API_INTS(recvcounts), datatype, op, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Reduce_scatter_c = PMPI_Reduce_scatter_c
int PMPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter("MPI_Reduce_scatter_c", sendbuf, recvbuf, TERN_API_COUNTS(recvcounts), datatype, op, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Ireduce_scatter = PMPI_Ireduce_scatter
int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return reduce_scatter("MPI_Ireduce_scatter", sendbuf, recvbuf, TERN_API_INTS(recvcounts), datatype, op, comm, request);
}

#pragma weak MPI_Reduce_scatter_init = PMPI_Reduce_scatter_init
int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Reduce_scatter_init", comm, info);
    return rc ? rc : reduce_scatter("MPI_Reduce_scatter_init", sendbuf, recvbuf, TERN_API_INTS(recvcounts), datatype, op, comm, request);
}

#pragma weak MPI_Ireduce_scatter_c = PMPI_Ireduce_scatter_c
int PMPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return reduce_scatter("MPI_Ireduce_scatter_c", sendbuf, recvbuf, TERN_API_COUNTS(recvcounts), datatype, op, comm, request);
}

#pragma weak MPI_Reduce_scatter_init_c = PMPI_Reduce_scatter_init_c
int PMPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Reduce_scatter_init_c", comm, info);
    return rc ? rc : reduce_scatter("MPI_Reduce_scatter_init_c", sendbuf, recvbuf, TERN_API_COUNTS(recvcounts), datatype, op, comm, request);
}
