/*
 * Argument checks shared by the API functions. Each returns 0 or a TERN_E*
 * code and, on error, records a description naming the argument and value.
 */
#include <stdint.h>

#include "libmpi/api/api.h"
#include "libmpi/core/runtime.h"
#include "tern/err.h"

#define TERN_TAG_UB 0x7fffffff

int tern_check_init(void)
{
    if (tern_rt_active())
        return 0;
    tern_api_detail(tern_rt.finalized ? "called after MPI_Finalize"
                                      : "called before MPI_Init");
    return TERN_ENOTINIT;
}

int tern_check_comm(MPI_Comm h, struct tern_comm **out)
{
    *out = tern_comm_get(h);
    if (*out)
        return 0;
    if (h == MPI_COMM_NULL)
        tern_api_detail("invalid communicator MPI_COMM_NULL");
    else
        tern_api_detail("invalid communicator %p (not a communicator, or freed)", (void *)h);
    return TERN_ECOMM;
}

int tern_check_count(MPI_Count count)
{
    if (count >= 0)
        return 0;
    tern_api_detail("invalid count %lld", (long long)count);
    return TERN_ECOUNT;
}

int tern_check_type(MPI_Datatype h, const struct tern_dtype **out)
{
    *out = tern_dtype_get(h);
    if (*out)
        return 0;
    if (h == MPI_DATATYPE_NULL)
        tern_api_detail("invalid datatype MPI_DATATYPE_NULL");
    else if (tern_dtype_lookup(h))
        tern_api_detail("datatype not committed (call MPI_Type_commit)");
    else
        tern_api_detail("invalid datatype %p (not a datatype, or freed)", (void *)h);
    return TERN_ETYPE;
}

int tern_check_buf(const void *buf, MPI_Count count)
{
    if (buf || count == 0)
        return 0;
    tern_api_detail("invalid buffer NULL with count %lld", (long long)count);
    return TERN_EBUFFER;
}

int tern_check_dest(const struct tern_comm *c, int rank)
{
    int n = tern_comm_peers(c);
    if (rank == MPI_PROC_NULL || (rank >= 0 && rank < n))
        return 0;
    tern_api_detail("invalid rank %d: %s has ranks 0 to %d%s", rank, tern_comm_label(c), n - 1,
                    c->remote ? " in its remote group (an intercommunicator)" : "");
    return TERN_ERANK;
}

int tern_check_intra(const struct tern_comm *c)
{
    if (!c->remote)
        return 0;
    tern_api_detail("invalid communicator: %s is an intercommunicator, and this call "
                    "takes an intracommunicator", tern_comm_label(c));
    return TERN_ECOMM;
}

int tern_check_source(const struct tern_comm *c, int rank)
{
    if (rank == MPI_ANY_SOURCE)
        return 0;
    return tern_check_dest(c, rank);
}

int tern_check_send_tag(int tag)
{
    if (tag >= 0 && tag <= TERN_TAG_UB)
        return 0;
    tern_api_detail("invalid tag %d: tags are 0 to MPI_TAG_UB (%d)", tag, TERN_TAG_UB);
    return TERN_ETAG;
}

int tern_check_recv_tag(int tag)
{
    return tag == MPI_ANY_TAG ? 0 : tern_check_send_tag(tag);
}

int tern_check_ptr(const void *p, const char *name)
{
    if (p)
        return 0;
    tern_api_detail("invalid argument: %s is NULL", name);
    return TERN_EARG;
}

int tern_check_xfer(const void *buf, MPI_Count count, MPI_Datatype type,
                    int rank, int tag, MPI_Comm comm, int is_send,
                    struct tern_comm **c, const struct tern_dtype **dt)
{
    int rc = tern_check_comm(comm, c);
    if (!rc)
        rc = tern_check_count(count);
    if (!rc)
        rc = tern_check_type(type, dt);
    if (!rc) {
        /* count * size and the span count * |extent| must fit in memory.
         * Multiplications, not divisions: a 64-bit division takes tens of
         * cycles, on every send and receive. */
        size_t size = (*dt)->size, bytes, spanned;
        MPI_Aint ext = (*dt)->extent;
        size_t span = ext < 0 ? (size_t)0 - (size_t)ext : (size_t)ext;
        if (__builtin_mul_overflow((size_t)count, size, &bytes) || bytes > PTRDIFF_MAX ||
            __builtin_mul_overflow((size_t)count, span, &spanned) || spanned > PTRDIFF_MAX) {
            tern_api_detail("invalid count %lld: %lld elements of %s (%zu bytes, extent %lld) "
                            "do not fit in memory", (long long)count, (long long)count,
                            (*dt)->name[0] ? (*dt)->name : "this derived datatype", size,
                            (long long)ext);
            rc = TERN_ECOUNT;
        }
    }
    if (!rc)
        rc = is_send ? tern_check_dest(*c, rank) : tern_check_source(*c, rank);
    if (!rc)
        rc = is_send ? tern_check_send_tag(tag) : tern_check_recv_tag(tag);
    /* A derived type may hold absolute addresses, used with MPI_BOTTOM. */
    if (!rc && rank != MPI_PROC_NULL)
        rc = tern_check_buf(buf, (*dt)->predefined ? count : 0);
    return rc;
}
