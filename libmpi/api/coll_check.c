/*
 * Argument checks and array conversions shared by the collective API files,
 * and the one function that starts a checked collective and reports its
 * errors (see coll_check.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libmpi/api/coll_check.h"
#include "tern/err.h"

MPI_Request tern_api_coll_blocking;

int tern_api_coll_begin(MPI_Comm comm, MPI_Request *req, struct tern_comm **c)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, c);
    if (!rc && req != TERN_API_BLOCKING)
        rc = tern_check_ptr(req, "request");
    return rc;
}

/* Says what an error of a started collective means for the user. */
static void explain(const char *fn, int rc)
{
    if (rc == TERN_ETRUNCATE)
        tern_api_detail("ranks disagree on the message size: they passed different "
                        "counts or datatypes to the collective (message truncated)");
    else if (rc == TERN_ENOTSUP)
        tern_api_detail("%s is not implemented in this version of Tern "
                        "(no algorithm for it yet)", fn);
}

int tern_api_coll_start(const char *fn, struct tern_coll_args *a, struct tern_request **r)
{
    if (!a->call)
        a->call = fn;
    int rc = tern_coll_run(a, r);
    explain(fn, rc);
    return rc;
}

/* The persistent forms: "MPI_Bcast_init", "MPI_Bcast_init_c"... */
static int persistent(const char *fn)
{
    return strstr(fn, "_init") != NULL;
}

int tern_api_coll_info(const char *fn, MPI_Comm comm, MPI_Info info)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_info(info);
    return rc ? tern_api_error(tern_comm_get(comm), fn, rc) : MPI_SUCCESS;
}

int tern_api_coll_run(const char *fn, struct tern_api_coll *x, int rc, MPI_Request *req)
{
    struct tern_request *r = NULL;
    x->a.call = fn;
    if (!rc && x->a.comm->remote && !tern_coll_inter_defined(x->a.kind)) {
        /* Said at once, also by the persistent forms' _init. */
        tern_api_detail("%s is not defined on an intercommunicator (%s)", fn,
                        tern_comm_label(x->a.comm));
        rc = TERN_ECOMM;
    }
    if (!rc && x->a.comm->remote && (x->a.sbuf == MPI_IN_PLACE || x->a.rbuf == MPI_IN_PLACE)) {
        tern_api_detail("MPI_IN_PLACE on an intercommunicator: the standard has no in-place "
                        "form of the collectives there");
        rc = TERN_EBUFFER;
    }
    if (!rc && req != TERN_API_BLOCKING && persistent(fn))
        rc = tern_api_coll_persist(x, &r);
    else if (!rc)
        rc = tern_api_coll_start(fn, &x->a, req == TERN_API_BLOCKING ? NULL : &r);
    for (int i = 0; i < x->nowned; i++)
        free(x->owned[i]);
    x->nowned = 0;
    if (rc)
        return tern_api_error(x->a.comm, fn, rc);
    if (req != TERN_API_BLOCKING)
        *req = (MPI_Request)r;
    return MPI_SUCCESS;
}

int tern_check_root(const struct tern_comm *c, int root)
{
    if (root >= 0 && root < tern_comm_peers(c))
        return 0;
    if (c->remote && (root == MPI_ROOT || root == MPI_PROC_NULL))
        return 0;
    if (c->remote)
        tern_api_detail("invalid root %d: on an intercommunicator the root passes MPI_ROOT, "
                        "the rest of its group MPI_PROC_NULL, and the other group the root's "
                        "rank in it, 0 to %d", root, c->remote->size - 1);
    else
        tern_api_detail("invalid root %d: %s has ranks 0 to %d", root, c->name, c->size - 1);
    return TERN_EROOT;
}

int tern_api_coll_is_root(const struct tern_comm *c, int root)
{
    return c->remote ? root == MPI_ROOT : c->rank == root;
}

int tern_api_coll_sends_to_root(const struct tern_comm *c, int root)
{
    return c->remote ? root >= 0 : 1;
}

int tern_check_coll_count(MPI_Count count, const char *name)
{
    if (count >= 0)
        return 0;
    tern_api_detail("invalid %s %lld", name, (long long)count);
    return TERN_ECOUNT;
}

int tern_check_coll_type(MPI_Datatype h, const char *name, const struct tern_dtype **dt)
{
    if (h == MPI_DATATYPE_NULL) {
        *dt = NULL;
        tern_api_detail("invalid %s MPI_DATATYPE_NULL", name);
        return TERN_ETYPE;
    }
    /* tern_check_type words the other cases (not a type, not committed). */
    return tern_check_type(h, dt);
}

int tern_check_coll_buf(const void *buf, const char *name, size_t elems,
                        const struct tern_dtype *dt, const char *why)
{
    if (!tern_coll_fits(elems, dt->size)) {
        tern_api_detail("invalid %s: %s, %zu elements of %s, do not fit in memory",
                        name, why, elems, dt->name);
        return TERN_ECOUNT;
    }
    if (buf || elems == 0)
        return 0;
    tern_api_detail("invalid %s NULL with %s", name, why);
    return TERN_EBUFFER;
}

/* The checks of tern_check_coll_side, with the messages; only called when
 * the fast test there failed, so good calls never format text. */
static int check_side_slow(const void *buf, MPI_Count count, int nblocks, MPI_Datatype type,
                           const char *prefix, const struct tern_dtype **dt)
{
    char bname[32], cname[32], tname[32], why[128];
    snprintf(bname, sizeof(bname), "%sbuf", prefix);
    snprintf(cname, sizeof(cname), "%scount", prefix);
    snprintf(tname, sizeof(tname), "%stype", prefix);
    int rc = tern_check_coll_count(count, cname);
    if (!rc)
        rc = tern_check_coll_type(type, tname, dt);
    if (rc)
        return rc;
    if (nblocks > 1 && !tern_coll_fits((size_t)count, (size_t)nblocks)) {
        tern_api_detail("invalid %s %lld: %d blocks of it do not fit in memory",
                        cname, (long long)count, nblocks);
        return TERN_ECOUNT;
    }
    if (nblocks > 1)
        snprintf(why, sizeof(why), "%s %lld for each of %d ranks", cname, (long long)count,
                 nblocks);
    else
        snprintf(why, sizeof(why), "%s %lld", cname, (long long)count);
    return tern_check_coll_buf(buf, bname, (size_t)count * (size_t)nblocks, *dt, why);
}

int tern_check_coll_side(const void *buf, MPI_Count count, int nblocks, MPI_Datatype type,
                         const char *prefix, const struct tern_dtype **dt)
{
    size_t blocks = nblocks > 1 ? (size_t)nblocks : 1;
    if (count >= 0 && tern_coll_fits((size_t)count, blocks) &&
        (*dt = tern_dtype_get(type)) != NULL &&
        tern_coll_buf_ok(buf, (size_t)count * blocks, *dt))
        return 0;
    return check_side_slow(buf, count, nblocks, type, prefix, dt);
}

/* Entries of the count arrays of a v or w form: one per rank, of the
 * remote group on an intercommunicator. */
static int nblocks(const struct tern_api_coll *x)
{
    return x->nblocks_set ? x->nblocks : tern_comm_peers(x->a.comm);
}

int tern_check_coll_vside(struct tern_api_coll *x, const void *buf, const char *prefix,
                          struct tern_api_array counts, struct tern_api_array displs,
                          const char *dname, MPI_Datatype type, const size_t **c,
                          const size_t **d, const struct tern_dtype **dt, size_t *total)
{
    char bname[32], cname[32], tname[32], why[128];
    snprintf(bname, sizeof(bname), "%sbuf", prefix);
    snprintf(cname, sizeof(cname), "%scounts", prefix);
    snprintf(tname, sizeof(tname), "%stype", prefix);
    int rc = tern_api_coll_counts(x, counts, nblocks(x), cname, c, total);
    if (!rc)
        rc = tern_api_coll_displs(x, displs, nblocks(x), dname, d);
    if (!rc)
        rc = tern_check_coll_type(type, tname, dt);
    if (rc || tern_coll_buf_ok(buf, *total, *dt))
        return rc;
    snprintf(why, sizeof(why), "%s adding up to %zu", cname, *total);
    return tern_check_coll_buf(buf, bname, *total, *dt, why);
}

int tern_check_coll_wside(struct tern_api_coll *x, const void *buf, const char *prefix,
                          struct tern_api_array counts, struct tern_api_array displs,
                          const char *dname, const MPI_Datatype *types, const size_t **c,
                          const size_t **d, const struct tern_dtype *const **dts,
                          size_t *bytes_out)
{
    int p = nblocks(x);
    size_t total = 0;
    char bname[32], cname[32], tname[32], why[128];
    snprintf(bname, sizeof(bname), "%sbuf", prefix);
    snprintf(cname, sizeof(cname), "%scounts", prefix);
    snprintf(tname, sizeof(tname), "%stypes", prefix);
    int rc = tern_api_coll_counts(x, counts, p, cname, c, &total);
    if (!rc)
        rc = tern_api_coll_displs(x, displs, p, dname, d);
    if (!rc)
        rc = tern_api_coll_types(x, types, *c, p, tname, dts);
    if (rc)
        return rc;
    *bytes_out = 0;
    for (int i = 0; i < p; i++) {
        size_t size = (*dts)[i]->size;
        if (size && (*c)[i] > (SIZE_MAX / 2 - *bytes_out) / size) {
            tern_api_detail("invalid %s: the data of %s and %s does not fit in memory",
                            cname, cname, tname);
            return TERN_ECOUNT;
        }
        *bytes_out += (*c)[i] * size;
    }
    if (tern_coll_buf_ok(buf, *bytes_out, tern_dtype_get(MPI_BYTE)))
        return 0;
    snprintf(why, sizeof(why), "%s and %s giving %zu bytes", cname, tname, *bytes_out);
    return tern_check_coll_buf(buf, bname, *bytes_out, tern_dtype_get(MPI_BYTE), why);
}

int tern_check_not_in_place(const void *buf, const char *name, const char *rule)
{
    if (buf != MPI_IN_PLACE)
        return 0;
    tern_api_detail("invalid %s MPI_IN_PLACE: %s", name, rule);
    return TERN_EBUFFER;
}

int tern_check_in_place_root(const void *buf, const char *name,
                             const struct tern_comm *c, int root)
{
    if (buf != MPI_IN_PLACE || (!c->remote && c->rank == root))
        return 0;
    if (c->remote)
        tern_api_detail("invalid %s MPI_IN_PLACE: the standard has no in-place form of the "
                        "collectives on an intercommunicator", name);
    else
        tern_api_detail("invalid %s MPI_IN_PLACE: only the root (rank %d) may pass it, "
                        "and this is rank %d", name, root, c->rank);
    return TERN_EBUFFER;
}

int tern_check_alias(const void *sbuf, size_t sbytes, const void *rbuf, size_t rbytes)
{
    if (sbuf != rbuf || !sbuf || sbuf == MPI_IN_PLACE || !sbytes || !rbytes)
        return 0;
    tern_api_detail("sendbuf and recvbuf are the same buffer: use MPI_IN_PLACE");
    return TERN_EBUFFER;
}

int tern_check_op(MPI_Op h, const struct tern_dtype *dt, const struct tern_op **op)
{
    *op = tern_op_get(h);
    if (!*op) {
        if (h == MPI_OP_NULL)
            tern_api_detail("invalid op MPI_OP_NULL");
        else
            tern_api_detail("invalid op %p (not an op, or freed)", (void *)h);
        return TERN_EOP;
    }
    if ((*op)->rma_only) {
        tern_api_detail("%s is only allowed in one-sided accumulate calls", (*op)->name);
        return TERN_EOP;
    }
    if (tern_op_check(*op, dt)) {
        char why[160];
        tern_api_detail("%s", tern_op_mismatch(*op, dt, why, sizeof(why)));
        return TERN_EOP;
    }
    return 0;
}

/* The i-th element of a user array. */
static long long array_at(const struct tern_api_array *arr, int i)
{
    if (arr->ints)
        return arr->ints[i];
    if (arr->counts)
        return (long long)arr->counts[i];
    return (long long)arr->aints[i];
}

/* A size_t array of n entries owned by x (freed after the run). */
static size_t *owned_array(struct tern_api_coll *x, int n, size_t elem)
{
    if (x->nowned == TERN_API_COLL_OWNED)
        return NULL;
    void *p = malloc((size_t)(n > 0 ? n : 1) * elem);
    if (p)
        x->owned[x->nowned++] = p;
    return p;
}

/* The array argument is present. */
static int check_array(const struct tern_api_array *arr, const char *name)
{
    return tern_check_ptr(arr->ints ? (const void *)arr->ints
                          : arr->counts ? (const void *)arr->counts
                                        : (const void *)arr->aints,
                          name);
}

int tern_api_coll_counts(struct tern_api_coll *x, struct tern_api_array arr, int n,
                         const char *name, const size_t **out, size_t *sum)
{
    /* An array of no entries may be NULL (a neighbourhood collective on
     * a process without neighbours on that side). */
    int rc = n > 0 ? check_array(&arr, name) : 0;
    if (rc)
        return rc;
    size_t *v = owned_array(x, n, sizeof(size_t));
    if (!v)
        return TERN_ENOMEM;
    *sum = 0;
    for (int i = 0; i < n; i++) {
        long long c = array_at(&arr, i);
        if (c < 0) {
            tern_api_detail("invalid count %lld at index %d of %s", c, i, name);
            return TERN_ECOUNT;
        }
        if ((unsigned long long)c > SIZE_MAX / 2 - *sum) {
            tern_api_detail("invalid %s: the counts add up to more than fits in memory",
                            name);
            return TERN_ECOUNT;
        }
        v[i] = (size_t)c;
        *sum += (size_t)c;
    }
    *out = v;
    return 0;
}

int tern_api_coll_displs(struct tern_api_coll *x, struct tern_api_array arr, int n,
                         const char *name, const size_t **out)
{
    int rc = n > 0 ? check_array(&arr, name) : 0;
    if (rc)
        return rc;
    size_t *v = owned_array(x, n, sizeof(size_t));
    if (!v)
        return TERN_ENOMEM;
    for (int i = 0; i < n; i++)
        v[i] = (size_t)array_at(&arr, i);
    *out = v;
    return 0;
}

int tern_api_coll_types(struct tern_api_coll *x, const MPI_Datatype *h, const size_t *counts,
                        int n, const char *name, const struct tern_dtype *const **out)
{
    int rc = n > 0 ? tern_check_ptr(h, name) : 0;
    if (rc)
        return rc;
    const struct tern_dtype **v = (const struct tern_dtype **)owned_array(x, n, sizeof(*v));
    if (!v)
        return TERN_ENOMEM;
    for (int i = 0; i < n; i++) {
        v[i] = tern_dtype_get(h[i]);
        if (v[i])
            continue;
        if (counts[i] == 0) {
            /* The type of an empty block is never used: accept any handle
             * there (codes pass MPI_DATATYPE_NULL for peers they skip). */
            v[i] = tern_dtype_get(MPI_BYTE);
            continue;
        }
        const struct tern_dtype *dt;
        tern_check_type(h[i], &dt);
        if (h[i] == MPI_DATATYPE_NULL)
            tern_api_detail("invalid datatype MPI_DATATYPE_NULL at index %d of %s", i, name);
        return TERN_ETYPE;
    }
    /* Alltoallw has two such arrays, a send and a receive one. */
    int k = x->ntypes[0] ? 1 : 0;
    if (x->ntypes[k])
        return TERN_EINTERN;
    x->types[k] = v;
    x->ntypes[k] = n;
    *out = v;
    return 0;
}
