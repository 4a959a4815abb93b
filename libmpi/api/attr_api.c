/*
 * Attributes of communicators: keyvals, set / get / delete, the predefined
 * attributes of MPI_COMM_WORLD, and the deprecated MPI-1 spellings
 * (MPI_Keyval_create, MPI_Attr_put ...), which are the same calls.
 */
#include "libmpi/api/api.h"
#include "libmpi/core/attr.h"
#include "libmpi/core/runtime.h"
#include "tern/err.h"

/* Values of the predefined attributes; the standard hands out pointers. */
static int attr_tag_ub = 0x7fffffff;
static int attr_host = MPI_PROC_NULL;
static int attr_io = MPI_ANY_SOURCE;  /* Every rank can do I/O. */
static int attr_wtime_is_global = 0;
static int attr_appnum = 0;           /* One program per job so far. */
static int attr_universe_size;
static int attr_lastusedcode = MPI_ERR_LASTCODE;

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
    case MPI_LASTUSEDCODE: return &attr_lastusedcode;
    default: return NULL;
    }
}

/* A user keyval for communicators, valid for set / get / delete. */
static int check_keyval(int keyval)
{
    if (predefined_attr(keyval)) {
        tern_api_detail("invalid keyval %d: the predefined attributes cannot be "
                        "set, deleted or freed", keyval);
        return TERN_EKEYVAL;
    }
    if (tern_keyval_check(keyval, TERN_ATTR_COMM) == 0)
        return 0;
    if (keyval == MPI_KEYVAL_INVALID)
        tern_api_detail("invalid keyval MPI_KEYVAL_INVALID");
    else
        tern_api_detail("invalid keyval %d (not a communicator keyval, or freed)", keyval);
    return TERN_EKEYVAL;
}

/* Describes an error a user callback caused. */
static void describe_cb_error(int rc)
{
    int keyval, code;
    tern_attr_cb_error(&keyval, &code);
    if (rc == TERN_EOTHER && keyval)
        tern_api_detail("the delete callback of keyval %d returned error %d", keyval, code);
}

static int create_keyval(const char *fn, MPI_Comm_copy_attr_function *copy_fn,
                         MPI_Comm_delete_attr_function *delete_fn, int *keyval,
                         void *extra_state)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr(keyval, "comm_keyval");
    if (!rc) {
        union tern_attr_copy_fn c = { .comm = copy_fn };
        union tern_attr_delete_fn d = { .comm = delete_fn };
        rc = tern_keyval_create(TERN_ATTR_COMM, c, d, extra_state, keyval);
    }
    return rc ? tern_api_error(NULL, fn, rc) : MPI_SUCCESS;
}

static int free_keyval(const char *fn, int *keyval)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr(keyval, "comm_keyval");
    if (!rc)
        rc = check_keyval(*keyval);
    if (!rc)
        rc = tern_keyval_free(keyval, TERN_ATTR_COMM);
    return rc ? tern_api_error(NULL, fn, rc) : MPI_SUCCESS;
}

static int set_attr(const char *fn, MPI_Comm comm, int keyval, void *value)
{
    struct tern_comm *c = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, &c);
    if (!rc)
        rc = check_keyval(keyval);
    if (!rc) {
        rc = tern_attr_set(&c->attrs, TERN_ATTR_COMM, (void *)c->handle, keyval, value);
        describe_cb_error(rc);
    }
    return rc ? tern_api_error(c, fn, rc) : MPI_SUCCESS;
}

static int get_attr(const char *fn, MPI_Comm comm, int keyval, void *value, int *flag)
{
    struct tern_comm *c = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, &c);
    if (!rc)
        rc = tern_check_ptr(value, "attribute_val");
    if (!rc)
        rc = tern_check_ptr(flag, "flag");
    int *predefined = rc ? NULL : predefined_attr(keyval);
    if (!rc && !predefined)
        rc = check_keyval(keyval);
    if (rc)
        return tern_api_error(c, fn, rc);
    if (predefined) {
        /* The predefined attributes belong to MPI_COMM_WORLD only. */
        *flag = c == tern_comm_world();
        if (*flag)
            *(int **)value = predefined;
    } else {
        tern_attr_get(&c->attrs, keyval, (void **)value, flag);
    }
    return MPI_SUCCESS;
}

static int delete_attr(const char *fn, MPI_Comm comm, int keyval)
{
    struct tern_comm *c = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, &c);
    if (!rc)
        rc = check_keyval(keyval);
    if (!rc) {
        rc = tern_attr_delete(&c->attrs, TERN_ATTR_COMM, (void *)c->handle, keyval);
        describe_cb_error(rc);
    }
    return rc ? tern_api_error(c, fn, rc) : MPI_SUCCESS;
}

#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval
int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn, MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval, void *extra_state)
{
    return create_keyval("MPI_Comm_create_keyval", comm_copy_attr_fn, comm_delete_attr_fn,
                         comm_keyval, extra_state);
}

#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval
int PMPI_Comm_free_keyval(int *comm_keyval)
{
    return free_keyval("MPI_Comm_free_keyval", comm_keyval);
}

#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr
int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    return set_attr("MPI_Comm_set_attr", comm, comm_keyval, attribute_val);
}

#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    return get_attr("MPI_Comm_get_attr", comm, comm_keyval, attribute_val, flag);
}

#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr
int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    return delete_attr("MPI_Comm_delete_attr", comm, comm_keyval);
}

/* The deprecated MPI-1 names. MPI_Copy_function and MPI_Delete_function
 * have the same parameters as the communicator callbacks. */

#pragma weak MPI_Keyval_create = PMPI_Keyval_create
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state)
{
    return create_keyval("MPI_Keyval_create", copy_fn, delete_fn, keyval, extra_state);
}

#pragma weak MPI_Keyval_free = PMPI_Keyval_free
int PMPI_Keyval_free(int *keyval)
{
    return free_keyval("MPI_Keyval_free", keyval);
}

#pragma weak MPI_Attr_put = PMPI_Attr_put
int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return set_attr("MPI_Attr_put", comm, keyval, attribute_val);
}

#pragma weak MPI_Attr_get = PMPI_Attr_get
int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return get_attr("MPI_Attr_get", comm, keyval, attribute_val, flag);
}

#pragma weak MPI_Attr_delete = PMPI_Attr_delete
int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return delete_attr("MPI_Attr_delete", comm, keyval);
}
