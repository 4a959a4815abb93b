/*
 * What the collective API files (coll_api.c, coll_rooted_api.c,
 * coll_all_api.c, coll_reduce_api.c) share: the argument checks of
 * collective calls, the conversion of count, displacement and datatype
 * arrays, and the one place where a collective is started and its errors are
 * reported.
 *
 * Each collective is written once, as a static function of its family file
 * that takes MPI_Count-typed scalars and struct tern_api_array arrays; the
 * int, _c, blocking, nonblocking and persistent MPI functions are thin
 * wrappers around it. The function fills a struct tern_api_coll: the arguments for
 * collectives/ (struct tern_coll_args) plus the arrays converted for it.
 * tern_api_coll_run() then starts the collective (or reports the first
 * failed check), frees the converted arrays (the algorithms copy what they
 * need while building, so this holds for nonblocking calls too) and applies
 * the communicator's error handler.
 *
 * Blocking calls pass TERN_API_BLOCKING as the request pointer; the
 * nonblocking and the persistent ones (MPI_Bcast_init...) pass the user's
 * pointer, which must not be NULL. A persistent call is told by its name
 * (fn ends in "_init" or "_init_c"): tern_api_coll_run() then keeps the
 * checked arguments in a persistent request (persist_api.c), and each
 * MPI_Start runs them as the nonblocking form would.
 *
 * Every check returns 0 or a TERN_E* code and, on error, records a detail
 * naming the argument and its value ("invalid recvcount -3").
 */
#ifndef TERN_API_COLL_CHECK_H
#define TERN_API_COLL_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "collectives/coll.h"
#include "libmpi/api/api.h"
#include "libmpi/core/datatype.h"
#include "libmpi/core/op.h"

/* The request pointer of blocking calls. */
extern MPI_Request tern_api_coll_blocking;
#define TERN_API_BLOCKING (&tern_api_coll_blocking)

/* A count or displacement array as the user passed it: int elements (the
 * classic forms), MPI_Count elements (counts of the _c forms) or MPI_Aint
 * elements (displacements of the _c forms). Exactly one pointer is set,
 * unless the user passed NULL. */
struct tern_api_array {
    const int *ints;
    const MPI_Count *counts;
    const MPI_Aint *aints;
};

#define TERN_API_INTS(p) ((struct tern_api_array){ .ints = (p) })
#define TERN_API_COUNTS(p) ((struct tern_api_array){ .counts = (p) })
#define TERN_API_AINTS(p) ((struct tern_api_array){ .aints = (p) })

#define TERN_API_COLL_OWNED 8

/* One collective call being checked: its arguments and the arrays
 * converted for them (freed by tern_api_coll_run). */
struct tern_api_coll {
    struct tern_coll_args a;
    void *owned[TERN_API_COLL_OWNED];
    int nowned;
    /* Entries of the count arrays of the v and w forms: the
     * communicator's size, unless nblocks_set: then nblocks, a
     * neighbourhood collective's in- or out-degree (which may be 0). */
    int nblocks, nblocks_set;
    /* The datatype arrays of the w forms (tern_api_coll_types) and their
     * lengths, so that a persistent collective can hold each type. */
    const struct tern_dtype *const *types[2];
    int ntypes[2];
};

/* Starts x for a call of `kind` (tern_coll_args_init), with no arrays
 * converted yet; field by field, for the reason given there. */
static inline void tern_api_coll_init(struct tern_api_coll *x, enum tern_coll_kind kind,
                                      const void *sbuf, void *rbuf, int root)
{
    tern_coll_args_init(&x->a, kind, sbuf, rbuf, root);
    x->nowned = 0;
    x->nblocks = x->nblocks_set = 0;
    x->types[0] = x->types[1] = NULL;
    x->ntypes[0] = x->ntypes[1] = 0;
}

/* The checks every collective starts with: initialized, a valid
 * communicator (*c), and for nonblocking calls a non-NULL request pointer. */
int tern_api_coll_begin(MPI_Comm comm, MPI_Request *req, struct tern_comm **c);

/* Runs the checked collective x, or reports rc, the first failed check.
 * Frees the converted arrays, sets *req for a nonblocking or persistent
 * call, and turns an error into the call's result through the
 * communicator's handler. */
int tern_api_coll_run(const char *fn, struct tern_api_coll *x, int rc, MPI_Request *req);

/* Starts the collective a: blocking when r is NULL, else *r is its
 * request. On an error, records what it means for the user of fn. */
int tern_api_coll_start(const char *fn, struct tern_coll_args *a, struct tern_request **r);

/* The info argument of a persistent collective: MPI_INFO_NULL, since Tern
 * has no info objects yet. MPI_SUCCESS, or the error through comm's
 * handler. */
int tern_api_coll_info(const char *fn, MPI_Comm comm, MPI_Info info);

/* persist_api.c: a persistent request *r that keeps the checked
 * collective x, taking x's converted arrays and a reference on its
 * communicator, datatypes and op. */
int tern_api_coll_persist(struct tern_api_coll *x, struct tern_request **r);

/* root in [0, size); on an intercommunicator also MPI_ROOT and
 * MPI_PROC_NULL, and [0, size of the remote group). */
int tern_check_root(const struct tern_comm *c, int root);
/* Whether this rank is the root of a rooted collective (on an
 * intercommunicator: it passed MPI_ROOT). */
int tern_api_coll_is_root(const struct tern_comm *c, int root);
/* Whether this rank's own block goes to the root (gather) or comes from it
 * (scatter): every rank of an intracommunicator, the other group's on an
 * intercommunicator. */
int tern_api_coll_sends_to_root(const struct tern_comm *c, int root);

/* A count argument: >= 0. `name` is the argument ("sendcount"). */
int tern_check_coll_count(MPI_Count count, const char *name);

/* A datatype argument: valid and committed. */
int tern_check_coll_type(MPI_Datatype h, const char *name, const struct tern_dtype **dt);

/* A buffer that holds `elems` elements of dt: they fit in memory, and the
 * pointer is not NULL if there are any. `why` says where the number of
 * elements comes from, for the message ("recvcount 4 from each of 3 ranks"). */
int tern_check_coll_buf(const void *buf, const char *name, size_t elems,
                        const struct tern_dtype *dt, const char *why);

/* Whether n elements of `size` bytes fit in memory (SIZE_MAX / 2 bytes at
 * most). A multiplication, not a division: a 64-bit division takes tens of
 * cycles, and these checks run on every call. */
static inline int tern_coll_fits(size_t n, size_t size)
{
    size_t bytes;
    return !__builtin_mul_overflow(n, size, &bytes) && bytes <= SIZE_MAX / 2;
}

/* 1 when tern_check_coll_buf would accept buf: callers test this first so
 * that good calls do not format error text. */
static inline int tern_coll_buf_ok(const void *buf, size_t elems, const struct tern_dtype *dt)
{
    return tern_coll_fits(elems, dt->size) && (buf || elems == 0);
}

/* The usual argument triple (buf, count, type) of the send or the receive
 * side (prefix "send" or "recv": "sendbuf", "sendcount", "sendtype"), where
 * buf holds `nblocks` blocks of `count` elements. buf == MPI_IN_PLACE must
 * have been dealt with by the caller. Sets *dt. */
int tern_check_coll_side(const void *buf, MPI_Count count, int nblocks, MPI_Datatype type,
                         const char *prefix, const struct tern_dtype **dt);

/* The argument group of one side of a v form: buf, the counts array
 * ("sendcounts" or "recvcounts" by prefix), the displacements array (named
 * dname) and the type, with x->nblocks entries in each array. Sets the
 * converted arrays, *dt and *total, the sum of the counts. */
int tern_check_coll_vside(struct tern_api_coll *x, const void *buf, const char *prefix,
                          struct tern_api_array counts, struct tern_api_array displs,
                          const char *dname, MPI_Datatype type, const size_t **c,
                          const size_t **d, const struct tern_dtype **dt, size_t *total);

/* One side of a w form: counts, byte displacements, one type per entry
 * (x->nblocks of each) and a buffer for the data; *bytes_out is its
 * amount. */
int tern_check_coll_wside(struct tern_api_coll *x, const void *buf, const char *prefix,
                          struct tern_api_array counts, struct tern_api_array displs,
                          const char *dname, const MPI_Datatype *types, const size_t **c,
                          const size_t **d, const struct tern_dtype *const **dts,
                          size_t *bytes_out);

/* buf is MPI_IN_PLACE where the call does not allow it: `rule` completes
 * the message ("only sendbuf may be MPI_IN_PLACE"). */
int tern_check_not_in_place(const void *buf, const char *name, const char *rule);

/* MPI_IN_PLACE passed by a rank that is not the root, where only the root
 * may pass it. */
int tern_check_in_place_root(const void *buf, const char *name,
                             const struct tern_comm *c, int root);

/* sendbuf and recvbuf are the same non-NULL buffer and both carry data. */
int tern_check_alias(const void *sbuf, size_t sbytes, const void *rbuf, size_t rbytes);

/* A reduction op: valid (*op), and defined for dt. */
int tern_check_op(MPI_Op h, const struct tern_dtype *dt, const struct tern_op **op);

/* Converts an array of n counts (each >= 0) to size_t; *sum gets their
 * total. The array is owned by x. */
int tern_api_coll_counts(struct tern_api_coll *x, struct tern_api_array arr, int n,
                         const char *name, const size_t **out, size_t *sum);

/* Converts an array of n displacements to size_t (a negative displacement
 * becomes its two's complement, so address arithmetic still works). */
int tern_api_coll_displs(struct tern_api_coll *x, struct tern_api_array arr, int n,
                         const char *name, const size_t **out);

/* Converts an array of n datatype handles; a type whose count is 0 may be
 * any handle (it is not used). */
int tern_api_coll_types(struct tern_api_coll *x, const MPI_Datatype *h, const size_t *counts,
                        int n, const char *name, const struct tern_dtype *const **out);

#endif
