/*
 * Unit tests of the job-secret handshake (common/auth.c): both sides with
 * the same secret succeed; a wrong secret on either side fails on both; a
 * peer that sends garbage, closes early or stays silent fails with the
 * right code and within the timeout; secrets round-trip through hex.
 */
#include <CUnit/Basic.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tern/auth.h"
#include "tern/err.h"

struct side {
    int fd;
    const unsigned char *secret;
    int rc;
};

static void *server(void *arg)
{
    struct side *s = arg;
    s->rc = tern_auth_server(s->fd, s->secret, 2000);
    return NULL;
}

/* Runs a handshake between client and server secrets; returns both codes. */
static void handshake(const unsigned char *cs, const unsigned char *ss, int *crc, int *src)
{
    int sp[2];
    pthread_t t;
    CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
    struct side s = { sp[1], ss, 0 };
    pthread_create(&t, NULL, server, &s);
    *crc = tern_auth_client(sp[0], cs, 2000);
    /* A failed client closes, so the server never waits for the timeout. */
    close(sp[0]);
    pthread_join(t, NULL);
    *src = s.rc;
    close(sp[1]);
}

static void test_good(void)
{
    unsigned char k[TERN_AUTH_SECRET_LEN];
    int c, s;
    CU_ASSERT_EQUAL(tern_auth_secret_new(k), 0);
    handshake(k, k, &c, &s);
    CU_ASSERT_EQUAL(c, 0);
    CU_ASSERT_EQUAL(s, 0);
}

static void test_wrong_secret(void)
{
    unsigned char a[TERN_AUTH_SECRET_LEN], b[TERN_AUTH_SECRET_LEN];
    int c, s;
    tern_auth_secret_new(a);
    memcpy(b, a, sizeof b);
    b[31] ^= 1;
    handshake(a, b, &c, &s);
    CU_ASSERT_NOT_EQUAL(c, 0);
    CU_ASSERT_EQUAL(s, TERN_EAUTH);
}

static void test_garbage_and_eof(void)
{
    unsigned char k[TERN_AUTH_SECRET_LEN];
    int sp[2];
    pthread_t t;
    tern_auth_secret_new(k);
    /* Garbage of the right length: a wrong MAC. */
    socketpair(AF_UNIX, SOCK_STREAM, 0, sp);
    struct side s = { sp[1], k, 0 };
    pthread_create(&t, NULL, server, &s);
    char junk[TERN_AUTH_CHALLENGE_LEN + TERN_AUTH_RESPONSE_LEN];
    memset(junk, 'G', sizeof junk);
    CU_ASSERT_EQUAL(write(sp[0], junk, TERN_AUTH_RESPONSE_LEN), TERN_AUTH_RESPONSE_LEN);
    pthread_join(t, NULL);
    CU_ASSERT_EQUAL(s.rc, TERN_EAUTH);
    close(sp[0]);
    close(sp[1]);
    /* Connect, then close: the server sees the peer go. */
    socketpair(AF_UNIX, SOCK_STREAM, 0, sp);
    s.fd = sp[1];
    pthread_create(&t, NULL, server, &s);
    close(sp[0]);
    pthread_join(t, NULL);
    CU_ASSERT_EQUAL(s.rc, TERN_EPEER);
    close(sp[1]);
    /* A client talking to a server that sends a wrong magic. */
    socketpair(AF_UNIX, SOCK_STREAM, 0, sp);
    CU_ASSERT_EQUAL(write(sp[1], junk, TERN_AUTH_CHALLENGE_LEN), TERN_AUTH_CHALLENGE_LEN);
    CU_ASSERT_EQUAL(tern_auth_client(sp[0], k, 1000), TERN_EAUTH);
    close(sp[0]);
    close(sp[1]);
}

static void test_timeout(void)
{
    unsigned char k[TERN_AUTH_SECRET_LEN];
    int sp[2];
    struct timespec a, b;
    tern_auth_secret_new(k);
    socketpair(AF_UNIX, SOCK_STREAM, 0, sp);
    clock_gettime(CLOCK_MONOTONIC, &a);
    CU_ASSERT_EQUAL(tern_auth_server(sp[1], k, 200), TERN_ETIMEDOUT);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ms = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
    CU_ASSERT_TRUE(ms >= 150 && ms < 1000);
    close(sp[0]);
    close(sp[1]);
}

static void test_hex(void)
{
    unsigned char k[TERN_AUTH_SECRET_LEN], back[TERN_AUTH_SECRET_LEN];
    char hex[TERN_AUTH_SECRET_HEX];
    tern_auth_secret_new(k);
    tern_auth_hex(k, sizeof k, hex);
    CU_ASSERT_EQUAL(strlen(hex), 64);
    CU_ASSERT_EQUAL(tern_auth_secret_parse(hex, back), 0);
    CU_ASSERT_EQUAL(memcmp(k, back, sizeof k), 0);
    CU_ASSERT_EQUAL(tern_auth_secret_parse("abc", back), TERN_EINVAL);
    hex[5] = 'z';
    CU_ASSERT_EQUAL(tern_auth_secret_parse(hex, back), TERN_EINVAL);
    CU_ASSERT_EQUAL(tern_auth_secret_parse(NULL, back), TERN_EINVAL);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 99;
    CU_pSuite s = CU_add_suite("auth", NULL, NULL);
    CU_add_test(s, "same secret", test_good);
    CU_add_test(s, "wrong secret", test_wrong_secret);
    CU_add_test(s, "garbage, eof, bad magic", test_garbage_and_eof);
    CU_add_test(s, "silent peer times out", test_timeout);
    CU_add_test(s, "hex round trip", test_hex);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
