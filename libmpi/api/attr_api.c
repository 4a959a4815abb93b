/*
 * Attributes of communicators and datatypes: keyvals, set / get / delete,
 * the predefined attributes of MPI_COMM_WORLD, and the deprecated MPI-1
 * spellings (MPI_Keyval_create, MPI_Attr_put ...), which are the same
 * calls. MPI_Comm_dup and MPI_Type_dup copy attributes, MPI_Comm_free and
 * MPI_Type_free delete them (core/attr.h has the rules).
 */
#include "libmpi/api/api.h"
#include "libmpi/api/type_args.h"
#include "libmpi/core/attr.h"
#include "libmpi/core/errclass.h"
#include "libmpi/core/runtime.h"
#include "tern/err.h"

/* Values of the predefined attributes; the standard hands out pointers. */
static int attr_tag_ub = 0x7fffffff;
static int attr_host = MPI_PROC_NULL;
static int attr_io = MPI_ANY_SOURCE;  /* Every rank can do I/O. */
static int attr_wtime_is_global = 0;
static int attr_appnum = 0;           /* One program per job so far. */
static int attr_universe_size;
static int attr_lastusedcode;

static int *predefined_attr(int keyval)
{
    switch (keyval) {
    case MPI_TAG_UB: return &attr_tag_ub;
    case MPI_HOST: return &attr_host;
    case MPI_IO: return &attr_io;
    case MPI_WTIME_IS_GLOBAL: return &attr_wtime_is_global;
    case MPI_APPNUM: return &attr_appnum;
    case MPI_UNIVERSE_SIZE:
        attr_universe_size = tern_rt.boot.size;
        return &attr_universe_size;
    case MPI_LASTUSEDCODE:
        attr_lastusedcode = tern_errclass_last();
        return &attr_lastusedcode;
    default: return NULL;
    }
}

/* For messages: the objects of `kind`, and the name of the standard's
 * keyval parameter for them. */
static const char *kind_name(int kind)
{
    return kind == TERN_ATTR_COMM ? "communicator" : "datatype";
}

static const char *keyval_param(int kind)
{
    return kind == TERN_ATTR_COMM ? "comm_keyval" : "type_keyval";
}

/* A user keyval for objects of `kind`: one the user has not freed (set,
 * free), or also one freed while attributes still use it (get, delete). */
static int check_keyval(int keyval, int kind, int freed_ok)
{
    if (kind == TERN_ATTR_COMM && predefined_attr(keyval)) {
        tern_api_detail("invalid keyval %d: the predefined attributes cannot be "
                        "set, deleted or freed", keyval);
        return TERN_EKEYVAL;
    }
    if (tern_keyval_check(keyval, kind, freed_ok) == 0)
        return 0;
    if (keyval == MPI_KEYVAL_INVALID)
        tern_api_detail("invalid keyval MPI_KEYVAL_INVALID");
    else
        tern_api_detail("invalid keyval %d (not a %s keyval, or freed)", keyval,
                        kind_name(kind));
    return TERN_EKEYVAL;
}

void tern_api_attr_cb_error(int rc, const char *which)
{
    int keyval, code;
    tern_attr_cb_error(&keyval, &code);
    if (rc == TERN_EOTHER && keyval)
        tern_api_detail("the %s callback of keyval %d returned error %d", which, keyval, code);
}

/* The object an attribute call names: its list, the handle its callbacks
 * get, and the communicator whose handler reports errors (NULL for a
 * datatype: MPI_COMM_SELF's, as for every datatype call). */
struct target {
    struct tern_attr_list *attrs;
    void *handle;
    struct tern_comm *comm;
};

static int find_target(int kind, const void *handle, struct target *t)
{
    int rc;
    t->comm = NULL;
    if (kind == TERN_ATTR_COMM) {
        rc = tern_check_comm((MPI_Comm)handle, &t->comm);
        if (!rc) {
            t->attrs = &t->comm->attrs;
            t->handle = (void *)t->comm->handle;
        }
        return rc;
    }
    const struct tern_dtype *dt;
    rc = tern_api_type_old((MPI_Datatype)handle, &dt);
    if (!rc) {
        t->attrs = &((struct tern_dtype *)dt)->attrs;
        t->handle = (void *)dt->handle;
    }
    return rc;
}

static int create_keyval(const char *fn, int kind, union tern_attr_copy_fn copy,
                         union tern_attr_delete_fn del, int *keyval, void *extra_state)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr(keyval, keyval_param(kind));
    if (!rc)
        rc = tern_keyval_create(kind, copy, del, extra_state, keyval);
    return rc ? tern_api_error(NULL, fn, rc) : MPI_SUCCESS;
}

static int free_keyval(const char *fn, int kind, int *keyval)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr(keyval, keyval_param(kind));
    if (!rc)
        rc = check_keyval(*keyval, kind, 0);
    if (!rc)
        rc = tern_keyval_free(keyval, kind);
    return rc ? tern_api_error(NULL, fn, rc) : MPI_SUCCESS;
}

static int set_attr(const char *fn, int kind, const void *handle, int keyval, void *value)
{
    struct target t = { 0 };
    int rc = tern_check_init();
    if (!rc)
        rc = find_target(kind, handle, &t);
    if (!rc)
        rc = check_keyval(keyval, kind, 0);
    if (!rc) {
        rc = tern_attr_set(t.attrs, kind, t.handle, keyval, value);
        tern_api_attr_cb_error(rc, "delete");
    }
    return rc ? tern_api_error(t.comm, fn, rc) : MPI_SUCCESS;
}

static int get_attr(const char *fn, int kind, const void *handle, int keyval, void *value,
                    int *flag)
{
    struct target t = { 0 };
    int rc = tern_check_init();
    if (!rc)
        rc = find_target(kind, handle, &t);
    if (!rc)
        rc = tern_check_ptr(value, "attribute_val");
    if (!rc)
        rc = tern_check_ptr(flag, "flag");
    int *predefined = rc || kind != TERN_ATTR_COMM ? NULL : predefined_attr(keyval);
    if (!rc && !predefined)
        rc = check_keyval(keyval, kind, 1);
    if (rc)
        return tern_api_error(t.comm, fn, rc);
    if (predefined) {
        /* The predefined attributes belong to MPI_COMM_WORLD only. */
        *flag = t.comm == tern_comm_world();
        if (*flag)
            *(int **)value = predefined;
    } else {
        tern_attr_get(t.attrs, keyval, (void **)value, flag);
    }
    return MPI_SUCCESS;
}

static int delete_attr(const char *fn, int kind, const void *handle, int keyval)
{
    struct target t = { 0 };
    int rc = tern_check_init();
    if (!rc)
        rc = find_target(kind, handle, &t);
    if (!rc)
        rc = check_keyval(keyval, kind, 1);
    if (!rc) {
        rc = tern_attr_delete(t.attrs, kind, t.handle, keyval);
        tern_api_attr_cb_error(rc, "delete");
    }
    return rc ? tern_api_error(t.comm, fn, rc) : MPI_SUCCESS;
}

/* Communicators ------------------------------------------------------------ */

static int create_comm_keyval(const char *fn, MPI_Comm_copy_attr_function *copy_fn,
                              MPI_Comm_delete_attr_function *delete_fn, int *keyval,
                              void *extra_state)
{
    union tern_attr_copy_fn c = { .comm = copy_fn };
    union tern_attr_delete_fn d = { .comm = delete_fn };
    return create_keyval(fn, TERN_ATTR_COMM, c, d, keyval, extra_state);
}

#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval
int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn, MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval, void *extra_state)
{
    return create_comm_keyval("MPI_Comm_create_keyval", comm_copy_attr_fn,
                              comm_delete_attr_fn, comm_keyval, extra_state);
}

#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval
int PMPI_Comm_free_keyval(int *comm_keyval)
{
    return free_keyval("MPI_Comm_free_keyval", TERN_ATTR_COMM, comm_keyval);
}

#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr
int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    return set_attr("MPI_Comm_set_attr", TERN_ATTR_COMM, comm, comm_keyval, attribute_val);
}

#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    return get_attr("MPI_Comm_get_attr", TERN_ATTR_COMM, comm, comm_keyval, attribute_val,
                    flag);
}

#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr
int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    return delete_attr("MPI_Comm_delete_attr", TERN_ATTR_COMM, comm, comm_keyval);
}

/* The deprecated MPI-1 names. MPI_Copy_function and MPI_Delete_function
 * have the same parameters as the communicator callbacks. */

#pragma weak MPI_Keyval_create = PMPI_Keyval_create
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state)
{
    return create_comm_keyval("MPI_Keyval_create", copy_fn, delete_fn, keyval, extra_state);
}

#pragma weak MPI_Keyval_free = PMPI_Keyval_free
int PMPI_Keyval_free(int *keyval)
{
    return free_keyval("MPI_Keyval_free", TERN_ATTR_COMM, keyval);
}

#pragma weak MPI_Attr_put = PMPI_Attr_put
int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return set_attr("MPI_Attr_put", TERN_ATTR_COMM, comm, keyval, attribute_val);
}

#pragma weak MPI_Attr_get = PMPI_Attr_get
int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return get_attr("MPI_Attr_get", TERN_ATTR_COMM, comm, keyval, attribute_val, flag);
}

#pragma weak MPI_Attr_delete = PMPI_Attr_delete
int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return delete_attr("MPI_Attr_delete", TERN_ATTR_COMM, comm, keyval);
}

/* Datatypes ---------------------------------------------------------------- */

#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval
int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn, MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval, void *extra_state)
{
    union tern_attr_copy_fn c = { .type = type_copy_attr_fn };
    union tern_attr_delete_fn d = { .type = type_delete_attr_fn };
    return create_keyval("MPI_Type_create_keyval", TERN_ATTR_TYPE, c, d, type_keyval,
                         extra_state);
}

#pragma weak MPI_Type_free_keyval = PMPI_Type_free_keyval
int PMPI_Type_free_keyval(int *type_keyval)
{
    return free_keyval("MPI_Type_free_keyval", TERN_ATTR_TYPE, type_keyval);
}

#pragma weak MPI_Type_set_attr = PMPI_Type_set_attr
int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    return set_attr("MPI_Type_set_attr", TERN_ATTR_TYPE, datatype, type_keyval, attribute_val);
}

#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr
int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    return get_attr("MPI_Type_get_attr", TERN_ATTR_TYPE, datatype, type_keyval, attribute_val,
                    flag);
}

#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr
int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    return delete_attr("MPI_Type_delete_attr", TERN_ATTR_TYPE, datatype, type_keyval);
}
