/*
 * Unit tests of single-copy reads with CMA (transports/shm/cma.h): the probe
 * and a multi-page read from a child process, and the errors for a bad
 * address and a process that is gone. Where the kernel refuses CMA here
 * (Yama, seccomp, containers), the tests say so and pass without checking.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "transports/shm/cma.h"
#include "tern/err.h"
#include "tests/unit/test_shm_util.h"

#define BUF_LEN (3 * 1024 * 1024 + 123)

struct child_ctl {
    int ready[2];                  /* Child -> parent: "buffer filled". */
    int done[2];                   /* Parent -> child: "you may exit". */
};

static unsigned char pattern(size_t i)
{
    return (unsigned char)(i * 7 + 3);
}

/* Child: fills a buffer that only it has (allocated after the fork), sends
 * its address and its probe identity to the parent, waits to be released. */
static int buffer_owner(void *arg)
{
    struct child_ctl *ctl = arg;
    unsigned char *buf = malloc(BUF_LEN);
    struct tern_shm_cma_id id;
    char c;

    if (!buf)
        return 1;
    for (size_t i = 0; i < BUF_LEN; i++)
        buf[i] = pattern(i);
    tern_shm_cma_self(&id);
    uint64_t addr = (uint64_t)(uintptr_t)buf;
    if (write(ctl->ready[1], &id, sizeof(id)) != sizeof(id)
        || write(ctl->ready[1], &addr, sizeof(addr)) != sizeof(addr))
        return 1;
    return read(ctl->done[0], &c, 1) == 1 ? 0 : 1;
}

static pid_t start_owner(struct child_ctl *ctl, struct tern_shm_cma_id *id,
                         uint64_t *addr)
{
    CU_ASSERT_FATAL(pipe(ctl->ready) == 0 && pipe(ctl->done) == 0);
    pid_t pid = fork_child(buffer_owner, ctl);
    CU_ASSERT_FATAL(pid > 0);
    CU_ASSERT_FATAL(read(ctl->ready[0], id, sizeof(*id)) == sizeof(*id));
    CU_ASSERT_FATAL(read(ctl->ready[0], addr, sizeof(*addr)) == sizeof(*addr));
    return pid;
}

static void stop_owner(struct child_ctl *ctl, pid_t pid)
{
    CU_ASSERT(write(ctl->done[1], "x", 1) == 1);
    CU_ASSERT_EQUAL(wait_child(pid, 10), 0);
    for (int i = 0; i < 2; i++) {
        close(ctl->ready[i]);
        close(ctl->done[i]);
    }
}

static void test_read_from_child(void)
{
    struct child_ctl ctl;
    struct tern_shm_cma_id id;
    uint64_t addr;
    int err;
    pid_t pid = start_owner(&ctl, &id, &addr);

    CU_ASSERT_EQUAL(id.pid, pid);
    if (!tern_shm_cma_probe(&id, &err)) {
        fprintf(stderr, "\nCMA is refused here (%s): skipping the read test\n",
                strerror(err));
        CU_PASS("CMA refused here; read test skipped");
        stop_owner(&ctl, pid);
        return;
    }
    unsigned char *buf = malloc(BUF_LEN);
    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    memset(buf, 0, BUF_LEN);
    CU_ASSERT_EQUAL(tern_shm_cma_read(pid, buf, addr, BUF_LEN), 0);
    size_t bad = 0;
    for (size_t i = 0; i < BUF_LEN; i++)
        bad += buf[i] != pattern(i);
    CU_ASSERT_EQUAL(bad, 0);
    /* An unaligned piece from the middle, and length 0. */
    memset(buf, 0, 1000);
    CU_ASSERT_EQUAL(tern_shm_cma_read(pid, buf, addr + 4097, 999), 0);
    CU_ASSERT(buf[0] == pattern(4097) && buf[998] == pattern(4097 + 998));
    CU_ASSERT_EQUAL(tern_shm_cma_read(pid, buf, addr, 0), 0);
    /* An address that is not mapped in the child. */
    fprintf(stderr, "\n(expected error lines follow)\n");
    CU_ASSERT_EQUAL(tern_shm_cma_read(pid, buf, 8, 100), TERN_EIO);
    stop_owner(&ctl, pid);
    /* The child is gone and reaped now. */
    CU_ASSERT_EQUAL(tern_shm_cma_read(pid, buf, addr, 100), TERN_EPEER);
    free(buf);
}

static void test_probe_self_identity(void)
{
    struct tern_shm_cma_id id;
    int err = -1;

    tern_shm_cma_self(&id);
    CU_ASSERT_EQUAL(id.pid, getpid());
    CU_ASSERT(id.probe_addr != 0);
    /* Reading one's own memory is always allowed. */
    CU_ASSERT_EQUAL(tern_shm_cma_probe(&id, &err), 1);
    CU_ASSERT_EQUAL(err, 0);
    /* A wrong address is refused with the kernel's reason. */
    id.probe_addr = 8;
    CU_ASSERT_EQUAL(tern_shm_cma_probe(&id, &err), 0);
    CU_ASSERT_EQUAL(err, EFAULT);
}

int main(void)
{
    static const struct test_entry tests[] = {
        { "probe identity and a refused probe", test_probe_self_identity },
        { "get_bulk from a child process", test_read_from_child },
        { NULL, NULL },
    };
    return run_suite("shm cma", tests);
}
