/*
 * Datatypes: the predefined types and the derived-datatype engine.
 *
 * Objects and lifetime. A predefined type is a static entry of a table
 * indexed by its standard ABI handle (0x201 to 0x2ff); it is always
 * committed and never freed. A derived type is a heap object whose address
 * is its handle. It starts with one reference, the user's; MPI_Type_free
 * marks the handle dead (lookups fail from then on) and drops that
 * reference. Other holders take their own reference with
 * tern_dtype_retain(): every derived type holds one on each type it was
 * built from (its "kids", for MPI_Get_elements and MPI_Type_get_contents),
 * and a pending receive that unpacks into a non-contiguous buffer holds one
 * until the request is freed. The memory goes when the last reference does.
 * Retain and release are plain counters: callers hold the library's lock
 * (thread levels up to SERIALIZED).
 *
 * Layout. One instance of a type is described by a small tree of nodes
 * stored in pre-order in one array, copied (not shared) from the types it
 * was built from, so packing never follows pointers to other objects:
 *   RUN   `size` contiguous bytes at `disp`;
 *   VEC   `count` copies of the child subtree, `stride` bytes apart;
 *   IDX   entries {disp, count, pos}: entry i is `count` copies of the child,
 *         `stride` (the child's extent) apart, starting at disp;
 *   LIST  `count` different children, one after the other (struct types).
 * Every node's `disp` is relative to the address its parent hands down, and
 * every node has size > 0 (a type without data has no nodes at all).
 * The constructors normalise as they build: copies of a contiguous run merge
 * into one longer run, a vector of a vector whose extent equals the outer
 * stride becomes one vector, adjacent index entries and adjacent struct
 * fields merge, an index list with one entry or with equal counts and equal
 * spacing becomes a vector, and count-1 repetitions vanish. So a vector of
 * 1,000,000 doubles with stride 2 is VEC(1000000, 16) over RUN(8); an
 * n-dimensional subarray is at most n-1 nested VECs over one RUN (fewer when
 * trailing dimensions are whole); a struct of contiguous fields is a LIST of
 * RUNs; Type_contiguous(100, MPI_INT) is one RUN and is sent without a copy.
 *
 * Cost. The description costs O(nodes + entries), independent of counts:
 * a vector is two nodes however long it is. Packing walks the tree once;
 * each RUN costs one memcpy, and a VEC over a RUN is a tight strided loop
 * with a constant-size copy for 1, 2, 4, 8 and 16-byte runs and inline
 * 8-byte word copies up to 256 bytes (no libc call per run). A packed byte
 * range (offset, len) starts in O(depth) for VEC nodes, O(log entries) for
 * IDX nodes (binary search on `pos`) and O(children) for LIST nodes, so
 * chunked packing costs no more than packing everything at once.
 * Measured with MPI_Pack on the 2-core development VM (memcpy of the same
 * bytes: 35-55 GB/s; Open MPI 4.1 in brackets): 1M doubles at stride 2,
 * 15-17 GB/s (4-5); 100k blocks of 10 doubles, 21-24 GB/s (11-12); a 96^3
 * subarray of a 128^3 array of doubles, 19-28 GB/s (26-32); 120x120x3
 * floats of 128^3 (12-byte runs), 9-10 GB/s (5-6).
 *
 * Bounds follow the standard's typemap rules: lb and ub come from explicit
 * markers when any part was resized (markers are sticky), otherwise from
 * the data, and ub is then rounded up so the extent is a multiple of the
 * largest alignment of the basic types inside (the "epsilon" padding).
 * The true lb and extent cover the data bytes only.
 *
 * Errors: constructors return 0 or TERN_ENOMEM, TERN_ECOUNT (a size, bound
 * or displacement does not fit MPI_Aint or size_t; a description for the
 * message is recorded through *why). Nothing here calls an error handler.
 */
#ifndef TERN_CORE_DATATYPE_H
#define TERN_CORE_DATATYPE_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "libmpi/core/attr.h"

enum tern_dtype_kind {
    TERN_DT_RUN = 1,
    TERN_DT_VEC,
    TERN_DT_IDX,
    TERN_DT_LIST
};

struct tern_dtype_node {
    uint8_t kind;        /* enum tern_dtype_kind. */
    uint32_t span;       /* Nodes in this subtree, this one included. */
    MPI_Aint disp;       /* Offset from the address the parent hands down. */
    size_t size;         /* Packed bytes of one instance (RUN: its length). */
    size_t count;        /* VEC: copies; IDX: entries; LIST: children. */
    MPI_Aint stride;     /* VEC: between copies; IDX: between copies in an entry. */
    size_t ent;          /* IDX: index of its first entry in dtype->ent. */
};

struct tern_dtype_ent {
    MPI_Aint disp;       /* Where the entry's first copy starts. */
    size_t count;        /* Copies of the child in this entry. */
    size_t pos;          /* Packed bytes of the node before this entry. */
};

struct tern_dtype {
    uint32_t magic;
    MPI_Datatype handle;                /* The handle users see. */
    const struct tern_dtype *basic;     /* The one predefined type all the
                                           data is made of (itself for a
                                           predefined type); NULL if mixed. */
    const char *name;                   /* "" for a derived type until set. */
    size_t size;          /* Bytes of data in one element. */
    MPI_Aint extent;      /* Stride between consecutive elements (ub - lb);
                             may be zero or negative after resizing. */
    MPI_Aint lb;
    MPI_Aint true_lb;     /* First and ... */
    MPI_Aint true_extent; /* ... span of the bytes actually holding data. */
    size_t align;         /* Largest alignment of the basic types inside. */
    size_t nelem;         /* Basic elements in one element (2 for the pair
                             types such as MPI_FLOAT_INT, which the standard
                             defines as structs of two). */
    size_t pair_first;    /* A pair type's packed bytes before its int. */
    uint8_t predefined;
    uint8_t committed;
    uint8_t dead;         /* MPI_Type_free was called on the handle. */
    uint8_t explicit_bounds; /* lb/ub come from markers (resized, subarray). */
    int combiner;         /* MPI_COMBINER_* this type was made with. */
    uint8_t large;        /* Made by a large-count (_c) constructor. */
    int refs;             /* References; 0 for predefined types. */

    /* The layout of one element (see above); nnode == 0 when size == 0. */
    uint32_t nnode;
    struct tern_dtype_node *node;
    size_t nent;
    struct tern_dtype_ent *ent;

    /* The types this one was built from, in typemap order: kid_count[i]
     * copies of kid[i] (for a struct, the fields; otherwise one kid). */
    size_t nkid;
    struct tern_dtype **kid;
    size_t *kid_count;

    /* The constructor's other arguments, for MPI_Type_get_contents, as
     * the standard lists them: for a type made by an int constructor its
     * integers and addresses, for one made by a _c constructor its integers
     * and large counts. The datatypes are the kids. */
    size_t nints, naddrs, nlarge;
    int *ints;
    MPI_Aint *addrs;
    MPI_Count *larges;

    char namebuf[MPI_MAX_OBJECT_NAME];
    struct tern_attr_list attrs;        /* MPI_Type_set_attr's. */
};

/* The type behind a handle, or NULL when the handle is not a valid,
 * committed datatype (MPI_DATATYPE_NULL included). */
const struct tern_dtype *tern_dtype_get(MPI_Datatype h);

/* The same, but uncommitted derived types are returned too (for queries
 * and for building other types); NULL for invalid or freed handles. */
const struct tern_dtype *tern_dtype_lookup(MPI_Datatype h);

/* Takes and drops a reference on a derived type; no-ops on predefined
 * types. The last release frees the type and releases its kids. */
void tern_dtype_retain(const struct tern_dtype *dt);
void tern_dtype_release(const struct tern_dtype *dt);

/* MPI_Type_free's half: marks the handle dead and drops the user's
 * reference. Must not be called on predefined types. */
void tern_dtype_free(struct tern_dtype *dt);

/* 1 when `count` elements form one contiguous run of count*size bytes
 * that starts at the buffer address (so it can be sent or received in
 * place). True for every type when count is 0 or the size is 0. */
int tern_dtype_contig(const struct tern_dtype *dt, size_t count);

/* Copies count elements between a user buffer and a packed byte buffer. */
void tern_dtype_pack(const struct tern_dtype *dt, const void *user,
                     size_t count, void *packed);
/* Unpacks the first `bytes` packed bytes (a truncated or short message
 * unpacks only what arrived, partial elements included). */
void tern_dtype_unpack(const struct tern_dtype *dt, const void *packed,
                       size_t bytes, void *user);

/* The same on a window of the packed stream: packs bytes [offset,
 * offset+len) of the count elements at `user` into out, or unpacks len
 * bytes from in into that window. offset + len <= count * size. */
void tern_dtype_pack_range(const struct tern_dtype *dt, const void *user,
                           size_t count, size_t offset, size_t len, void *out);
void tern_dtype_unpack_range(const struct tern_dtype *dt, const void *in,
                             size_t count, size_t offset, size_t len, void *user);

/* The external32 representation (dtype_external.c). ext32_size gives the
 * bytes one element takes; it fails with TERN_ENOTSUP (naming the type in
 * *why) for a type that holds a value external32 cannot represent here,
 * and with TERN_ECOUNT when the size overflows. ext32_pack writes count
 * elements at `user` as external32 bytes at out; ext32_unpack reads them
 * back. Both return 0 or TERN_ENOMEM (their bounce buffer). */
int tern_dtype_ext32_size(const struct tern_dtype *dt, size_t *out, const char **why);
int tern_dtype_ext32_pack(const struct tern_dtype *dt, const void *user, size_t count,
                          void *out);
int tern_dtype_ext32_unpack(const struct tern_dtype *dt, const void *in, size_t count,
                            void *user);

/* Basic elements in the first `bytes` packed bytes of elements of dt, or
 * MPI_UNDEFINED when the bytes end inside a basic element. */
MPI_Count tern_dtype_elements(const struct tern_dtype *dt, size_t bytes);

/* The packed bytes taken by the first `nelem` basic elements of elements
 * of dt (the inverse of tern_dtype_elements), for MPI_Status_set_elements. */
size_t tern_dtype_elements_bytes(const struct tern_dtype *dt, size_t nelem);

/*
 * Constructors (libmpi/core/dtype_build.c: hvector and hindexed;
 * dtype_struct.c: struct, subarray, resized and dup; dtype_darray.c:
 * darray). Each makes a new,
 * uncommitted derived type holding references on the types it uses; *out
 * is set only on success. Strides and displacements are in bytes; counts
 * are already checked to be non-negative. The caller sets `combiner` and
 * `large`.
 */
int tern_dtype_hvector(size_t count, size_t blocklen, MPI_Aint stride,
                       const struct tern_dtype *old, struct tern_dtype **out,
                       const char **why);
int tern_dtype_hindexed(size_t count, const size_t *blocklens,
                        const MPI_Aint *displs, const struct tern_dtype *old,
                        struct tern_dtype **out, const char **why);
int tern_dtype_struct(size_t count, const size_t *blocklens,
                      const MPI_Aint *displs,
                      const struct tern_dtype *const *types,
                      struct tern_dtype **out, const char **why);
/* sizes, subsizes and starts are in C order (the last dimension varies
 * fastest); the API layer reverses Fortran-order arrays. */
int tern_dtype_subarray(int ndims, const size_t *sizes, const size_t *subsizes,
                        const size_t *starts, const struct tern_dtype *old,
                        struct tern_dtype **out, const char **why);
/* One dimension of a distributed array (dtype_darray.c), in indices of
 * that dimension: the process owns nfull blocks of blen indices, the first
 * starting at `first`, `step` apart, then `tail` indices from `tailstart`
 * (tail 0: none). dims are in C order; the API layer reverses Fortran
 * order and turns every distribution into this form. */
struct tern_dtype_darray_dim {
    size_t gsize, nfull, blen, first, step, tail, tailstart;
};
int tern_dtype_darray(int ndims, const struct tern_dtype_darray_dim *dims,
                      const struct tern_dtype *old, struct tern_dtype **out,
                      const char **why);
int tern_dtype_resized(const struct tern_dtype *old, MPI_Aint lb,
                       MPI_Aint extent, struct tern_dtype **out);
int tern_dtype_dup(const struct tern_dtype *old, struct tern_dtype **out);

/* A new object equal to old in everything but the name and the handle:
 * same layout, bounds, combiner, arguments and kids (MPI_Type_get_contents
 * hands these out for the derived types a type was built from). */
int tern_dtype_clone(const struct tern_dtype *old, struct tern_dtype **out);

/* Stores the constructor's arguments (copies of the arrays). */
int tern_dtype_set_args(struct tern_dtype *dt, size_t nints, const int *ints,
                        size_t naddrs, const MPI_Aint *addrs,
                        size_t nlarge, const MPI_Count *larges);

#endif
