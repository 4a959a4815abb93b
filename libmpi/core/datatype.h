/*
 * Datatypes. This issue has the predefined types only; each is described by
 * its size, extent and at most two contiguous blocks (the pair types such as
 * MPI_SHORT_INT have a gap inside). Transfers of types whose data is not one
 * contiguous run are packed into a temporary buffer before sending and
 * unpacked after receiving; contiguous ones go straight from and to the user
 * buffer. The derived-datatype engine will extend this structure.
 */
#ifndef TERN_CORE_DATATYPE_H
#define TERN_CORE_DATATYPE_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

struct tern_dtype_block {
    size_t offset;
    size_t len;
};

struct tern_dtype {
    uint32_t magic;
    const char *name;
    size_t size;     /* Bytes of data in one element. */
    size_t extent;   /* Stride between consecutive elements. */
    int nblocks;     /* 1 or 2 data blocks within one element. */
    struct tern_dtype_block block[2];
};

/* The type behind a handle, or NULL when the handle is not a valid,
 * committed datatype (MPI_DATATYPE_NULL included). */
const struct tern_dtype *tern_dtype_get(MPI_Datatype h);

/* 1 when `count` elements form one contiguous run of count*size bytes. */
int tern_dtype_contig(const struct tern_dtype *dt, size_t count);

/* Copies count elements between a user buffer and a packed byte buffer. */
void tern_dtype_pack(const struct tern_dtype *dt, const void *user,
                     size_t count, void *packed);
void tern_dtype_unpack(const struct tern_dtype *dt, const void *packed,
                       size_t bytes, void *user);

#endif
