/*
 * Request allocation from a free list, and status filling.
 *
 * MPI_Status has five internal ints in the standard ABI; Tern keeps the
 * received byte count in the first two (as one 64-bit value) and the
 * cancelled flag in the third.
 */
#include <stdlib.h>
#include <string.h>

#include "libmpi/core/comm.h"
#include "libmpi/core/datatype.h"
#include "libmpi/core/object.h"
#include "libmpi/core/request.h"

static struct tern_request *free_list;

struct tern_request *tern_request_alloc(int kind)
{
    struct tern_request *r = free_list;
    int fresh = !r;
    if (r)
        free_list = r->next;
    else if (!(r = malloc(sizeof(*r))))
        return NULL;
    memset(r, 0, sizeof(*r));
    /* Known for good: a request's memory stays on the free list. */
    if (fresh && tern_obj_add(r)) {
        free(r);
        return NULL;
    }
    r->magic = TERN_MAGIC_REQUEST;
    r->kind = (uint8_t)kind;
    return r;
}

void tern_request_hold_comm(struct tern_request *r, struct tern_comm *comm)
{
    if (r->holds_comm)
        tern_comm_release(r->comm);
    r->comm = comm;
    r->holds_comm = 1;
    tern_comm_retain(comm);
}

void tern_request_free(struct tern_request *r)
{
    if (r->holds_comm)
        tern_comm_release(r->comm);
    if (r->dtype)
        tern_dtype_release(r->dtype);
    if (r->owned_free)
        r->owned_free(r->owned);
    else
        free(r->owned);
    r->magic = TERN_MAGIC_DEAD;
    r->next = free_list;
    free_list = r;
}

struct tern_request *tern_request_get(MPI_Request h)
{
    if (tern_handle_is_predefined(h) || !tern_obj_known(h))
        return NULL;
    struct tern_request *r = (struct tern_request *)h;
    return r->magic == TERN_MAGIC_REQUEST ? r : NULL;
}

void tern_status_set(MPI_Status *st, int source, int tag, size_t bytes,
                     int cancelled)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = source;
    st->MPI_TAG = tag;
    uint64_t b = bytes;
    memcpy(&st->MPI_internal[0], &b, sizeof(b));
    st->MPI_internal[2] = cancelled;
}

size_t tern_status_bytes(const MPI_Status *st)
{
    uint64_t b;
    memcpy(&b, &st->MPI_internal[0], sizeof(b));
    return (size_t)b;
}

int tern_status_cancelled(const MPI_Status *st)
{
    return st->MPI_internal[2];
}

void tern_request_status(const struct tern_request *r, MPI_Status *st)
{
    switch (r->kind) {
    case TERN_REQ_RECV:
        tern_status_set(st, r->st_source, r->st_tag, r->st_bytes, r->cancelled);
        break;
    case TERN_REQ_NULLPROC:
        tern_status_set(st, MPI_PROC_NULL, MPI_ANY_TAG, 0, 0);
        break;
    default:
        /* The standard leaves a send's status undefined but for
         * MPI_Test_cancelled; give it harmless values. */
        tern_status_set(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, r->cancelled);
        break;
    }
}
