/*
 * Info objects: MPI_Info_create, _create_env, _dup, _free, _set, _delete,
 * _get_string, _get_nkeys, _get_nthkey, the deprecated MPI_Info_get and
 * MPI_Info_get_valuelen, and a communicator's hints (MPI_Comm_set_info,
 * MPI_Comm_get_info).
 *
 * The MPI_Info_* calls may be made at any time, before MPI_Init and after
 * MPI_Finalize too (MPI 4.1, "MPI Functionality that is Always
 * Available"), so they do not check that MPI is initialized. They have no
 * communicator: errors go to MPI_COMM_SELF's handler (and end the process
 * with a message outside MPI_Init ... MPI_Finalize). Tern ignores every
 * hint, as the standard allows, so MPI_Comm_set_info only checks its
 * arguments and MPI_Comm_get_info returns an empty info.
 */
#include <stdio.h>
#include <string.h>

#include "libmpi/api/api.h"
#include "libmpi/core/info.h"
#include "tern/err.h"

/* The info behind a handle that must be an info (MPI_INFO_NULL is not), or
 * TERN_EINFO with a message naming the handle. */
static int check_info(MPI_Info h, struct tern_info **out)
{
    *out = tern_info_get(h);
    if (*out)
        return 0;
    if (h != MPI_INFO_NULL)
        return tern_check_info(h);      /* Says why the handle is not an info. */
    tern_api_detail("invalid info MPI_INFO_NULL");
    return TERN_EINFO;
}

/* check_info() for the calls that change or free the info (`how`: "changed",
 * "freed"), which MPI_INFO_ENV refuses. */
static int check_user_info(MPI_Info h, struct tern_info **out, const char *how)
{
    int rc = check_info(h, out);
    if (!rc && (*out)->predefined) {
        tern_api_detail("invalid info MPI_INFO_ENV: it is predefined and cannot be %s", how);
        rc = TERN_EINFO;
    }
    return rc;
}

/* A key or a value (`what`): not NULL, not empty, at most max characters;
 * else `code` (TERN_EINFO_KEY or TERN_EINFO_VALUE) with a message. */
static int check_string(const char *s, size_t max, const char *what, int code)
{
    size_t len = s ? strnlen(s, max + 1) : 0;
    if (len >= 1 && len <= max)
        return 0;
    if (!s)
        tern_api_detail("invalid %s: it is NULL", what);
    else if (!len)
        tern_api_detail("invalid %s \"\": it is empty", what);
    else
        tern_api_detail("invalid %s \"%.32s...\": longer than %zu characters", what, s, max);
    return code;
}

static int check_key(const char *key)
{
    return check_string(key, TERN_INFO_KEY_MAX, "key", TERN_EINFO_KEY);
}

/* A buffer length (`name`) that must not be negative. */
static int check_len(int len, const char *name)
{
    if (len >= 0)
        return 0;
    tern_api_detail("invalid %s %d: it must be >= 0", name, len);
    return TERN_EARG;
}

/* The first checks of the calls that look a key up: info, key, flag. */
static int check_lookup(MPI_Info h, const char *key, const int *flag, struct tern_info **out)
{
    int rc = check_info(h, out);
    if (!rc)
        rc = check_key(key);
    if (!rc)
        rc = tern_check_ptr(flag, "flag");
    return rc;
}

/* Ends a call that makes an info: `made` (NULL when out of memory) goes to
 * *out, unless the call failed with rc, which goes to c's error handler
 * (MPI_COMM_SELF's when c is NULL). */
static int hand_out(const char *fn, struct tern_comm *c, int rc, struct tern_info *made,
                    MPI_Info *out)
{
    if (!rc && !made)
        rc = TERN_ENOMEM;
    if (rc)
        return tern_api_error(c, fn, rc);
    *out = made->handle;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_create = PMPI_Info_create
int PMPI_Info_create(MPI_Info *info)
{
    int rc = tern_check_ptr(info, "info");
    return hand_out("MPI_Info_create", NULL, rc, rc ? NULL : tern_info_create(), info);
}

#pragma weak MPI_Info_create_env = PMPI_Info_create_env
int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    int rc = tern_check_ptr(info, "info");
    struct tern_info *made = rc ? NULL : tern_info_create();
    if (made && tern_info_set_env(made, argc, argv)) {
        tern_info_free(made);
        made = NULL;
    }
    return hand_out("MPI_Info_create_env", NULL, rc, made, info);
}

#pragma weak MPI_Info_dup = PMPI_Info_dup
int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    struct tern_info *i = NULL;
    int rc = check_info(info, &i);
    if (!rc)
        rc = tern_check_ptr(newinfo, "newinfo");
    return hand_out("MPI_Info_dup", NULL, rc, rc ? NULL : tern_info_dup(i), newinfo);
}

#pragma weak MPI_Info_free = PMPI_Info_free
int PMPI_Info_free(MPI_Info *info)
{
    struct tern_info *i = NULL;
    int rc = tern_check_ptr(info, "info");
    if (!rc)
        rc = check_user_info(*info, &i, "freed");
    if (rc)
        return tern_api_error(NULL, "MPI_Info_free", rc);
    tern_info_free(i);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_set = PMPI_Info_set
int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    struct tern_info *i = NULL;
    int rc = check_user_info(info, &i, "changed");
    if (!rc)
        rc = check_key(key);
    if (!rc)
        rc = check_string(value, TERN_INFO_VAL_MAX, "value", TERN_EINFO_VALUE);
    if (!rc)
        rc = tern_info_set(i, key, value);
    return rc ? tern_api_error(NULL, "MPI_Info_set", rc) : MPI_SUCCESS;
}

#pragma weak MPI_Info_delete = PMPI_Info_delete
int PMPI_Info_delete(MPI_Info info, const char *key)
{
    struct tern_info *i = NULL;
    int rc = check_user_info(info, &i, "changed");
    if (!rc)
        rc = check_key(key);
    if (!rc && (rc = tern_info_delete(i, key)) != 0)
        tern_api_detail("invalid key \"%s\": the info does not hold it", key);
    return rc ? tern_api_error(NULL, "MPI_Info_delete", rc) : MPI_SUCCESS;
}

#pragma weak MPI_Info_get_string = PMPI_Info_get_string
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    struct tern_info *i = NULL;
    int rc = check_lookup(info, key, flag, &i);
    if (!rc)
        rc = tern_check_ptr(buflen, "buflen");
    if (!rc)
        rc = check_len(*buflen, "buflen");
    /* With *buflen 0 the call only asks for the length: value may be NULL. */
    if (!rc && *buflen > 0)
        rc = tern_check_ptr(value, "value");
    if (rc)
        return tern_api_error(NULL, "MPI_Info_get_string", rc);
    const char *v = tern_info_value(i, key);
    *flag = v != NULL;
    if (v && *buflen > 0)
        snprintf(value, (size_t)*buflen, "%s", v);
    if (v)
        *buflen = (int)strlen(v) + 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get = PMPI_Info_get
int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    struct tern_info *i = NULL;
    int rc = check_lookup(info, key, flag, &i);
    if (!rc)
        rc = check_len(valuelen, "valuelen");
    if (!rc)
        rc = tern_check_ptr(value, "value");
    if (rc)
        return tern_api_error(NULL, "MPI_Info_get", rc);
    const char *v = tern_info_value(i, key);
    *flag = v != NULL;
    /* valuelen counts the characters, not the null after them. */
    if (v)
        snprintf(value, (size_t)valuelen + 1, "%s", v);
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_valuelen = PMPI_Info_get_valuelen
int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    struct tern_info *i = NULL;
    int rc = check_lookup(info, key, flag, &i);
    if (!rc)
        rc = tern_check_ptr(valuelen, "valuelen");
    if (rc)
        return tern_api_error(NULL, "MPI_Info_get_valuelen", rc);
    const char *v = tern_info_value(i, key);
    *flag = v != NULL;
    if (v)
        *valuelen = (int)strlen(v);
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_nkeys = PMPI_Info_get_nkeys
int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    struct tern_info *i = NULL;
    int rc = check_info(info, &i);
    if (!rc)
        rc = tern_check_ptr(nkeys, "nkeys");
    if (rc)
        return tern_api_error(NULL, "MPI_Info_get_nkeys", rc);
    *nkeys = i->n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_nthkey = PMPI_Info_get_nthkey
int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    struct tern_info *i = NULL;
    int rc = check_info(info, &i);
    if (!rc && (n < 0 || n >= i->n)) {
        tern_api_detail("invalid n %d: the info holds %d keys, numbered from 0", n, i->n);
        rc = TERN_EARG;
    }
    if (!rc)
        rc = tern_check_ptr(key, "key");
    if (rc)
        return tern_api_error(NULL, "MPI_Info_get_nthkey", rc);
    strcpy(key, i->entries[n].key);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_set_info = PMPI_Comm_set_info
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    struct tern_comm *c = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, &c);
    if (!rc)
        rc = tern_check_info(info);
    return rc ? tern_api_error(c, "MPI_Comm_set_info", rc) : MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_info = PMPI_Comm_get_info
int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    struct tern_comm *c = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, &c);
    if (!rc)
        rc = tern_check_ptr(info_used, "info_used");
    return hand_out("MPI_Comm_get_info", c, rc, rc ? NULL : tern_info_create(), info_used);
}
