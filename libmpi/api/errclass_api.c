/*
 * Error classes, codes and strings: MPI_Error_class and MPI_Error_string,
 * and the ones the program adds (MPI_Add_error_class, _code, _string) and
 * removes (MPI 4.1's MPI_Remove_error_class, _code, _string). The values
 * and strings live in libmpi/core/errclass.c; this layer checks that each
 * call names what the standard allows it to.
 */
#include <stdio.h>
#include <string.h>

#include "libmpi/api/api.h"
#include "libmpi/core/errclass.h"
#include "tern/err.h"

/* Whether `code` is one MPI_Add_error_class or MPI_Add_error_code returned
 * (and was not removed); else says why not, for the parameter `param`. */
static int check_added(int code, const char *param)
{
    if (tern_errclass_is_added_class(code) || tern_errclass_is_added_code(code))
        return 0;
    if (tern_errclass_valid(code))
        tern_api_detail("%s %d is a predefined error class, which the program cannot "
                        "change", param, code);
    else
        tern_api_detail("%s %d is neither an error class that MPI_Add_error_class returned "
                        "nor an error code that MPI_Add_error_code returned (or it was "
                        "removed since)", param, code);
    return TERN_EARG;
}

#pragma weak MPI_Error_class = PMPI_Error_class
int PMPI_Error_class(int errorcode, int *errorclass)
{
    int rc = tern_check_ptr(errorclass, "errorclass");
    if (!rc && !tern_errclass_valid(errorcode)) {
        tern_api_detail("invalid error code %d", errorcode);
        rc = TERN_EARG;
    }
    if (rc)
        return tern_api_error(NULL, "MPI_Error_class", rc);
    *errorclass = tern_errclass_of(errorcode);
    return MPI_SUCCESS;
}

#pragma weak MPI_Error_string = PMPI_Error_string
int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    int rc = tern_check_ptr(string, "string");
    if (!rc)
        rc = tern_check_ptr(resultlen, "resultlen");
    if (!rc && !tern_errclass_valid(errorcode)) {
        tern_api_detail("invalid error code %d", errorcode);
        rc = TERN_EARG;
    }
    if (rc)
        return tern_api_error(NULL, "MPI_Error_string", rc);
    /* An added value's string is the program's own, "" if it gave none. */
    if (tern_errclass_is_added_class(errorcode) || tern_errclass_is_added_code(errorcode))
        snprintf(string, MPI_MAX_ERROR_STRING, "%s", tern_errclass_text(errorcode));
    else
        snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s", tern_errclass_name(errorcode),
                 tern_errclass_text(errorcode));
    *resultlen = (int)strlen(string);
    return MPI_SUCCESS;
}

#pragma weak MPI_Add_error_class = PMPI_Add_error_class
int PMPI_Add_error_class(int *errorclass)
{
    int rc = tern_check_ptr(errorclass, "errorclass");
    if (!rc)
        rc = tern_errclass_add(-1, errorclass);
    return rc ? tern_api_error(NULL, "MPI_Add_error_class", rc) : MPI_SUCCESS;
}

#pragma weak MPI_Add_error_code = PMPI_Add_error_code
int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    int rc = tern_check_ptr(errorcode, "errorcode");
    if (!rc && (errorclass == MPI_SUCCESS || !tern_errclass_valid(errorclass) ||
                tern_errclass_of(errorclass) != errorclass)) {
        tern_api_detail("errorclass %d is not an error class: pass a predefined class other "
                        "than MPI_SUCCESS, or one that MPI_Add_error_class returned (the class "
                        "of an error code is what MPI_Error_class gives)", errorclass);
        rc = TERN_EARG;
    }
    if (!rc)
        rc = tern_errclass_add(errorclass, errorcode);
    return rc ? tern_api_error(NULL, "MPI_Add_error_code", rc) : MPI_SUCCESS;
}

#pragma weak MPI_Add_error_string = PMPI_Add_error_string
int PMPI_Add_error_string(int errorcode, const char *string)
{
    int rc = tern_check_ptr(string, "string");
    if (!rc)
        rc = check_added(errorcode, "errorcode");
    size_t len = rc ? 0 : strlen(string);
    if (!rc && len >= MPI_MAX_ERROR_STRING) {
        tern_api_detail("the string is %zu characters long; at most MPI_MAX_ERROR_STRING - 1 "
                        "(%d) fit", len, MPI_MAX_ERROR_STRING - 1);
        rc = TERN_EARG;
    }
    if (!rc)
        rc = tern_errclass_set_string(errorcode, string);
    return rc ? tern_api_error(NULL, "MPI_Add_error_string", rc) : MPI_SUCCESS;
}

#pragma weak MPI_Remove_error_class = PMPI_Remove_error_class
int PMPI_Remove_error_class(int errorclass)
{
    int rc = check_added(errorclass, "errorclass");
    if (!rc && !tern_errclass_is_added_class(errorclass)) {
        tern_api_detail("errorclass %d is an error code, not a class: remove it with "
                        "MPI_Remove_error_code", errorclass);
        rc = TERN_EARG;
    }
    int codes = rc ? 0 : tern_errclass_codes_of(errorclass);
    if (codes) {
        tern_api_detail("error class %d still has %d error code(s); the standard asks that "
                        "they be removed first (MPI_Remove_error_code)", errorclass, codes);
        rc = TERN_EARG;
    }
    if (rc)
        return tern_api_error(NULL, "MPI_Remove_error_class", rc);
    /* Its string goes with it: the standard asks only for its codes to go
     * first. */
    tern_errclass_remove(errorclass);
    return MPI_SUCCESS;
}

#pragma weak MPI_Remove_error_code = PMPI_Remove_error_code
int PMPI_Remove_error_code(int errorcode)
{
    int rc = check_added(errorcode, "errorcode");
    if (!rc && !tern_errclass_is_added_code(errorcode)) {
        tern_api_detail("errorcode %d is an error class, not a code: remove it with "
                        "MPI_Remove_error_class", errorcode);
        rc = TERN_EARG;
    }
    if (!rc && tern_errclass_has_string(errorcode)) {
        tern_api_detail("error code %d still has its string; the standard asks that it be "
                        "removed first (MPI_Remove_error_string)", errorcode);
        rc = TERN_EARG;
    }
    if (rc)
        return tern_api_error(NULL, "MPI_Remove_error_code", rc);
    tern_errclass_remove(errorcode);
    return MPI_SUCCESS;
}

#pragma weak MPI_Remove_error_string = PMPI_Remove_error_string
int PMPI_Remove_error_string(int errorcode)
{
    int rc = check_added(errorcode, "errorcode");
    if (!rc && !tern_errclass_has_string(errorcode)) {
        tern_api_detail("errorcode %d has no string (MPI_Add_error_string gives one)",
                        errorcode);
        rc = TERN_EARG;
    }
    if (!rc)
        rc = tern_errclass_set_string(errorcode, NULL);
    return rc ? tern_api_error(NULL, "MPI_Remove_error_string", rc) : MPI_SUCCESS;
}
