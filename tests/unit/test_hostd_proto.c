/*
 * Unit tests of the mpirun <-> tern-hostd JOB message (launcher/
 * hostd_proto.c) and the shared preflight (launcher/preflight.c): a round
 * trip keeps every field; every truncation, trailing garbage, inflated
 * counts and embedded NULs are TERN_EPROTO; the program lookup follows
 * execvp's rules and names the cause.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/hostd_proto.h"
#include "cunit_main.h"
#include "tern/err.h"
#include "tern/wire.h"

static char *argv0[] = { "./prog", "a b", "", NULL };
static char *env0[] = { "TERN_RANK=3", "X=y=z", NULL };
static char *env1[] = { "TERN_RANK=5", NULL };

static void sample(struct tern_hostd_job *j, struct tern_hostd_rank *r)
{
    memset(j, 0, sizeof *j);
    j->version = TERN_HOSTD_VERSION;
    j->host = "h2";
    j->wdir = "/tmp/work";
    j->wdir_explicit = 1;
    j->grace_ms = 1000;
    j->keepalive_ms = 2000;
    j->timeout_ms = 10000;
    j->stdin_rank = -1;
    j->local_size = 2;
    j->argc = 3;
    j->argv = argv0;
    j->nranks = 2;
    r[0] = (struct tern_hostd_rank){ 3, 0, 2, env0 };
    r[1] = (struct tern_hostd_rank){ 5, 1, 1, env1 };
    j->ranks = r;
}

static void test_roundtrip(void)
{
    struct tern_hostd_job j, d;
    struct tern_hostd_rank r[2];
    unsigned char *b;
    size_t len;
    sample(&j, r);
    CU_ASSERT_EQUAL_FATAL(tern_hostd_job_encode(&j, &b, &len), 0);
    CU_ASSERT_EQUAL_FATAL(tern_hostd_job_decode(b, len, &d), 0);
    CU_ASSERT_STRING_EQUAL(d.host, "h2");
    CU_ASSERT_STRING_EQUAL(d.wdir, "/tmp/work");
    CU_ASSERT_EQUAL(d.wdir_explicit, 1);
    CU_ASSERT_EQUAL(d.grace_ms, 1000);
    CU_ASSERT_EQUAL(d.keepalive_ms, 2000);
    CU_ASSERT_EQUAL(d.timeout_ms, 10000);
    CU_ASSERT_EQUAL(d.stdin_rank, -1);
    CU_ASSERT_EQUAL(d.argc, 3);
    CU_ASSERT_STRING_EQUAL(d.argv[1], "a b");
    CU_ASSERT_STRING_EQUAL(d.argv[2], "");
    CU_ASSERT_PTR_NULL(d.argv[3]);
    CU_ASSERT_EQUAL_FATAL(d.nranks, 2);
    CU_ASSERT_EQUAL(d.ranks[1].rank, 5);
    CU_ASSERT_EQUAL(d.ranks[1].local_rank, 1);
    CU_ASSERT_EQUAL(d.ranks[0].n_env, 2);
    CU_ASSERT_STRING_EQUAL(d.ranks[0].env[1], "X=y=z");
    CU_ASSERT_PTR_NULL(d.ranks[0].env[2]);
    tern_hostd_job_free(&d);
    j.stdin_rank = 3;
    free(b);
    CU_ASSERT_EQUAL_FATAL(tern_hostd_job_encode(&j, &b, &len), 0);
    CU_ASSERT_EQUAL_FATAL(tern_hostd_job_decode(b, len, &d), 0);
    CU_ASSERT_EQUAL(d.stdin_rank, 3);
    tern_hostd_job_free(&d);
    free(b);
}

static void test_truncated_and_garbage(void)
{
    struct tern_hostd_job j, d;
    struct tern_hostd_rank r[2];
    unsigned char *b;
    size_t len;
    sample(&j, r);
    CU_ASSERT_EQUAL_FATAL(tern_hostd_job_encode(&j, &b, &len), 0);
    for (size_t n = 0; n < len; n++)
        CU_ASSERT_EQUAL(tern_hostd_job_decode(b, n, &d), TERN_EPROTO);
    unsigned char *longer = malloc(len + 1);
    memcpy(longer, b, len);
    longer[len] = 0;
    CU_ASSERT_EQUAL(tern_hostd_job_decode(longer, len + 1, &d), TERN_EPROTO);
    free(longer);
    /* The host string's length claims far more than the body holds. */
    tern_wire_put32(b + 4, 0x7fffffff);
    CU_ASSERT_EQUAL(tern_hostd_job_decode(b, len, &d), TERN_EPROTO);
    free(b);
}

static void test_hostile_fields(void)
{
    struct tern_hostd_job j, d;
    struct tern_hostd_rank r[2];
    unsigned char *b;
    size_t len;
    sample(&j, r);
    /* A NUL inside a string would cut an argument short: refused. */
    CU_ASSERT_EQUAL_FATAL(tern_hostd_job_encode(&j, &b, &len), 0);
    /* Find "./prog" and put a NUL into it. */
    unsigned char *p = memmem(b, len, "./prog", 6);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    p[2] = '\0';
    CU_ASSERT_EQUAL(tern_hostd_job_decode(b, len, &d), TERN_EPROTO);
    free(b);
    /* nranks must equal local_size, argc must be at least 1. */
    j.local_size = 3;
    CU_ASSERT_EQUAL_FATAL(tern_hostd_job_encode(&j, &b, &len), 0);
    CU_ASSERT_EQUAL(tern_hostd_job_decode(b, len, &d), TERN_EPROTO);
    free(b);
    j.local_size = 2;
    j.argc = 0;
    CU_ASSERT_EQUAL_FATAL(tern_hostd_job_encode(&j, &b, &len), 0);
    CU_ASSERT_EQUAL(tern_hostd_job_decode(b, len, &d), TERN_EPROTO);
    free(b);
    /* A huge rank count in a small body is refused before allocating. */
    unsigned char small[64] = { 0 };
    tern_wire_put32(small, TERN_HOSTD_VERSION);
    tern_wire_put32(small + 40, 1);              /* argc */
    tern_wire_put32(small + 48, 1u << 20);       /* nranks */
    CU_ASSERT_EQUAL(tern_hostd_job_decode(small, sizeof small, &d), TERN_EPROTO);
}

static char dir[] = "/tmp/tern-preflight-XXXXXX";

static void put_file(const char *name, int mode)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("#!/bin/sh\n", f);
    fclose(f);
    chmod(path, (mode_t)mode);
}

static void test_preflight(void)
{
    char err[1024], path[300];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    put_file("runme", 0755);
    put_file("noexec", 0644);
    snprintf(path, sizeof path, "%s/sub", dir);
    mkdir(path, 0755);
    CU_ASSERT_EQUAL(tern_preflight_program(dir, "./runme", "/nonexistent", err,
                                           sizeof err), 0);
    CU_ASSERT_EQUAL(tern_preflight_program(dir, "runme", "/nonexistent", err,
                                           sizeof err), TERN_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot find the program 'runme'"));
    CU_ASSERT_EQUAL(tern_preflight_program("/", "runme", dir, err, sizeof err), 0);
    /* An empty PATH entry is the working directory. */
    CU_ASSERT_EQUAL(tern_preflight_program(dir, "runme", "/nonexistent:", err,
                                           sizeof err), 0);
    CU_ASSERT_EQUAL(tern_preflight_program(dir, "./noexec", "", err, sizeof err),
                    TERN_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "Permission denied"));
    CU_ASSERT_EQUAL(tern_preflight_program(dir, "noexec", dir, err, sizeof err),
                    TERN_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "as an executable file"));
    CU_ASSERT_EQUAL(tern_preflight_program(dir, "./sub", "", err, sizeof err),
                    TERN_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "not a regular file"));
    CU_ASSERT_EQUAL(tern_preflight_program(NULL, "/bin/sh", "", err, sizeof err), 0);
    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    CU_ASSERT_EQUAL(system(path), 0);
}

int main(void)
{
    static const struct cunit_test tests[] = {
        { "round trip", test_roundtrip },
        { "truncated and trailing bytes", test_truncated_and_garbage },
        { "hostile fields", test_hostile_fields },
        { "preflight", test_preflight },
        { NULL, NULL }
    };
    return cunit_run("hostd_proto", tests);
}
