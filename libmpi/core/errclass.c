/*
 * Names and descriptions of the MPI error classes, for MPI_Error_string and
 * for the one-line messages of the fatal error handler; and the classes,
 * codes and strings the program added (errclass.h).
 */
#include <mpi.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "tern/err.h"

#include "libmpi/core/errclass.h"

struct class_entry {
    const char *name;
    const char *text;
};

static const struct class_entry classes[] = {
    [MPI_SUCCESS] = { "MPI_SUCCESS", "no error" },
    [MPI_ERR_BUFFER] = { "MPI_ERR_BUFFER", "invalid buffer pointer" },
    [MPI_ERR_COUNT] = { "MPI_ERR_COUNT", "invalid count argument" },
    [MPI_ERR_TYPE] = { "MPI_ERR_TYPE", "invalid datatype" },
    [MPI_ERR_TAG] = { "MPI_ERR_TAG", "invalid tag" },
    [MPI_ERR_COMM] = { "MPI_ERR_COMM", "invalid communicator" },
    [MPI_ERR_RANK] = { "MPI_ERR_RANK", "invalid rank" },
    [MPI_ERR_REQUEST] = { "MPI_ERR_REQUEST", "invalid request" },
    [MPI_ERR_ROOT] = { "MPI_ERR_ROOT", "invalid root" },
    [MPI_ERR_GROUP] = { "MPI_ERR_GROUP", "invalid group" },
    [MPI_ERR_OP] = { "MPI_ERR_OP", "invalid operation" },
    [MPI_ERR_TOPOLOGY] = { "MPI_ERR_TOPOLOGY", "invalid topology" },
    [MPI_ERR_DIMS] = { "MPI_ERR_DIMS", "invalid dimension argument" },
    [MPI_ERR_ARG] = { "MPI_ERR_ARG", "invalid argument of some other kind" },
    [MPI_ERR_UNKNOWN] = { "MPI_ERR_UNKNOWN", "unknown error" },
    [MPI_ERR_TRUNCATE] = { "MPI_ERR_TRUNCATE", "message truncated on receive" },
    [MPI_ERR_OTHER] = { "MPI_ERR_OTHER", "known error not in this list" },
    [MPI_ERR_INTERN] = { "MPI_ERR_INTERN", "internal MPI (implementation) error" },
    [MPI_ERR_PENDING] = { "MPI_ERR_PENDING", "pending request" },
    [MPI_ERR_IN_STATUS] = { "MPI_ERR_IN_STATUS", "error code is in status" },
    [MPI_ERR_ACCESS] = { "MPI_ERR_ACCESS", "permission denied" },
    [MPI_ERR_AMODE] = { "MPI_ERR_AMODE", "error related to the amode passed to MPI_File_open" },
    [MPI_ERR_ASSERT] = { "MPI_ERR_ASSERT", "invalid assert argument" },
    [MPI_ERR_BAD_FILE] = { "MPI_ERR_BAD_FILE", "invalid file name" },
    [MPI_ERR_BASE] = { "MPI_ERR_BASE", "invalid base argument" },
    [MPI_ERR_CONVERSION] = { "MPI_ERR_CONVERSION", "error in a user data conversion function" },
    [MPI_ERR_DISP] = { "MPI_ERR_DISP", "invalid displacement argument" },
    [MPI_ERR_DUP_DATAREP] = { "MPI_ERR_DUP_DATAREP", "data representation identifier already registered" },
    [MPI_ERR_FILE_EXISTS] = { "MPI_ERR_FILE_EXISTS", "file exists" },
    [MPI_ERR_FILE_IN_USE] = { "MPI_ERR_FILE_IN_USE", "file operation could not be completed: file in use" },
    [MPI_ERR_FILE] = { "MPI_ERR_FILE", "invalid file handle" },
    [MPI_ERR_INFO_KEY] = { "MPI_ERR_INFO_KEY", "info key too long" },
    [MPI_ERR_INFO_NOKEY] = { "MPI_ERR_INFO_NOKEY", "info key not defined" },
    [MPI_ERR_INFO_VALUE] = { "MPI_ERR_INFO_VALUE", "info value too long" },
    [MPI_ERR_INFO] = { "MPI_ERR_INFO", "invalid info argument" },
    [MPI_ERR_IO] = { "MPI_ERR_IO", "other I/O error" },
    [MPI_ERR_KEYVAL] = { "MPI_ERR_KEYVAL", "invalid attribute key" },
    [MPI_ERR_LOCKTYPE] = { "MPI_ERR_LOCKTYPE", "invalid locktype argument" },
    [MPI_ERR_NAME] = { "MPI_ERR_NAME", "invalid service name" },
    [MPI_ERR_NO_MEM] = { "MPI_ERR_NO_MEM", "memory exhausted" },
    [MPI_ERR_NOT_SAME] = { "MPI_ERR_NOT_SAME", "collective argument not identical on all processes" },
    [MPI_ERR_NO_SPACE] = { "MPI_ERR_NO_SPACE", "not enough space" },
    [MPI_ERR_NO_SUCH_FILE] = { "MPI_ERR_NO_SUCH_FILE", "file does not exist" },
    [MPI_ERR_PORT] = { "MPI_ERR_PORT", "invalid port name" },
    [MPI_ERR_QUOTA] = { "MPI_ERR_QUOTA", "quota exceeded" },
    [MPI_ERR_READ_ONLY] = { "MPI_ERR_READ_ONLY", "read-only file or file system" },
    [MPI_ERR_RMA_ATTACH] = { "MPI_ERR_RMA_ATTACH", "memory cannot be attached" },
    [MPI_ERR_RMA_CONFLICT] = { "MPI_ERR_RMA_CONFLICT", "conflicting accesses to window" },
    [MPI_ERR_RMA_RANGE] = { "MPI_ERR_RMA_RANGE", "target memory is not part of the window" },
    [MPI_ERR_RMA_SHARED] = { "MPI_ERR_RMA_SHARED", "memory cannot be shared" },
    [MPI_ERR_RMA_SYNC] = { "MPI_ERR_RMA_SYNC", "wrong synchronization of RMA calls" },
    [MPI_ERR_SERVICE] = { "MPI_ERR_SERVICE", "invalid service name" },
    [MPI_ERR_SIZE] = { "MPI_ERR_SIZE", "invalid size argument" },
    [MPI_ERR_SPAWN] = { "MPI_ERR_SPAWN", "error in spawning processes" },
    [MPI_ERR_UNSUPPORTED_DATAREP] = { "MPI_ERR_UNSUPPORTED_DATAREP", "unsupported data representation" },
    [MPI_ERR_UNSUPPORTED_OPERATION] = { "MPI_ERR_UNSUPPORTED_OPERATION", "unsupported operation" },
    [MPI_ERR_WIN] = { "MPI_ERR_WIN", "invalid window argument" },
    [MPI_ERR_RMA_FLAVOR] = { "MPI_ERR_RMA_FLAVOR", "wrong window flavor" },
    [MPI_ERR_PROC_ABORTED] = { "MPI_ERR_PROC_ABORTED", "a process that took part in the operation has aborted" },
    [MPI_ERR_VALUE_TOO_LARGE] = { "MPI_ERR_VALUE_TOO_LARGE", "value too large to be stored" },
    [MPI_ERR_SESSION] = { "MPI_ERR_SESSION", "invalid session argument" },
    [MPI_ERR_ERRHANDLER] = { "MPI_ERR_ERRHANDLER", "invalid error handler" },
};

#define N_CLASSES ((int)(sizeof(classes) / sizeof(classes[0])))

/* The values the program added; value MPI_ERR_LASTCODE + 1 + i is added[i]. */
struct added {
    int cls;       /* Its class (itself for a class); 0 once removed. */
    int ncodes;    /* A class's codes that remain. */
    char *string;  /* MPI_Add_error_string's text, or NULL. */
};

static struct added *added;
static int nadded, capadded;

static struct added *added_entry(int code)
{
    long i = (long)code - MPI_ERR_LASTCODE - 1;
    return i >= 0 && i < nadded && added[i].cls ? &added[i] : NULL;
}

static int predefined(int cls)
{
    return cls >= 0 && cls < N_CLASSES && classes[cls].name != NULL;
}

int tern_errclass_valid(int code)
{
    return predefined(code) || added_entry(code) != NULL;
}

int tern_errclass_of(int code)
{
    const struct added *a = added_entry(code);
    return a ? a->cls : code;
}

int tern_errclass_is_added_class(int code)
{
    const struct added *a = added_entry(code);
    return a && a->cls == code;
}

int tern_errclass_is_added_code(int code)
{
    const struct added *a = added_entry(code);
    return a && a->cls != code;
}

int tern_errclass_has_string(int code)
{
    const struct added *a = added_entry(code);
    return a && a->string;
}

int tern_errclass_codes_of(int cls)
{
    const struct added *a = added_entry(cls);
    return a ? a->ncodes : 0;
}

int tern_errclass_add(int cls, int *value)
{
    if (nadded == capadded) {
        int cap = capadded ? 2 * capadded : 16;
        struct added *grown = realloc(added, (size_t)cap * sizeof *grown);
        if (!grown)
            return TERN_ENOMEM;
        added = grown;
        capadded = cap;
    }
    int v = MPI_ERR_LASTCODE + 1 + nadded;
    added[nadded++] = (struct added){ .cls = cls < 0 ? v : cls };
    struct added *owner = added_entry(cls);
    if (cls >= 0 && owner)
        owner->ncodes++;
    *value = v;
    return 0;
}

int tern_errclass_set_string(int code, const char *s)
{
    struct added *a = added_entry(code);
    char *copy = NULL;
    if (s && !(copy = strdup(s)))
        return TERN_ENOMEM;
    free(a->string);
    a->string = copy;
    return 0;
}

void tern_errclass_remove(int code)
{
    struct added *a = added_entry(code);
    struct added *owner = a->cls != code ? added_entry(a->cls) : NULL;
    if (owner)
        owner->ncodes--;
    free(a->string);
    a->string = NULL;
    a->cls = 0;
}

int tern_errclass_last(void)
{
    for (int i = nadded - 1; i >= 0; i--)
        if (added[i].cls == MPI_ERR_LASTCODE + 1 + i)
            return added[i].cls;
    return MPI_ERR_LASTCODE;
}

const char *tern_errclass_name(int code)
{
    if (added_entry(code))
        return tern_errclass_is_added_class(code) ? "an error class the program added"
                                                  : "an error code the program added";
    return predefined(code) ? classes[code].name : "MPI_ERR_UNKNOWN";
}

const char *tern_errclass_text(int code)
{
    const struct added *a = added_entry(code);
    if (a)
        return a->string ? a->string : "";
    return predefined(code) ? classes[code].text : "unknown error class";
}
