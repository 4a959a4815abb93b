/*
 * MPI_Alloc_mem and MPI_Free_mem: memory for the user's buffers.
 *
 * Tern needs no special memory for fast transfers (shared memory copies
 * through its own segment, CMA reads any address, libfabric registers
 * buffers per message), so the memory comes from the C allocator, aligned
 * to a cache line, or to the info key mpi_minimum_memory_alignment when
 * that asks for more (a power of two; other values are ignored, as hints
 * may be). A header in the cache line before each block carries a magic
 * number and is entered in the set of known objects (object.h), so that
 * MPI_Free_mem recognises a pointer that MPI_Alloc_mem did not return, or
 * that was freed already, without reading memory that may not be there.
 *
 * Neither call is tied to a communicator: errors go to MPI_COMM_SELF's
 * handler (MPI 4.0 and later).
 */
#include <stdint.h>
#include <stdlib.h>

#include "libmpi/api/api.h"
#include "libmpi/core/info.h"
#include "libmpi/core/object.h"
#include "tern/err.h"

/* The header's line, and the least alignment of a block. */
#define LINE 64
/* The largest alignment the info key may ask for. */
#define MAX_ALIGN ((size_t)1 << 30)

struct mem_hdr {
    uint32_t magic;          /* TERN_MAGIC_MEM */
    void *raw;               /* What posix_memalign returned. */
};

_Static_assert(sizeof(struct mem_hdr) <= LINE, "the header fits its cache line");

/* The alignment the caller asked for with mpi_minimum_memory_alignment,
 * if it is a power of two above LINE (and at most MAX_ALIGN), else LINE. */
static size_t alignment(MPI_Info info)
{
    const struct tern_info *i = info == MPI_INFO_NULL ? NULL : tern_info_get(info);
    const char *v = i ? tern_info_value(i, "mpi_minimum_memory_alignment") : NULL;
    char *end;
    unsigned long long a = v ? strtoull(v, &end, 10) : 0;
    if (!v || *end || a <= LINE || a > MAX_ALIGN || (a & (a - 1)))
        return LINE;
    return (size_t)a;
}

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
    size_t align = rc ? LINE : alignment(info);
    void *raw = NULL;
    if (!rc && ((size_t)size > SIZE_MAX - align
                || posix_memalign(&raw, align, align + (size_t)size))) {
        tern_api_detail("could not allocate %lld bytes", (long long)size);
        rc = TERN_ENOMEM;
    }
    if (rc)
        return tern_api_error(NULL, "MPI_Alloc_mem", rc);
    char *base = (char *)raw + align;
    struct mem_hdr *h = (struct mem_hdr *)(base - LINE);
    if ((rc = tern_obj_add(h))) {
        free(raw);
        return tern_api_error(NULL, "MPI_Alloc_mem", rc);
    }
    h->magic = TERN_MAGIC_MEM;
    h->raw = raw;
    /* baseptr is a void * that points to the caller's pointer. */
    *(void **)baseptr = base;
    return MPI_SUCCESS;
}

#pragma weak MPI_Free_mem = PMPI_Free_mem
int PMPI_Free_mem(void *base)
{
    int rc = tern_check_init();
    /* Like free(NULL), and as MPICH and Open MPI accept it. */
    if (rc || !base)
        return rc ? tern_api_error(NULL, "MPI_Free_mem", rc) : MPI_SUCCESS;
    /* Integer arithmetic: base may point anywhere. */
    uintptr_t at = (uintptr_t)base;
    struct mem_hdr *h = at > LINE ? (struct mem_hdr *)(at - LINE) : NULL;
    if (!h || !tern_obj_known(h) || h->magic != TERN_MAGIC_MEM) {
        tern_api_detail("base %p is not memory that MPI_Alloc_mem returned (or it was "
                        "freed already)", base);
        return tern_api_error(NULL, "MPI_Free_mem", TERN_EARG);
    }
    tern_obj_remove(h);
    free(h->raw);
    return MPI_SUCCESS;
}
