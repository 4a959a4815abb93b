/*
 * Unit tests of message framing (common/wire.c) over socketpairs: blocking
 * send/recv, the incremental reader fed one byte at a time, the writer's
 * queue against a full socket buffer, oversized frames and EOF.
 */
#include <CUnit/Basic.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tern/err.h"
#include "tern/wire.h"

static int sp[2];

static int setup(void)
{
    return socketpair(AF_UNIX, SOCK_STREAM, 0, sp);
}

static int teardown(void)
{
    close(sp[0]);
    close(sp[1]);
    return 0;
}

static void test_roundtrip(void)
{
    void *body;
    size_t len;
    uint32_t type;
    CU_ASSERT_EQUAL(tern_wire_send(sp[0], 42, "hello", 5), 0);
    CU_ASSERT_EQUAL(tern_wire_send(sp[0], 7, NULL, 0), 0);
    CU_ASSERT_EQUAL_FATAL(tern_wire_recv(sp[1], &type, &body, &len, 100), 0);
    CU_ASSERT_EQUAL(type, 42);
    CU_ASSERT_EQUAL(len, 5);
    CU_ASSERT_EQUAL(memcmp(body, "hello", 5), 0);
    free(body);
    CU_ASSERT_EQUAL_FATAL(tern_wire_recv(sp[1], &type, &body, &len, 100), 0);
    CU_ASSERT_EQUAL(type, 7);
    CU_ASSERT_EQUAL(len, 0);
    CU_ASSERT_PTR_NULL(body);
}

static void test_oversized(void)
{
    void *body;
    size_t len;
    uint32_t type;
    char big[300];
    memset(big, 'x', sizeof big);
    CU_ASSERT_EQUAL(tern_wire_send(sp[0], 1, big, sizeof big), 0);
    CU_ASSERT_EQUAL(tern_wire_recv(sp[1], &type, &body, &len, 100), TERN_EPROTO);
    /* Drop the unread body so the next test starts clean. */
    char sink[300];
    CU_ASSERT_EQUAL(tern_wire_read_full(sp[1], sink, sizeof sink), 0);
}

static void test_reader_bytewise(void)
{
    unsigned char frame[TERN_WIRE_HEADER + 3];
    struct tern_wire_reader r;
    tern_wire_put32(frame, 3);
    tern_wire_put32(frame + 4, 9);
    memcpy(frame + 8, "abc", 3);
    fcntl(sp[1], F_SETFL, O_NONBLOCK);
    tern_wire_reader_init(&r, 16);
    CU_ASSERT_EQUAL(tern_wire_reader_fill(&r, sp[1]), 0);
    for (size_t i = 0; i < sizeof frame; i++) {
        CU_ASSERT_EQUAL(tern_wire_reader_fill(&r, sp[1]), 0);
        CU_ASSERT_EQUAL(write(sp[0], frame + i, 1), 1);
    }
    CU_ASSERT_EQUAL_FATAL(tern_wire_reader_fill(&r, sp[1]), 1);
    CU_ASSERT_EQUAL(r.type, 9);
    CU_ASSERT_EQUAL(r.len, 3);
    CU_ASSERT_EQUAL(memcmp(r.body, "abc", 3), 0);
    tern_wire_reader_next(&r);
    tern_wire_reader_free(&r);
    fcntl(sp[1], F_SETFL, 0);
}

static void test_writer_backpressure(void)
{
    struct tern_wire_writer w;
    size_t n = 1 << 20;
    char *big = malloc(n);
    memset(big, 'y', n);
    fcntl(sp[0], F_SETFL, O_NONBLOCK);
    tern_wire_writer_init(&w);
    CU_ASSERT_EQUAL(tern_wire_writer_push(&w, 5, big, n), 0);
    CU_ASSERT_EQUAL(tern_wire_writer_flush(&w, sp[0]), 1);  /* Buffer full. */
    /* Drain on the other side while flushing until done. */
    uint32_t type;
    void *body = NULL;
    size_t len;
    pid_t pid = fork();
    if (pid == 0) {
        int rc = tern_wire_recv(sp[1], &type, &body, &len, n);
        _exit(rc == 0 && type == 5 && len == n ? 0 : 1);
    }
    int rc;
    while ((rc = tern_wire_writer_flush(&w, sp[0])) == 1)
        usleep(1000);
    CU_ASSERT_EQUAL(rc, 0);
    int status;
    waitpid(pid, &status, 0);
    CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    tern_wire_writer_free(&w);
    free(big);
    fcntl(sp[0], F_SETFL, 0);
}

static void test_eof(void)
{
    void *body;
    size_t len;
    uint32_t type;
    char half[3] = { 0, 0, 0 };
    CU_ASSERT_EQUAL(write(sp[0], half, sizeof half), 3);
    close(sp[0]);
    CU_ASSERT_EQUAL(tern_wire_recv(sp[1], &type, &body, &len, 100), TERN_EPEER);
    sp[0] = open("/dev/null", O_RDONLY);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 99;
    CU_pSuite s = CU_add_suite("wire", setup, teardown);
    CU_add_test(s, "roundtrip", test_roundtrip);
    CU_add_test(s, "oversized frame", test_oversized);
    CU_add_test(s, "reader fed bytewise", test_reader_bytewise);
    CU_add_test(s, "writer under backpressure", test_writer_backpressure);
    CU_add_test(s, "eof mid-frame", test_eof);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
