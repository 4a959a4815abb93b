/*
 * Unit tests of the shared segment (transports/shm/segment.h): the layout,
 * the /dev/shm space check's message (a pure function, so no test has to
 * fill /dev/shm), a refusal before anything is created, and a real segment:
 * mode 0600, exclusive creation, attachment from another process,
 * unlink leaving existing mappings usable, and touching pages ahead.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "transports/shm/coll_area.h"
#include "transports/shm/segment.h"
#include "transports/shm/xfer.h"
#include "tests/unit/test_shm_util.h"

static void test_space_message(void)
{
    char msg[512];

    CU_ASSERT_EQUAL(tern_shm_space_check(100, 100, msg, sizeof(msg)), 0);
    CU_ASSERT_EQUAL(tern_shm_space_check((size_t)64 << 20, (size_t)12 << 20,
                                         msg, sizeof(msg)), TERN_ESHM);
    printf("\n    message: %s\n    ", msg);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "needs 64.0 MiB"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "only 12.0 MiB free"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "52.0 MiB more"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "/dev/shm"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "--shm-size"));
    CU_ASSERT_PTR_NULL(strchr(msg, '\n'));
    CU_ASSERT_EQUAL(tern_shm_space_check((size_t)3 << 30, 512 << 10,
                                         msg, sizeof(msg)), TERN_ESHM);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "needs 3.0 GiB"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "only 512 KiB free"));
}

static void test_layout(void)
{
    struct tern_shm_layout l;

    CU_ASSERT_EQUAL(tern_shm_layout_compute(1, 16, 4096, 0, &l), TERN_EINVAL);
    CU_ASSERT_EQUAL(tern_shm_layout_compute(4, 12, 4096, 0, &l), TERN_EINVAL);
    CU_ASSERT_EQUAL(tern_shm_layout_compute(1 << 30, 1 << 20, 1 << 24, 0, &l),
                    TERN_EINVAL);
    CU_ASSERT_EQUAL(tern_shm_layout_compute(4, 16, 4096, TERN_SHM_COLL_SLOTS_MAX + 1, &l),
                    TERN_EINVAL);
    CU_ASSERT_EQUAL_FATAL(tern_shm_layout_compute(4, 16, 4096, 8, &l), 0);
    CU_ASSERT_EQUAL(l.ring_bytes, tern_shm_ring_bytes(16, 4096));
    /* The collective slots follow the rings, page-aligned. */
    CU_ASSERT(l.coll_off >= l.ring_off + 12 * l.ring_bytes);
    CU_ASSERT_EQUAL(l.coll_off % 4096, 0);
    /* Then the transfer area (xfer.h), on a cache line, ends the segment. */
    CU_ASSERT(l.xfer_off >= l.coll_off + 8 * tern_shm_coll_slot_bytes(4));
    CU_ASSERT_EQUAL(l.xfer_off % 64, 0);
    CU_ASSERT_EQUAL(l.size, l.xfer_off + tern_shm_xfer_area_bytes(4));
    CU_ASSERT_EQUAL(tern_shm_coll_buf_bytes(4), 64 * 1024);
    CU_ASSERT_EQUAL(tern_shm_coll_buf_bytes(16), 32 * 1024);
    CU_ASSERT_EQUAL(tern_shm_coll_buf_bytes(1000), 4 * 1024);
    CU_ASSERT(l.doorbell_off >= sizeof(struct tern_shm_seg_hdr));
    CU_ASSERT(l.ring_off >= l.doorbell_off + 4 * sizeof(struct tern_shm_doorbell));
    /* Every ordered pair gets its own ring, all inside the segment. */
    char *base = malloc(l.size);
    CU_ASSERT_PTR_NOT_NULL_FATAL(base);
    int seen[12] = { 0 };
    for (int s = 0; s < 4; s++)
        for (int d = 0; d < 4; d++) {
            if (s == d)
                continue;
            size_t off = (size_t)((char *)tern_shm_layout_ring(base, &l, s, d) - base);
            size_t i = (off - l.ring_off) / l.ring_bytes;
            CU_ASSERT((off - l.ring_off) % l.ring_bytes == 0);
            CU_ASSERT_FATAL(i < 12);
            seen[i]++;
        }
    for (int i = 0; i < 12; i++)
        CU_ASSERT_EQUAL(seen[i], 1);
    free(base);
}

static void test_too_big_creates_nothing(void)
{
    char name[TERN_SHM_NAME_MAX], path[256];
    void *base = NULL;
    struct stat st;

    CU_ASSERT_EQUAL_FATAL(tern_shm_segment_name(name, sizeof(name), "unit-big"), 0);
    fprintf(stderr, "\n(an expected error line follows)\n");
    CU_ASSERT_EQUAL(tern_shm_segment_create(name, (size_t)1 << 50, &base), TERN_ESHM);
    CU_ASSERT_PTR_NULL(base);
    snprintf(path, sizeof(path), "%s%s", TERN_SHM_DIR, name);
    CU_ASSERT(stat(path, &st) != 0 && errno == ENOENT);
}

struct attach_arg {
    const char *name;
    struct tern_shm_layout *l;
};

/* Child: attaches, verifies the header and writes into a ring's cells. */
static int attacher(void *arg)
{
    struct attach_arg *a = arg;
    void *base;
    uint32_t v = 0xfeedu;

    if (tern_shm_segment_attach(a->name, a->l->size, &base) != 0
        || tern_shm_layout_verify(base, a->l) != 0)
        return 1;
    struct tern_shm_ring *r = tern_shm_layout_ring(base, a->l, 1, 0);
    int rc = tern_shm_ring_push(r, &v, sizeof(v), NULL, 0);
    tern_shm_segment_detach(base, a->l->size);
    return rc == 0 ? 0 : 2;
}

static void test_create_attach_unlink(void)
{
    char name[TERN_SHM_NAME_MAX], path[256];
    struct tern_shm_layout l;
    struct stat st;
    void *base = NULL, *other = NULL;

    CU_ASSERT_EQUAL_FATAL(tern_shm_layout_compute(2, 4, 256, 0, &l), 0);
    CU_ASSERT_EQUAL_FATAL(tern_shm_segment_name(name, sizeof(name), "unit"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(name, "/tern-"));
    CU_ASSERT_EQUAL_FATAL(tern_shm_segment_create(name, l.size, &base), 0);
    tern_shm_layout_format(base, &l);
    snprintf(path, sizeof(path), "%s%s", TERN_SHM_DIR, name);
    CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 07777, 0600);
    CU_ASSERT_EQUAL(st.st_uid, geteuid());
    CU_ASSERT_EQUAL((size_t)st.st_size, l.size);
    /* The space is reserved, not just a hole. */
    CU_ASSERT((size_t)st.st_blocks * 512 >= l.size);

    /* A second create of the same name fails (O_EXCL). */
    fprintf(stderr, "\n(expected error lines follow)\n");
    CU_ASSERT_EQUAL(tern_shm_segment_create(name, l.size, &other), TERN_ESHM);
    /* Attaching with the wrong size is refused. */
    CU_ASSERT_EQUAL(tern_shm_segment_attach(name, l.size + 4096, &other), TERN_ESHM);

    struct attach_arg a = { name, &l };
    pid_t pid = fork_child(attacher, &a);
    CU_ASSERT_EQUAL(wait_child(pid, 10), 0);
    struct tern_shm_cell *c = tern_shm_ring_peek(tern_shm_layout_ring(base, &l, 1, 0));
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(*(uint32_t *)c->data, 0xfeedu);

    CU_ASSERT_EQUAL(tern_shm_segment_unlink(name), 0);
    CU_ASSERT(stat(path, &st) != 0 && errno == ENOENT);
    /* The mapping stays valid after unlink. */
    tern_shm_ring_pop(tern_shm_layout_ring(base, &l, 1, 0));
    CU_ASSERT_EQUAL(tern_shm_layout_verify(base, &l), 0);
    /* A second unlink is harmless. */
    CU_ASSERT_EQUAL(tern_shm_segment_unlink(name), 0);
    tern_shm_segment_detach(base, l.size);
}

/* Kilobytes of the mapping that starts at addr which this process has in
 * its page tables (the Rss line of /proc/self/smaps), or -1. */
static long rss_kb(const void *addr)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    long kb = -1;
    int in = 0;

    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f)) {
        uintptr_t lo, hi;
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &lo, &hi) == 2 && strchr(line, '/'))
            in = lo == (uintptr_t)addr;
        else if (in && sscanf(line, "Rss: %ld kB", &kb) == 1)
            break;
    }
    fclose(f);
    return kb;
}

/* tern_shm_segment_prefault maps into this process exactly the pages the
 * range touches, rounded out to whole pages, and leaves what they hold as
 * it was. */
static void test_prefault(void)
{
    char name[TERN_SHM_NAME_MAX];
    long page = sysconf(_SC_PAGESIZE);
    size_t size = 16 * (size_t)page;
    unsigned char *base = NULL, *view = NULL;

    CU_ASSERT_EQUAL_FATAL(tern_shm_segment_name(name, sizeof(name), "unit"), 0);
    CU_ASSERT_EQUAL_FATAL(tern_shm_segment_create(name, size, (void **)&base), 0);
    for (size_t i = 0; i < size; i++)
        base[i] = (unsigned char)(i * 7 + 1);
    /* A second mapping of the same pages starts with none of them mapped. */
    CU_ASSERT_EQUAL_FATAL(tern_shm_segment_attach(name, size, (void **)&view), 0);
    CU_ASSERT_EQUAL(rss_kb(view), 0);

    /* From the middle of page 3 to the middle of page 6: pages 3 to 6. */
    tern_shm_segment_prefault(view + 3 * page + 100, 3 * (size_t)page);
    CU_ASSERT_EQUAL(rss_kb(view), 4 * page / 1024);
    tern_shm_segment_prefault(view, 0);
    CU_ASSERT_EQUAL(rss_kb(view), 4 * page / 1024);
    int same = 1;
    for (size_t i = 0; i < size; i++)
        same &= view[i] == (unsigned char)(i * 7 + 1);
    CU_ASSERT(same);

    tern_shm_segment_detach(view, size);
    tern_shm_segment_detach(base, size);
    CU_ASSERT_EQUAL(tern_shm_segment_unlink(name), 0);
}

int main(void)
{
    static const struct test_entry tests[] = {
        { "space check message", test_space_message },
        { "layout", test_layout },
        { "too big: refused before creating", test_too_big_creates_nothing },
        { "create 0600, attach, unlink", test_create_attach_unlink },
        { "prefault maps whole pages, keeps their bytes", test_prefault },
        { NULL, NULL },
    };
    return run_suite("shm segment", tests);
}
