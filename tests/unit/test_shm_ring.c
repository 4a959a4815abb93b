/*
 * Unit tests of the shared-memory ring (transports/shm/ring.h): geometry
 * checks, full and empty rings, wraparound, packet lengths 0 and maximum,
 * and a stream of a million packets between two processes with checked
 * sequence numbers and contents.
 */
#include <sched.h>
#include <stdint.h>
#include <string.h>

#include "transports/shm/ring.h"
#include "tests/unit/test_shm_util.h"

#define NCELLS 8
#define CELL 128

static struct tern_shm_ring *new_ring(uint32_t ncells, uint32_t cell_size)
{
    struct tern_shm_ring *r = shared_map(tern_shm_ring_bytes(ncells, cell_size));
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL_FATAL(tern_shm_ring_init(r, ncells, cell_size), 0);
    return r;
}

static void free_ring(struct tern_shm_ring *r)
{
    munmap(r, tern_shm_ring_bytes(r->ncells, r->cell_size));
}

static void test_geometry(void)
{
    CU_ASSERT_EQUAL(tern_shm_ring_check_geometry(8, 128), 0);
    CU_ASSERT_EQUAL(tern_shm_ring_check_geometry(6, 128), TERN_EINVAL);
    CU_ASSERT_EQUAL(tern_shm_ring_check_geometry(1, 128), TERN_EINVAL);
    CU_ASSERT_EQUAL(tern_shm_ring_check_geometry(8, 100), TERN_EINVAL);
    CU_ASSERT_EQUAL(tern_shm_ring_check_geometry(8, 0), TERN_EINVAL);
    CU_ASSERT_EQUAL(tern_shm_ring_bytes(8, 128), 3 * 64 + 8 * 128);
}

static void test_fill_to_full(void)
{
    struct tern_shm_ring *r = new_ring(NCELLS, CELL);
    uint32_t v;

    CU_ASSERT_PTR_NULL(tern_shm_ring_peek(r));
    for (v = 0; v < NCELLS; v++)
        CU_ASSERT_EQUAL(tern_shm_ring_push(r, &v, sizeof(v), NULL, 0), 0);
    CU_ASSERT_EQUAL(tern_shm_ring_push(r, &v, sizeof(v), NULL, 0), TERN_EAGAIN);
    /* One pop frees exactly one cell. */
    CU_ASSERT_PTR_NOT_NULL(tern_shm_ring_peek(r));
    tern_shm_ring_pop(r);
    CU_ASSERT_EQUAL(tern_shm_ring_push(r, &v, sizeof(v), NULL, 0), 0);
    CU_ASSERT_EQUAL(tern_shm_ring_push(r, &v, sizeof(v), NULL, 0), TERN_EAGAIN);
    for (uint32_t want = 1; want <= NCELLS; want++) {
        struct tern_shm_cell *c = tern_shm_ring_peek(r);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        CU_ASSERT_EQUAL(c->len, sizeof(uint32_t));
        memcpy(&v, c->data, sizeof(v));
        CU_ASSERT_EQUAL(v, want);
        tern_shm_ring_pop(r);
    }
    CU_ASSERT_PTR_NULL(tern_shm_ring_peek(r));
    free_ring(r);
}

static void test_wraparound(void)
{
    struct tern_shm_ring *r = new_ring(NCELLS, CELL);

    /* Many laps with the ring at varying fill levels. */
    uint64_t sent = 0, got = 0;
    for (int round = 0; round < 1000; round++) {
        int burst = 1 + round % NCELLS;
        for (int i = 0; i < burst; i++, sent++)
            CU_ASSERT_EQUAL_FATAL(
                tern_shm_ring_push(r, &sent, sizeof(sent), NULL, 0), 0);
        for (int i = 0; i < burst; i++, got++) {
            struct tern_shm_cell *c = tern_shm_ring_peek(r);
            uint64_t v;
            CU_ASSERT_PTR_NOT_NULL_FATAL(c);
            memcpy(&v, c->data, sizeof(v));
            CU_ASSERT_EQUAL_FATAL(v, got);
            /* Peeking again returns the same packet until it is popped. */
            CU_ASSERT_PTR_EQUAL(tern_shm_ring_peek(r), c);
            tern_shm_ring_pop(r);
        }
        CU_ASSERT_PTR_NULL(tern_shm_ring_peek(r));
    }
    CU_ASSERT_EQUAL(r->head, sent);
    free_ring(r);
}

static void test_lengths(void)
{
    struct tern_shm_ring *r = new_ring(NCELLS, CELL);
    size_t max = tern_shm_ring_max_packet(r);
    unsigned char hdr[16], payload[CELL];

    CU_ASSERT_EQUAL(max, CELL - TERN_SHM_CELL_HDR);
    memset(hdr, 0xab, sizeof(hdr));
    for (size_t i = 0; i < sizeof(payload); i++)
        payload[i] = (unsigned char)i;
    /* Length 0, header only, maximum, and one byte too many. */
    CU_ASSERT_EQUAL(tern_shm_ring_push(r, NULL, 0, NULL, 0), 0);
    CU_ASSERT_EQUAL(tern_shm_ring_push(r, hdr, sizeof(hdr), NULL, 0), 0);
    CU_ASSERT_EQUAL(tern_shm_ring_push(r, hdr, sizeof(hdr), payload,
                                       max - sizeof(hdr)), 0);
    CU_ASSERT_EQUAL(tern_shm_ring_push(r, hdr, sizeof(hdr), payload,
                                       max - sizeof(hdr) + 1), TERN_EINVAL);

    struct tern_shm_cell *c = tern_shm_ring_peek(r);
    CU_ASSERT_EQUAL_FATAL(c->len, 0);
    tern_shm_ring_pop(r);
    c = tern_shm_ring_peek(r);
    CU_ASSERT_EQUAL_FATAL(c->len, sizeof(hdr));
    CU_ASSERT_EQUAL(memcmp(c->data, hdr, sizeof(hdr)), 0);
    tern_shm_ring_pop(r);
    c = tern_shm_ring_peek(r);
    CU_ASSERT_EQUAL_FATAL(c->len, max);
    CU_ASSERT_EQUAL(memcmp(c->data, hdr, sizeof(hdr)), 0);
    CU_ASSERT_EQUAL(memcmp(c->data + sizeof(hdr), payload, max - sizeof(hdr)), 0);
    tern_shm_ring_pop(r);
    CU_ASSERT_PTR_NULL(tern_shm_ring_peek(r));
    free_ring(r);
}

#define STREAM_COUNT 1000000
#define STREAM_CELLS 16
#define STREAM_CELL 256

/* Packet i carries i as its header and a payload of i % 200 bytes, each
 * equal to (unsigned char)(i + offset). */
static size_t stream_payload(uint64_t i, unsigned char *buf)
{
    size_t n = (size_t)(i % 200);
    for (size_t k = 0; k < n; k++)
        buf[k] = (unsigned char)(i + k);
    return n;
}

/* Waits a little when the other side is behind: spins first, then yields
 * the core, so the test is quick on idle cores and still progresses when
 * both processes share one. */
static void backoff(unsigned *spins)
{
    if (++*spins < 1000)
        __asm__ __volatile__("" ::: "memory");
    else
        sched_yield();
}

static int stream_producer(void *arg)
{
    struct tern_shm_ring *r = arg;
    unsigned char buf[STREAM_CELL];

    for (uint64_t i = 0; i < STREAM_COUNT; i++) {
        size_t n = stream_payload(i, buf);
        unsigned spins = 0;
        while (tern_shm_ring_push(r, &i, sizeof(i), buf, n) == TERN_EAGAIN)
            backoff(&spins);
    }
    return 0;
}

/* Consumes the stream; returns the number of bad packets (0 on success). */
static long stream_consume(struct tern_shm_ring *r, double deadline)
{
    unsigned char want[STREAM_CELL];
    long bad = 0;
    unsigned spins = 0;

    for (uint64_t i = 0; i < STREAM_COUNT && bad < 10; ) {
        struct tern_shm_cell *c = tern_shm_ring_peek(r);
        if (!c) {
            if ((spins & 1023) == 0 && now_s() > deadline)
                return -1;
            backoff(&spins);
            continue;
        }
        spins = 0;
        uint64_t seq;
        size_t n = stream_payload(i, want);
        memcpy(&seq, c->data, sizeof(seq));
        if (seq != i || c->len != sizeof(seq) + n
            || memcmp(c->data + sizeof(seq), want, n) != 0) {
            fprintf(stderr, "packet %llu: got seq %llu len %u\n",
                    (unsigned long long)i, (unsigned long long)seq, c->len);
            bad++;
        }
        tern_shm_ring_pop(r);
        i++;
    }
    return bad;
}

static void test_stream_fork(void)
{
    struct tern_shm_ring *r = new_ring(STREAM_CELLS, STREAM_CELL);
    double t0 = now_s();
    pid_t pid = fork_child(stream_producer, r);

    CU_ASSERT_FATAL(pid > 0);
    long bad = stream_consume(r, t0 + 60);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(wait_child(pid, 10), 0);
    CU_ASSERT_PTR_NULL(tern_shm_ring_peek(r));
    printf("(%d packets in %.2f s) ", STREAM_COUNT, now_s() - t0);
    free_ring(r);
}

int main(void)
{
    static const struct test_entry tests[] = {
        { "geometry", test_geometry },
        { "fill to full, EAGAIN, drain", test_fill_to_full },
        { "wraparound", test_wraparound },
        { "lengths 0 and max", test_lengths },
        { "1e6 packets across fork", test_stream_fork },
        { NULL, NULL },
    };
    return run_suite("shm ring", tests);
}
