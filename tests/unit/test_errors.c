/*
 * The error tables: every internal code has a valid MPI class and a
 * message; the class names match the header's values.
 */
#include <string.h>

#include <mpi.h>

#include "libmpi/core/errclass.h"
#include "tern/err.h"
#include "tests/unit/cunit_main.h"

static void test_codes(void)
{
    CU_ASSERT_EQUAL(tern_err_class(0), MPI_SUCCESS);
    for (int code = -1; code > -TERN_E_COUNT_; code--) {
        CU_ASSERT(tern_errclass_valid(tern_err_class(code)));
        CU_ASSERT(tern_err_class(code) != MPI_SUCCESS);
        CU_ASSERT(strlen(tern_err_message(code)) > 0);
    }
    CU_ASSERT_EQUAL(tern_err_class(TERN_ECOUNT), MPI_ERR_COUNT);
    CU_ASSERT_EQUAL(tern_err_class(TERN_ETRUNCATE), MPI_ERR_TRUNCATE);
    CU_ASSERT_EQUAL(tern_err_class(TERN_ENOTSUP), MPI_ERR_UNSUPPORTED_OPERATION);
    /* Out-of-range codes fall back to an internal error, never crash. */
    CU_ASSERT_EQUAL(tern_err_class(-1000), MPI_ERR_INTERN);
    CU_ASSERT_EQUAL(tern_err_class(5), MPI_ERR_INTERN);
}

static void test_classes(void)
{
    CU_ASSERT_STRING_EQUAL(tern_errclass_name(MPI_ERR_TRUNCATE), "MPI_ERR_TRUNCATE");
    CU_ASSERT_STRING_EQUAL(tern_errclass_name(MPI_ERR_ERRHANDLER), "MPI_ERR_ERRHANDLER");
    CU_ASSERT_STRING_EQUAL(tern_errclass_name(MPI_ERR_UNSUPPORTED_OPERATION),
                           "MPI_ERR_UNSUPPORTED_OPERATION");
    for (int c = 0; c <= MPI_ERR_ERRHANDLER; c++)
        CU_ASSERT(tern_errclass_valid(c));
    CU_ASSERT(!tern_errclass_valid(-1));
    CU_ASSERT(!tern_errclass_valid(MPI_ERR_LASTCODE));
}

int main(void)
{
    static const struct cunit_test tests[] = {
        { "internal codes map to MPI classes", test_codes },
        { "class names", test_classes },
        { NULL, NULL },
    };
    return cunit_run("error tables", tests);
}
