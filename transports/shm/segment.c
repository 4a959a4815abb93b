/*
 * The per-host shared segment: layout, the /dev/shm space check, and
 * create / attach / unlink. See segment.h for the lifecycle.
 *
 * Space: tmpfs allocates pages only when they are first touched, and a write
 * to a page that cannot be allocated kills the process with SIGBUS. So the
 * creator checks the free space with statvfs() (for a clear message) and
 * then reserves the whole segment with posix_fallocate() (which is what
 * really guarantees the pages, also against a concurrent job), before any
 * rank maps it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "tern/log.h"
#include "tern/shmname.h"
#include "transports/shm/coll_area.h"
#include "transports/shm/segment.h"
#include "transports/shm/xfer.h"

#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))

int tern_shm_layout_compute(int local_size, uint32_t ncells, uint32_t cell_size,
                            uint32_t coll_slots, struct tern_shm_layout *l)
{
    if (local_size < 2 || tern_shm_ring_check_geometry(ncells, cell_size) != 0
        || coll_slots > TERN_SHM_COLL_SLOTS_MAX || local_size > (1 << 16))
        return TERN_EINVAL;
    size_t ring_bytes = tern_shm_ring_bytes(ncells, cell_size);
    size_t nrings = (size_t)local_size * (size_t)(local_size - 1);
    if (ring_bytes / cell_size < ncells || nrings > SIZE_MAX / 2 / ring_bytes)
        return TERN_EINVAL;
    l->local_size = local_size;
    l->ncells = ncells;
    l->cell_size = cell_size;
    l->doorbell_off = ALIGN_UP(sizeof(struct tern_shm_seg_hdr), TERN_SHM_CACHE_LINE);
    l->ring_off = ALIGN_UP(l->doorbell_off
                           + (size_t)local_size * sizeof(struct tern_shm_doorbell),
                           (size_t)4096);
    l->ring_bytes = ring_bytes;
    l->coll_slots = coll_slots;
    l->coll_off = ALIGN_UP(l->ring_off + nrings * ring_bytes, (size_t)4096);
    l->xfer_off = ALIGN_UP(l->coll_off + (size_t)coll_slots * tern_shm_coll_slot_bytes(local_size),
                           (size_t)TERN_SHM_CACHE_LINE);
    l->size = l->xfer_off + tern_shm_xfer_area_bytes(local_size);
    return 0;
}

void tern_shm_layout_format(void *base, const struct tern_shm_layout *l)
{
    struct tern_shm_seg_hdr *h = base;

    for (int s = 0; s < l->local_size; s++)
        for (int d = 0; d < l->local_size; d++)
            if (s != d)
                tern_shm_ring_init(tern_shm_layout_ring(base, l, s, d),
                                   l->ncells, l->cell_size);
    h->size = l->size;
    h->local_size = (uint32_t)l->local_size;
    h->ncells = l->ncells;
    h->cell_size = l->cell_size;
    h->coll_slots = l->coll_slots;
    h->magic = TERN_SHM_MAGIC;
}

int tern_shm_layout_verify(const void *base, const struct tern_shm_layout *l)
{
    const struct tern_shm_seg_hdr *h = base;

    if (h->magic != TERN_SHM_MAGIC || h->size != l->size
        || h->local_size != (uint32_t)l->local_size
        || h->ncells != l->ncells || h->cell_size != l->cell_size
        || h->coll_slots != l->coll_slots) {
        tern_log("shm: the shared segment's header does not match the "
                 "geometry its creator published; it was changed by someone else");
        return TERN_ESHM;
    }
    return 0;
}

/* Formats a byte count for people: "512 KiB", "12.0 MiB", "1.5 GiB". */
static const char *human(size_t bytes, char *buf, size_t len)
{
    if (bytes >= (size_t)1 << 30)
        snprintf(buf, len, "%.1f GiB", (double)bytes / (1 << 30));
    else if (bytes >= (size_t)1 << 20)
        snprintf(buf, len, "%.1f MiB", (double)bytes / (1 << 20));
    else
        snprintf(buf, len, "%zu KiB", (bytes + 1023) / 1024);
    return buf;
}

int tern_shm_space_check(size_t needed, size_t avail, char *msg, size_t msglen)
{
    char need_s[32], avail_s[32], more_s[32];

    if (avail >= needed)
        return 0;
    snprintf(msg, msglen,
             "shm: %s needs %s for the shared segment but has only %s free; "
             "give it %s more (mount -o remount,size=<larger> %s, or "
             "docker run --shm-size=<larger>), remove stale files there, or "
             "lower TERN_SHM_CELLS or TERN_SHM_CELL_SIZE",
             TERN_SHM_DIR, human(needed, need_s, sizeof(need_s)),
             human(avail, avail_s, sizeof(avail_s)),
             human(needed - avail, more_s, sizeof(more_s)), TERN_SHM_DIR);
    return TERN_ESHM;
}

/* Free bytes in /dev/shm, or SIZE_MAX when unknown or unlimited. */
static size_t shm_free_bytes(void)
{
    struct statvfs st;

    if (statvfs(TERN_SHM_DIR, &st) != 0 || st.f_blocks == 0)
        return SIZE_MAX;
    return (size_t)st.f_bavail * (size_t)st.f_frsize;
}

/* Prints why `needed` bytes could not be reserved (error err); returns
 * TERN_ESHM. */
static int report_space(size_t needed, int err)
{
    char msg[512], need_s[32], avail_s[32];
    size_t avail = shm_free_bytes();

    if (tern_shm_space_check(needed, avail, msg, sizeof(msg)) != 0)
        tern_log("%s", msg);
    else
        tern_log("shm: cannot reserve %s in %s for the shared segment (%s) "
                 "although %s look free; a memory limit (cgroup) is the likely "
                 "cause: raise it, or lower TERN_SHM_CELLS or TERN_SHM_CELL_SIZE",
                 human(needed, need_s, sizeof(need_s)), TERN_SHM_DIR,
                 strerror(err), avail == SIZE_MAX ? "unlimited bytes"
                 : human(avail, avail_s, sizeof(avail_s)));
    return TERN_ESHM;
}

int tern_shm_segment_name(char *name, size_t len, const char *jobid)
{
    uint64_t rnd;

    if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
        tern_log("shm: getrandom failed: %s", strerror(errno));
        return TERN_ESHM;
    }
    char prefix[128];
    if (tern_shmname_prefix(prefix, sizeof(prefix), jobid))
        return TERN_EINVAL;
    int n = snprintf(name, len, "/%s%016llx", prefix, (unsigned long long)rnd);
    return (n > 0 && (size_t)n < len) ? 0 : TERN_EINVAL;
}

static int map_fd(int fd, const char *name, size_t size, void **base)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

    if (p == MAP_FAILED) {
        tern_log("shm: cannot map %s%s (%zu bytes): %s", TERN_SHM_DIR, name,
                 size, strerror(errno));
        return TERN_ESHM;
    }
    *base = p;
    return 0;
}

/* Sizes the new file and reserves its pages; returns 0 or TERN_ESHM. */
static int reserve(int fd, const char *name, size_t size)
{
    int err;

    if (ftruncate(fd, (off_t)size) != 0) {
        err = errno;
    } else {
        do
            err = posix_fallocate(fd, 0, (off_t)size);
        while (err == EINTR);
    }
    if (err == ENOSPC || err == ENOMEM || err == EFBIG)
        return report_space(size, err);
    if (err != 0) {
        tern_log("shm: cannot reserve %zu bytes for %s%s: %s", size,
                 TERN_SHM_DIR, name, strerror(err));
        return TERN_ESHM;
    }
    return 0;
}

int tern_shm_segment_create(const char *name, size_t size, void **base)
{
    char msg[512];

    if (tern_shm_space_check(size, shm_free_bytes(), msg, sizeof(msg)) != 0) {
        tern_log("%s", msg);
        return TERN_ESHM;
    }
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        tern_log("shm: cannot create %s%s: %s", TERN_SHM_DIR, name,
                 strerror(errno));
        return TERN_ESHM;
    }
    /* The umask can only remove bits from 0600; make it exact anyway. */
    int rc = fchmod(fd, 0600) == 0 ? 0 : TERN_ESHM;
    if (rc == 0)
        rc = reserve(fd, name, size);
    if (rc == 0)
        rc = map_fd(fd, name, size, base);
    close(fd);
    if (rc != 0)
        shm_unlink(name);
    return rc;
}

int tern_shm_segment_attach(const char *name, size_t size, void **base)
{
    struct stat st;
    int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);

    if (fd < 0) {
        tern_log("shm: cannot open %s%s: %s", TERN_SHM_DIR, name, strerror(errno));
        return TERN_ESHM;
    }
    /* Refuse a file that is not the one our local rank 0 made: it must be
     * ours, private and of the expected size. */
    int rc = TERN_ESHM;
    if (fstat(fd, &st) != 0)
        tern_log("shm: cannot stat %s%s: %s", TERN_SHM_DIR, name, strerror(errno));
    else if (st.st_uid != geteuid() || (st.st_mode & 0777) != 0600
             || (size_t)st.st_size != size)
        tern_log("shm: %s%s is not this job's segment (owner %u, mode %03o, "
                 "%lld bytes; expected %u, 600, %zu)", TERN_SHM_DIR, name,
                 (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777),
                 (long long)st.st_size, (unsigned)geteuid(), size);
    else
        rc = map_fd(fd, name, size, base);
    close(fd);
    return rc;
}

int tern_shm_segment_unlink(const char *name)
{
    if (shm_unlink(name) != 0 && errno != ENOENT) {
        tern_log("shm: cannot remove %s%s: %s", TERN_SHM_DIR, name, strerror(errno));
        return TERN_ESHM;
    }
    return 0;
}

void tern_shm_segment_prefault(void *addr, size_t len)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)addr / page * page;
    uintptr_t end = ALIGN_UP((uintptr_t)addr + len, page);

    if (!len)
        return;
    /* One system call maps them all (Linux 5.14 and later; before, each
     * touch below faults on its own, which costs more but works). */
    if (madvise((void *)start, end - start, MADV_POPULATE_WRITE) != 0)
        TERN_LOG(2, "shm: cannot map %zu bytes of the segment ahead: %s", len,
                 strerror(errno));
    /* A write of each page, since the page tables of a hypervisor learn of
     * a page only when the process touches it. Adding 0 atomically leaves
     * whatever another rank stores there intact. */
    for (uintptr_t a = start; a < end; a += page)
        __atomic_fetch_add((uint64_t *)a, 0, __ATOMIC_RELAXED);
}

/* A ring's cells are used in turn, so without this the first lap of each
 * ring paid for the first touch of each page. What it adds to start-up,
 * `mpirun -np N hello` on the reference VM, medians of 5 runs, ms, without
 * / with: 2 ranks 48 / 50, 4 ranks (on 2 cores) 78 / 103, 8 ranks 143 /
 * 188. The collective area is left to fault in as it is used: its buffers
 * are the same ones call after call, so only the first call or two of each
 * size pay. */
void tern_shm_layout_prefault_rings(void *base, const struct tern_shm_layout *l, int local)
{
    for (int peer = 0; peer < l->local_size; peer++) {
        if (peer == local)
            continue;
        tern_shm_segment_prefault(tern_shm_layout_ring(base, l, local, peer), l->ring_bytes);
        tern_shm_segment_prefault(tern_shm_layout_ring(base, l, peer, local), l->ring_bytes);
    }
}

void tern_shm_segment_detach(void *base, size_t size)
{
    if (base)
        munmap(base, size);
}
