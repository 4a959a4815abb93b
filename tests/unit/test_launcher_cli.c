/*
 * Unit tests of mpirun's command-line parser (launcher/cli.c). Parsing is
 * pure, so each case is argv in, struct tern_cli or one error line out.
 * Host entries themselves are tested in test_hostfile.c.
 */
#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/launcher.h"
#include "tern/err.h"

static char err[512];

/* Parses a NULL-terminated list of words (argv[0] is "mpirun"). */
static int parse(struct tern_cli *cli, const char **words)
{
    int argc = 0;
    while (words[argc])
        argc++;
    err[0] = '\0';
    return tern_cli_parse(argc, (char **)words, cli, err, sizeof err);
}

static void test_basic(void)
{
    struct tern_cli c;
    const char *w[] = { "mpirun", "-np", "4", "--tag-output", "./a.out", "-v", "x", NULL };
    CU_ASSERT_EQUAL(parse(&c, w), 0);
    CU_ASSERT_EQUAL(c.np, 4);
    CU_ASSERT_EQUAL(c.tag_output, 1);
    CU_ASSERT_EQUAL(c.verbose, 0);  /* "-v" after the program is its own. */
    CU_ASSERT_EQUAL(c.argc, 3);
    CU_ASSERT_STRING_EQUAL(c.argv[0], "./a.out");
    CU_ASSERT_STRING_EQUAL(c.argv[1], "-v");
    tern_cli_free(&c);
}

static void test_all_options(void)
{
    struct tern_cli c;
    const char *w[] = { "mpirun", "-n", "3", "--timeout=7", "-x", "A", "-x", "B=1=2",
                        "--wdir", "/tmp", "--oversubscribe", "-H", "localhost,vm:2",
                        "--host", "127.0.0.1", "--hostfile", "hf", "-v", "--verbose",
                        "--", "-prog", NULL };
    CU_ASSERT_EQUAL_FATAL(parse(&c, w), 0);
    CU_ASSERT_EQUAL(c.np, 3);
    CU_ASSERT_EQUAL(c.timeout, 7);
    CU_ASSERT_EQUAL_FATAL(c.n_env, 2);
    CU_ASSERT_STRING_EQUAL(c.env[0], "A");
    CU_ASSERT_STRING_EQUAL(c.env[1], "B=1=2");
    CU_ASSERT_STRING_EQUAL(c.wdir, "/tmp");
    CU_ASSERT_EQUAL(c.oversubscribe, 1);
    /* Each -H value is kept whole, for hostfile.c to parse and quote. */
    CU_ASSERT_EQUAL_FATAL(c.n_hosts, 2);
    CU_ASSERT_STRING_EQUAL(c.hosts[0], "localhost,vm:2");
    CU_ASSERT_STRING_EQUAL(c.hosts[1], "127.0.0.1");
    CU_ASSERT_STRING_EQUAL(c.hostfile, "hf");
    CU_ASSERT_EQUAL(c.verbose, 2);
    CU_ASSERT_EQUAL(c.argc, 1);
    CU_ASSERT_STRING_EQUAL(c.argv[0], "-prog");
    tern_cli_free(&c);
}

static void test_errors(void)
{
    struct tern_cli c;
    const char *bad_np[] = { "mpirun", "-np", "zero", "a", NULL };
    const char *neg_np[] = { "mpirun", "-np", "-2", "a", NULL };
    const char *missing[] = { "mpirun", "-np", NULL };
    const char *unknown[] = { "mpirun", "--frobnicate", "a", NULL };
    const char *noprog[] = { "mpirun", "-np", "2", NULL };
    const char *badx[] = { "mpirun", "-x", "=v", "a", NULL };
    const char *badt[] = { "mpirun", "--timeout", "1s", "a", NULL };
    CU_ASSERT_EQUAL(parse(&c, bad_np), TERN_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "zero"));
    tern_cli_free(&c);
    CU_ASSERT_EQUAL(parse(&c, neg_np), TERN_EINVAL);
    tern_cli_free(&c);
    CU_ASSERT_EQUAL(parse(&c, missing), TERN_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "needs a value"));
    tern_cli_free(&c);
    CU_ASSERT_EQUAL(parse(&c, unknown), TERN_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--frobnicate"));
    tern_cli_free(&c);
    CU_ASSERT_EQUAL(parse(&c, noprog), TERN_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no program"));
    tern_cli_free(&c);
    CU_ASSERT_EQUAL(parse(&c, badx), TERN_EINVAL);
    tern_cli_free(&c);
    CU_ASSERT_EQUAL(parse(&c, badt), TERN_EINVAL);
    tern_cli_free(&c);
}

static void test_help_version(void)
{
    struct tern_cli c;
    const char *h[] = { "mpirun", "--help", NULL };
    const char *v[] = { "mpiexec", "-V", NULL };
    CU_ASSERT_EQUAL(parse(&c, h), 0);
    CU_ASSERT_EQUAL(c.help, 1);
    tern_cli_free(&c);
    CU_ASSERT_EQUAL(parse(&c, v), 0);
    CU_ASSERT_EQUAL(c.version, 1);
    tern_cli_free(&c);
}

static void test_map_by(void)
{
    struct tern_cli c;
    const char *node[] = { "mpirun", "--map-by", "node", "a", NULL };
    const char *slot[] = { "mpirun", "--map-by=slot", "a", NULL };
    const char *dflt[] = { "mpirun", "a", NULL };
    const char *bad[] = { "mpirun", "--map-by", "socket", "a", NULL };
    CU_ASSERT_EQUAL(parse(&c, node), 0);
    CU_ASSERT_EQUAL(c.map_by_node, 1);
    tern_cli_free(&c);
    CU_ASSERT_EQUAL(parse(&c, slot), 0);
    CU_ASSERT_EQUAL(c.map_by_node, 0);
    tern_cli_free(&c);
    CU_ASSERT_EQUAL(parse(&c, dflt), 0);
    CU_ASSERT_EQUAL(c.map_by_node, 0);
    tern_cli_free(&c);
    CU_ASSERT_EQUAL(parse(&c, bad), TERN_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--map-by 'socket'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--map-by node"));
    tern_cli_free(&c);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 99;
    CU_pSuite s = CU_add_suite("launcher_cli", NULL, NULL);
    CU_add_test(s, "basic", test_basic);
    CU_add_test(s, "all options", test_all_options);
    CU_add_test(s, "errors", test_errors);
    CU_add_test(s, "help and version", test_help_version);
    CU_add_test(s, "map-by", test_map_by);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
