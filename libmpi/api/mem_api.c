/*
 * MPI_Alloc_mem and MPI_Free_mem: memory for the user's buffers.
 *
 * Tern needs no special memory for fast transfers (shared memory copies
 * through its own segment, CMA reads any address, libfabric registers
 * buffers per message), so the memory comes from the C allocator, aligned
 * to a cache line. A header in front of each block carries a magic number
 * and is entered in the set of known objects (object.h), so that
 * MPI_Free_mem recognises a pointer that MPI_Alloc_mem did not return, or
 * that was freed already, without reading memory that may not be there.
 * Info hints are accepted and ignored, as the standard allows.
 *
 * Neither call is tied to a communicator: errors go to MPI_COMM_SELF's
 * handler (MPI 4.0 and later).
 */
#include <stdint.h>
#include <stdlib.h>

#include "libmpi/api/api.h"
#include "libmpi/core/object.h"
#include "tern/err.h"

/* The header: one cache line, so the user's block stays aligned. */
#define ALIGN 64

struct mem_hdr {
    uint32_t magic;          /* TERN_MAGIC_MEM, TERN_MAGIC_DEAD once freed. */
    size_t size;
};

_Static_assert(sizeof(struct mem_hdr) <= ALIGN, "the header fits its cache line");

#pragma weak MPI_Alloc_mem = PMPI_Alloc_mem
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    int rc = tern_check_init();
    if (!rc && size < 0) {
        tern_api_detail("invalid size %lld: it must be 0 or more bytes", (long long)size);
        rc = TERN_EARG;
    }
    if (!rc)
        rc = tern_check_info(info);
    if (!rc)
        rc = tern_check_ptr(baseptr, "baseptr");
    void *raw = NULL;
    if (!rc && ((size_t)size > SIZE_MAX - ALIGN
                || posix_memalign(&raw, ALIGN, ALIGN + (size_t)size))) {
        tern_api_detail("could not allocate %lld bytes", (long long)size);
        rc = TERN_ENOMEM;
    }
    if (!rc && (rc = tern_obj_add(raw)))
        free(raw);
    if (rc)
        return tern_api_error(NULL, "MPI_Alloc_mem", rc);
    struct mem_hdr *h = raw;
    h->magic = TERN_MAGIC_MEM;
    h->size = (size_t)size;
    /* baseptr is a void * that points to the caller's pointer. */
    *(void **)baseptr = (char *)raw + ALIGN;
    return MPI_SUCCESS;
}

#pragma weak MPI_Free_mem = PMPI_Free_mem
int PMPI_Free_mem(void *base)
{
    int rc = tern_check_init();
    /* Like free(NULL), and as MPICH and Open MPI accept it. */
    if (rc || !base)
        return rc ? tern_api_error(NULL, "MPI_Free_mem", rc) : MPI_SUCCESS;
    struct mem_hdr *h = (uintptr_t)base > ALIGN ? (struct mem_hdr *)((char *)base - ALIGN) : NULL;
    if (!h || !tern_obj_known(h) || h->magic != TERN_MAGIC_MEM) {
        tern_api_detail("base %p is not memory that MPI_Alloc_mem returned (or it was "
                        "freed already)", base);
        return tern_api_error(NULL, "MPI_Free_mem", TERN_EARG);
    }
    tern_obj_remove(h);
    free(h);
    return MPI_SUCCESS;
}
