/*
 * The TCP transport's framed writes (transports/tcp/conn.c) over a
 * socketpair whose sending side has a small buffer: a packet that does not
 * fit is partly written, its retries go on from where the socket stopped,
 * also when the p2p core offers the same bytes from another address (as
 * after tern_p2p_abandon moved a send to a copy; that wedged the
 * connection for good), and another packet waits its turn.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cunit_main.h"
#include "tern/err.h"
#include "tern/wire.h"
#include "transports/tcp/tcp.h"

#define LEN (256 * 1024)

/* Reads what the socket has into buf at *got (at most cap). */
static void drain(int fd, unsigned char *buf, size_t cap, size_t *got)
{
    for (;;) {
        ssize_t n = read(fd, buf + *got, cap - *got);
        if (n <= 0)
            return;
        *got += (size_t)n;
    }
}

static void test_partial_write_moved_payload(void)
{
    int sv[2];
    CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    int small = 4096;
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    struct tcp_conn *c = tern_tcp_conn_new(sv[0], CONN_READY, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);

    unsigned char *a = malloc(LEN), *b = malloc(LEN), *in = malloc(2 * LEN);
    CU_ASSERT_FATAL(a && b && in);
    for (size_t i = 0; i < LEN; i++)
        a[i] = (unsigned char)(i * 7 + 3);
    memcpy(b, a, LEN);
    const uint64_t hdr[2] = { 0x1111, 0x2222 }, other[2] = { 0x3333, 0x4444 };

    CU_ASSERT_EQUAL(tern_tcp_conn_send(c, hdr, sizeof hdr, a, LEN), TERN_EAGAIN);
    CU_ASSERT_EQUAL(c->wpending, 1);
    /* Another packet waits until this one is out. */
    CU_ASSERT_EQUAL(tern_tcp_conn_send(c, other, sizeof other, NULL, 0), TERN_EAGAIN);
    /* The same packet from another address, after the first is freed. */
    memset(a, 0, LEN);
    size_t got = 0;
    int rc = TERN_EAGAIN;
    for (int tries = 0; rc == TERN_EAGAIN && tries < 100000; tries++) {
        drain(sv[1], in, 2 * LEN, &got);
        rc = tern_tcp_conn_send(c, hdr, sizeof hdr, b, LEN);
    }
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(c->wpending, 0);
    CU_ASSERT_EQUAL(tern_tcp_conn_send(c, other, sizeof other, NULL, 0), 0);
    drain(sv[1], in, 2 * LEN, &got);

    /* Frame: length, header length, header, payload, padding; then the
     * second frame. */
    size_t first = TCP_FRAME_HDR + sizeof hdr + LEN;
    first += tcp_pad(first);
    CU_ASSERT_EQUAL(got, first + TCP_FRAME_HDR + sizeof other);
    CU_ASSERT_EQUAL(tern_wire_get32(in), sizeof hdr + LEN);
    CU_ASSERT_EQUAL(tern_wire_get32(in + 4), sizeof hdr);
    CU_ASSERT(memcmp(in + TCP_FRAME_HDR, hdr, sizeof hdr) == 0);
    CU_ASSERT(memcmp(in + TCP_FRAME_HDR + sizeof hdr, b, LEN) == 0);
    CU_ASSERT(memcmp(in + first + TCP_FRAME_HDR, other, sizeof other) == 0);

    tern_tcp_conn_free(c);
    close(sv[1]);
    free(a);
    free(b);
    free(in);
}

int main(void)
{
    static const struct cunit_test tests[] = {
        { "a partly written packet, retried from another address", test_partial_write_moved_payload },
        { NULL, NULL },
    };
    return cunit_run("tcp framed writes", tests);
}
