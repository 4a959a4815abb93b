/*
 * Buffered sends. The message is copied at once, so the call returns
 * without waiting for the receiver; the copy is sent as a standard send.
 * Space is accounted against the buffer the user attached (each message
 * takes its size plus MPI_BSEND_OVERHEAD), so a program that overflows its
 * buffer gets MPI_ERR_BUFFER here as it would anywhere. The copies
 * themselves live in Tern's own memory.
 */
#include <stdlib.h>
#include <string.h>

#include "libmpi/api/api.h"
#include "libmpi/p2p/p2p.h"
#include "tern/err.h"

struct bsend {
    struct bsend *next;
    struct tern_request *req;
    size_t charge;
    char data[];
};

static void *attached;         /* NULL: no buffer attached. */
static size_t attached_size;
static int automatic;          /* MPI_BUFFER_AUTOMATIC: no limit. */
static size_t used;
static struct bsend *in_flight;

/* Frees the copies whose sends completed and returns their space. */
static void reap(void)
{
    struct bsend **pp = &in_flight;
    while (*pp) {
        struct bsend *b = *pp;
        if (!b->req->done) {
            pp = &b->next;
            continue;
        }
        *pp = b->next;
        used -= b->charge;
        tern_request_free(b->req);
        free(b);
    }
}

static int bsend(const char *fn, const void *buf, MPI_Count count, MPI_Datatype type,
                 int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    struct tern_comm *c = NULL;
    const struct tern_dtype *dt;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_xfer(buf, count, type, dest, tag, comm, 1, &c, &dt);
    if (rc)
        return tern_api_error(c, fn, rc);
    struct tern_request *done = NULL;
    rc = tern_api_bsend_start(fn, buf, (size_t)count, dt, dest, tag, c,
                              request ? &done : NULL);
    if (rc == MPI_SUCCESS && request)
        *request = (MPI_Request)done;
    return rc;
}

int tern_api_bsend_start(const char *fn, const void *buf, size_t count,
                         const struct tern_dtype *dt, int dest, int tag, struct tern_comm *c,
                         struct tern_request **request)
{
    int rc;
    reap();
    size_t packed = (size_t)count * dt->size;
    size_t charge = packed + MPI_BSEND_OVERHEAD;
    if (!automatic && (!attached || used + charge > attached_size)) {
        tern_api_detail("buffered send of %zu bytes does not fit: the attached buffer has "
                        "%zu of %zu bytes free (each message needs its size + MPI_BSEND_OVERHEAD = %d); "
                        "attach a larger buffer with MPI_Buffer_attach",
                        packed, attached ? attached_size - used : 0, attached_size,
                        MPI_BSEND_OVERHEAD);
        return tern_api_error(c, fn, TERN_EBUFFER);
    }
    struct bsend *b = malloc(sizeof(*b) + packed);
    if (!b)
        return tern_api_error(c, fn, TERN_ENOMEM);
    tern_dtype_pack(dt, buf, count, b->data);
    rc = tern_p2p_isend(b->data, packed, tern_dtype_get(MPI_BYTE), dest, tag, c,
                        c->ctx, TERN_SEND_STANDARD, &b->req);
    if (rc) {
        free(b);
        return tern_api_error(c, fn, rc);
    }
    b->charge = charge;
    used += charge;
    b->next = in_flight;
    in_flight = b;
    if (request) {
        /* The user's request is already complete: the data was copied. */
        struct tern_request *done = tern_request_alloc(TERN_REQ_SEND);
        if (!done)
            return tern_api_error(c, fn, TERN_ENOMEM);
        done->done = 1;
        done->comm = c;
        *request = done;
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Bsend = PMPI_Bsend
int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return bsend("MPI_Bsend", buf, count, datatype, dest, tag, comm, NULL);
}

#pragma weak MPI_Bsend_c = PMPI_Bsend_c
int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return bsend("MPI_Bsend_c", buf, count, datatype, dest, tag, comm, NULL);
}

/* The nonblocking form checks its request pointer first: bsend() takes
 * NULL for the blocking one. */
static int ibsend(const char *fn, const void *buf, MPI_Count count, MPI_Datatype datatype,
                  int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    if (!request)
        return tern_api_error(NULL, fn, tern_check_ptr(request, "request"));
    return bsend(fn, buf, count, datatype, dest, tag, comm, request);
}

#pragma weak MPI_Ibsend = PMPI_Ibsend
int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return ibsend("MPI_Ibsend", buf, count, datatype, dest, tag, comm, request);
}

#pragma weak MPI_Ibsend_c = PMPI_Ibsend_c
int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return ibsend("MPI_Ibsend_c", buf, count, datatype, dest, tag, comm, request);
}

static int attach(const char *fn, void *buffer, MPI_Count size)
{
    int rc = tern_check_init();
    if (!rc && buffer != MPI_BUFFER_AUTOMATIC)
        rc = tern_check_count(size);
    if (!rc && buffer != MPI_BUFFER_AUTOMATIC && size > 0)
        rc = tern_check_buf(buffer, size);
    if (!rc && (attached || automatic)) {
        tern_api_detail("a buffer is already attached; detach it first");
        rc = TERN_EBUFFER;
    }
    if (rc)
        return tern_api_error(NULL, fn, rc);
    automatic = buffer == MPI_BUFFER_AUTOMATIC;
    attached = automatic ? NULL : buffer;
    attached_size = automatic ? 0 : (size_t)size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach
int PMPI_Buffer_attach(void *buffer, int size)
{
    return attach("MPI_Buffer_attach", buffer, size);
}

#pragma weak MPI_Buffer_attach_c = PMPI_Buffer_attach_c
int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    return attach("MPI_Buffer_attach_c", buffer, size);
}

static int all_sent(void *arg)
{
    (void)arg;
    reap();
    return in_flight == NULL;
}

/* Waits until every buffered message left, then hands the buffer back. */
static int detach(const char *fn, void *buffer_addr, MPI_Count *size)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr(buffer_addr, "buffer_addr");
    if (!rc && !attached && !automatic) {
        tern_api_detail("no buffer is attached");
        rc = TERN_EBUFFER;
    }
    if (rc)
        return tern_api_error(NULL, fn, rc);
    tern_p2p_wait_until(all_sent, NULL);
    *(void **)buffer_addr = automatic ? MPI_BUFFER_AUTOMATIC : attached;
    *size = (MPI_Count)attached_size;
    attached = NULL;
    attached_size = 0;
    automatic = 0;
    return MPI_SUCCESS;
}

#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach
int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    MPI_Count s = 0;
    int rc = tern_check_ptr(size, "size");
    if (rc)
        return tern_api_error(NULL, "MPI_Buffer_detach", rc);
    rc = detach("MPI_Buffer_detach", buffer_addr, &s);
    if (!rc)
        *size = (int)s;
    return rc;
}

#pragma weak MPI_Buffer_detach_c = PMPI_Buffer_detach_c
int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    int rc = tern_check_ptr(size, "size");
    if (rc)
        return tern_api_error(NULL, "MPI_Buffer_detach_c", rc);
    return detach("MPI_Buffer_detach_c", buffer_addr, size);
}
