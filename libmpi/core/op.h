/*
 * Reduction operations: the predefined ones (MPI_SUM ... MPI_NO_OP) and the
 * user's (MPI_Op_create).
 *
 * Objects and lifecycle. A predefined op is a static, read-only object found
 * from its standard ABI handle (0x21 to 0x3d) and is never freed. A user op
 * is a heap object whose address is its handle; it is reference counted.
 * MPI_Op_free drops the user's reference and makes the handle invalid at
 * once (tern_op_get returns NULL for it), but the object and its function
 * live on while another reference exists. Code that keeps an op beyond the
 * call that handed it over (a nonblocking or persistent collective, an RMA
 * epoch) takes a reference with tern_op_retain() and drops it with
 * tern_op_release() when the operation completes. Blocking calls need none:
 * the user cannot free the op while the call runs.
 *
 * Applying an op. tern_op_check() says whether a predefined op is defined
 * for a datatype, following the standard's tables (section "Predefined
 * Reduction Operations"): the op must accept the class of the type's basic
 * type (C integer, Fortran integer, floating point, logical, complex, byte,
 * multi-language, pair). User ops accept every type. tern_op_reduce() then
 * computes inout[i] = in[i] op inout[i]; `in` is the left operand, as invec
 * is for a user function. Predefined ops run element-wise kernels (one file
 * per family: op_arith.c, op_logic.c, op_loc.c) that never reassociate, so
 * a result does not depend on how a caller splits a buffer; the hot loops
 * are built for AVX-512, AVX2 and baseline x86-64 and the best one is picked
 * when the library is loaded.
 *
 * MPI_REPLACE and MPI_NO_OP are for accumulate operations only (rma_only):
 * MPI_Reduce_local and the reducing collectives must refuse them with
 * TERN_EOP; tern_op_check() accepts them for every type made of one basic
 * type, and tern_op_reduce() copies `in` to `inout` (REPLACE) or leaves
 * `inout` alone (NO_OP).
 *
 * Errors: functions return 0 or a negative TERN_E* code (TERN_EOP when the
 * op does not apply to the type, TERN_ENOMEM when a temporary buffer cannot
 * be had). Nothing here reports to the user; libmpi/api/ does.
 */
#ifndef TERN_CORE_OP_H
#define TERN_CORE_OP_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

struct tern_dtype;

enum tern_op_kind {
    TERN_OP_SUM,
    TERN_OP_PROD,
    TERN_OP_MAX,
    TERN_OP_MIN,
    TERN_OP_LAND,
    TERN_OP_LOR,
    TERN_OP_LXOR,
    TERN_OP_BAND,
    TERN_OP_BOR,
    TERN_OP_BXOR,
    TERN_OP_MINLOC,
    TERN_OP_MAXLOC,
    TERN_OP_REPLACE,
    TERN_OP_NO_OP,
    TERN_OP_USER,
    TERN_OP_NKINDS
};

struct tern_op {
    uint32_t magic;             /* TERN_MAGIC_OP (TERN_MAGIC_DEAD once freed). */
    MPI_Op handle;              /* The handle users see. */
    const char *name;           /* "MPI_SUM", or "user op". */
    int commute;                /* 1 if commutative (every predefined op). */
    MPI_User_function *fn;      /* User ops: one of fn / fn_c is set. */
    MPI_User_function_c *fn_c;
    enum tern_op_kind kind;
    unsigned classes;           /* Predefined ops: the type classes allowed. */
    int rma_only;               /* MPI_REPLACE, MPI_NO_OP. */
    int refs;                   /* User ops: references held. */
    int freed;                  /* User ops: MPI_Op_free was called. */
};

/* The op behind a handle, or NULL when the handle is not a valid op
 * (MPI_OP_NULL, garbage, or a user op already freed). */
const struct tern_op *tern_op_get(MPI_Op h);

/* 0 if op may be applied to dt, else TERN_EOP. User ops accept every type. */
int tern_op_check(const struct tern_op *op, const struct tern_dtype *dt);

/* Writes into buf (len bytes) why tern_op_check refused op on dt, naming
 * both ("MPI_BAND is not defined for MPI_FLOAT"), and returns buf. */
const char *tern_op_mismatch(const struct tern_op *op, const struct tern_dtype *dt,
                             char *buf, size_t len);

/* inout[i] = in[i] op inout[i] for `count` elements of dt, both buffers laid
 * out as `count` elements of dt (user layout, stride = extent). Returns 0 or
 * a TERN_E* code. A user function gets the user's buffers and dt->handle; a
 * count above INT_MAX is handed to an int-count function in pieces. */
int tern_op_reduce(const struct tern_op *op, const void *in, void *inout,
                   size_t count, const struct tern_dtype *dt);

/* Creates a user op with one reference (the user's handle). Exactly one of
 * fn / fn_c is non-NULL. NULL when out of memory. */
struct tern_op *tern_op_create(MPI_User_function *fn, MPI_User_function_c *fn_c,
                               int commute);

/* MPI_Op_free: invalidates the handle and drops the user's reference.
 * TERN_EOP for a predefined op. */
int tern_op_free(const struct tern_op *op);

/* References for operations that outlive their call; no-ops on predefined
 * ops. The last release frees the object. */
void tern_op_retain(const struct tern_op *op);
void tern_op_release(const struct tern_op *op);

#endif
