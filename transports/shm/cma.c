/*
 * Cross Memory Attach: the probe that decides whether single copy works with
 * a peer, and the bulk read itself. See cma.h for when the kernel refuses.
 */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tern/err.h"
#include "tern/log.h"
#include "transports/shm/cma.h"

#define PROBE_VALUE 0x636d612d70726f62ULL /* "cma-prob" */

/* Peers read this word to find out whether CMA works; volatile keeps the
 * compiler from folding it into a constant with no address in memory. */
static volatile uint64_t probe_word = PROBE_VALUE;

void tern_shm_cma_self(struct tern_shm_cma_id *id)
{
    id->pid = (int64_t)getpid();
    id->probe_addr = (uint64_t)(uintptr_t)&probe_word;
}

int tern_shm_cma_probe(const struct tern_shm_cma_id *peer, int *err)
{
    uint64_t value = 0;
    struct iovec local = { .iov_base = &value, .iov_len = sizeof(value) };
    struct iovec remote = { .iov_base = (void *)(uintptr_t)peer->probe_addr,
                            .iov_len = sizeof(value) };

    *err = 0;
    ssize_t n = process_vm_readv((pid_t)peer->pid, &local, 1, &remote, 1, 0);
    if (n < 0) {
        *err = errno;
        return 0;
    }
    return n == (ssize_t)sizeof(value) && value == PROBE_VALUE;
}

int tern_shm_cma_read(pid_t pid, void *local, uint64_t remote, size_t len)
{
    char *dst = local;

    while (len > 0) {
        struct iovec l = { .iov_base = dst, .iov_len = len };
        struct iovec r = { .iov_base = (void *)(uintptr_t)remote, .iov_len = len };
        ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : EFAULT;
            tern_log("shm: single-copy read of %zu bytes from process %d "
                     "failed: %s", len, (int)pid, strerror(e));
            return e == ESRCH ? TERN_EPEER : TERN_EIO;
        }
        /* A partial read stops at a page the kernel could not access at
         * that moment; continue after what arrived. */
        dst += n;
        remote += (uint64_t)n;
        len -= (size_t)n;
    }
    return 0;
}
