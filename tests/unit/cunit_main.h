/*
 * A main() for CUnit test programs: runs the suite given by the including
 * file with the basic interface and exits non-zero if anything failed.
 */
#ifndef TERN_CUNIT_MAIN_H
#define TERN_CUNIT_MAIN_H

#include <CUnit/Basic.h>

struct cunit_test {
    const char *name;
    void (*fn)(void);
};

static int cunit_run(const char *suite_name, const struct cunit_test *tests)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite suite = CU_add_suite(suite_name, NULL, NULL);
    for (const struct cunit_test *t = tests; t->name; t++)
        CU_add_test(suite, t->name, t->fn);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}

#endif
