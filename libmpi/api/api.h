/*
 * Helpers of the API layer: argument checks and error reporting.
 *
 * Every MPI_X in libmpi/api/ checks its arguments with the tern_check_*
 * functions, which return 0 or a TERN_E* code and leave a description of
 * the bad argument ("invalid count -1") for the message. On any error the
 * function returns tern_api_error(comm, "MPI_X", code), which applies the
 * communicator's error handler: print one line and abort the job
 * (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT), call the user's handler, or just
 * return the error class (MPI_ERRORS_RETURN).
 */
#ifndef TERN_API_API_H
#define TERN_API_API_H

#include <stddef.h>

#include <mpi.h>

#include "libmpi/core/comm.h"
#include "libmpi/core/datatype.h"
#include "libmpi/core/request.h"

struct tern_group;

/* Records what was wrong, for the next tern_api_error(). */
void tern_api_detail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Applies comm's error handler (MPI_COMM_SELF's when comm is NULL) to an
 * error in function `fn`; returns the MPI error class to give the user. */
int tern_api_error(struct tern_comm *comm, const char *fn, int code);

/* Prints one line and ends the whole job; used by the fatal handlers. */
void tern_api_die(const char *fn, int mpi_class, const char *what)
    __attribute__((noreturn));

/* Ends the whole job from this rank with `code` (the process exits with
 * its low byte, or 1 when that is 0): flushes what the program printed,
 * then the launcher ends every rank and prints `line`, naming this rank
 * and host; without a launcher the rank prints it. MPI_Abort and
 * tern_api_die. */
void tern_api_end_job(int code, const char *line) __attribute__((noreturn));

/* Records, for the next tern_api_error(), which user attribute callback
 * ("copy" or "delete") failed with which code, when rc says one did
 * (attr_api.c). */
void tern_api_attr_cb_error(int rc, const char *which);

/* For functions declared by mpi.h that Tern does not implement yet. */
int tern_api_unsupported(const char *fn);

/* Finishes a blocking call: waits for r, fills st, frees r; returns the
 * operation's TERN_E* code. */
int tern_api_complete(struct tern_request *r, MPI_Status *st);

/* Generalized requests (greq_api.c), for the completion calls: the
 * status from the program's query_fn; the program's free_fn, after which
 * the request is freed; the program's cancel_fn. Each returns the MPI
 * error code the callback returned, 0 for MPI_SUCCESS. */
int tern_api_greq_query(struct tern_request *r, MPI_Status *st);
int tern_api_greq_free(struct tern_request *r);
int tern_api_greq_cancel(struct tern_request *r);

/* Argument checks. */
int tern_check_init(void);
int tern_check_comm(MPI_Comm h, struct tern_comm **out);
int tern_check_count(MPI_Count count);
int tern_check_type(MPI_Datatype h, const struct tern_dtype **out);
int tern_check_buf(const void *buf, MPI_Count count);
int tern_check_dest(const struct tern_comm *c, int rank);
/* TERN_ECOMM for an intercommunicator, for the calls that take only an
 * intracommunicator (the topology constructors, MPI_Comm_split_type,
 * MPI_Comm_create_group, MPI_Intercomm_create's local_comm). */
int tern_check_intra(const struct tern_comm *c);
int tern_check_source(const struct tern_comm *c, int rank);
int tern_check_send_tag(int tag);
int tern_check_recv_tag(int tag);
int tern_check_ptr(const void *p, const char *name);
/* A valid group (MPI_GROUP_EMPTY included); defined in group_api.c. */
int tern_check_group(MPI_Group h, struct tern_group **out);
/* An info argument of a call that takes hints: MPI_INFO_NULL or a valid
 * info (Tern ignores the hints, as the standard allows); defined in
 * comm_api.c. */
int tern_check_info(MPI_Info info);
/* The first checks of a communicator constructor: initialized, comm valid
 * and an intracommunicator (tern_check_intra), the output pointer not
 * NULL; defined in comm_api.c. */
int tern_check_comm_ctor(MPI_Comm comm, struct tern_comm **c, const void *newcomm);
/* Starts a buffered send of checked arguments (MPI_Bsend and MPI_Ibsend,
 * persistent ones too): the data is copied out at once; *request, if not
 * NULL, gets a request that is already complete. An MPI error code, after
 * the communicator's handler; defined in bsend_api.c. */
int tern_api_bsend_start(const char *fn, const void *buf, size_t count,
                         const struct tern_dtype *dt, int dest, int tag, struct tern_comm *c,
                         struct tern_request **request);
/* The topology constructors' agreement, before they build anything: each
 * rank passes its own verdict rc on its arguments and a fingerprint of
 * those that must be alike everywhere (tern_topo_fingerprint; 0 where
 * none must). Returns rc, or TERN_EARG on every other rank when some rank
 * failed or the fingerprints differ, so that no rank waits for one that
 * gave up. One allreduce; defined in topo_api.c. */
int tern_api_topo_agree(struct tern_comm *c, int rc, uint64_t fingerprint);
/* Initialized, comm valid and with a topology of this kind (MPI_CART,
 * MPI_GRAPH or MPI_DIST_GRAPH); *c is set once comm is valid. */
int tern_api_topo_check(MPI_Comm comm, int kind, struct tern_comm **c);
/* A rank named as a neighbour, element i of the caller's array `what`: in
 * [0, n), else TERN_ERANK. */
int tern_api_topo_node(int r, int n, const char *what, int i);
/* A query's copy of min(n, max) ints into the caller's array `what` (max,
 * named `maxname`, < 0 is an error). */
int tern_api_topo_copy_out(int *to, const int *from, int n, int max, const char *maxname,
                           const char *what);

/* The usual checks of a send or receive call, in the standard's order. */
int tern_check_xfer(const void *buf, MPI_Count count, MPI_Datatype type,
                    int rank, int tag, MPI_Comm comm, int is_send,
                    struct tern_comm **c, const struct tern_dtype **dt);

#endif
