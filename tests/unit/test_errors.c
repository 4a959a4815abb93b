/*
 * The error tables: every internal code has a valid MPI class and a
 * message; the class names match the header's values; classes, codes and
 * strings that the program adds are numbered, looked up and removed as
 * errclass.h says.
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
    /* A positive code is the program's own MPI code, handed on. */
    CU_ASSERT_EQUAL(tern_err_class(MPI_ERR_OTHER), MPI_ERR_OTHER);
    CU_ASSERT(strlen(tern_err_message(MPI_ERR_OTHER)) > 0);
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

static void test_added(void)
{
    int cls, code, other, cls2;
    CU_ASSERT_EQUAL(tern_errclass_last(), MPI_ERR_LASTCODE);
    CU_ASSERT_EQUAL(tern_errclass_add(-1, &cls), 0);
    CU_ASSERT_EQUAL(cls, MPI_ERR_LASTCODE + 1);
    CU_ASSERT_EQUAL(tern_errclass_add(cls, &code), 0);
    CU_ASSERT_EQUAL(tern_errclass_add(MPI_ERR_OTHER, &other), 0);
    CU_ASSERT_EQUAL(tern_errclass_add(-1, &cls2), 0);
    CU_ASSERT(code == cls + 1 && other == cls + 2 && cls2 == cls + 3);
    CU_ASSERT_EQUAL(tern_errclass_last(), cls2);
    CU_ASSERT(tern_errclass_is_added_class(cls) && !tern_errclass_is_added_code(cls));
    CU_ASSERT(tern_errclass_is_added_code(code) && !tern_errclass_is_added_class(code));
    CU_ASSERT_EQUAL(tern_errclass_of(code), cls);
    CU_ASSERT_EQUAL(tern_errclass_of(other), MPI_ERR_OTHER);
    CU_ASSERT_EQUAL(tern_errclass_codes_of(cls), 1);
    CU_ASSERT_STRING_EQUAL(tern_errclass_text(code), "");
    CU_ASSERT_EQUAL(tern_errclass_set_string(code, "mine"), 0);
    CU_ASSERT(tern_errclass_has_string(code));
    CU_ASSERT_STRING_EQUAL(tern_errclass_text(code), "mine");
    tern_errclass_remove(code);
    CU_ASSERT(!tern_errclass_valid(code));
    CU_ASSERT_EQUAL(tern_errclass_codes_of(cls), 0);
    tern_errclass_remove(cls2);
    CU_ASSERT_EQUAL(tern_errclass_last(), cls);
    CU_ASSERT(tern_errclass_valid(cls) && tern_errclass_valid(other));
}

int main(void)
{
    static const struct cunit_test tests[] = {
        { "internal codes map to MPI classes", test_codes },
        { "class names", test_classes },
        { "added classes, codes and strings", test_added },
        { NULL, NULL },
    };
    return cunit_run("error tables", tests);
}
