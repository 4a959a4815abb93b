/*
 * The collective area of the per-host segment: its geometry and its slots.
 * See coll_area.h.
 */
#include <string.h>

#include "tern/err.h"
#include "transports/shm/coll_area.h"
#include "transports/shm/segment.h"

/*
 * Each member's buffer holds 64 KiB, the largest vector the collectives of
 * collectives/shm.h reduce in one piece, as long as a slot's data stays
 * within SLOT_DATA_MAX; with more ranks on the host the buffers shrink
 * (to BUF_MIN at least), so that the default slots cost at most a few MiB.
 */
#define BUF_MAX ((size_t)64 << 10)
#define BUF_MIN ((size_t)4 << 10)
#define SLOT_DATA_MAX ((size_t)1 << 20)
#define SLOT_PAGE ((size_t)4096)

size_t tern_shm_coll_buf_bytes(int local_size)
{
    size_t per = SLOT_DATA_MAX / TERN_SHM_COLL_BUF_SETS / (size_t)local_size;
    per = per / TERN_SHM_CACHE_LINE * TERN_SHM_CACHE_LINE;
    return per > BUF_MAX ? BUF_MAX : per < BUF_MIN ? BUF_MIN : per;
}

/* Bytes of a slot before its data: header, flags, tiny entries, cells and
 * `reduced` lines, rounded up to a page, so that every slot's buffers start
 * at the same offset in a page. Packed, slot i's started at 576 * (i + 1)
 * bytes into a page (2 members), and a 64 KiB Allreduce of 2 ranks took
 * 15 us on slot 1 against 7 on slots 0, 2 and 3; page-aligned, 7 on all. */
static size_t head_bytes(int local_size)
{
    size_t h = sizeof(struct tern_shm_coll_hdr)
           + TERN_SHM_COLL_FLAG_LINES(local_size) * TERN_SHM_CACHE_LINE
           + TERN_SHM_COLL_TINY_LINES(local_size) * TERN_SHM_CACHE_LINE
           + (size_t)TERN_SHM_COLL_CELL_SETS * (size_t)local_size
                 * sizeof(struct tern_shm_coll_cell)
           + (size_t)local_size * sizeof(struct tern_shm_coll_reduced);
    return (h + SLOT_PAGE - 1) / SLOT_PAGE * SLOT_PAGE;
}

size_t tern_shm_coll_slot_bytes(int local_size)
{
    return head_bytes(local_size)
           + (size_t)TERN_SHM_COLL_BUF_SETS * (size_t)local_size
                 * tern_shm_coll_buf_bytes(local_size);
}

int tern_shm_coll_slot(int i, struct tern_shm_coll_slot *out)
{
    const struct tern_shm_layout *l;
    char *base = tern_shm_area(&l);
    if (!base || i < 0 || (uint32_t)i >= l->coll_slots)
        return TERN_EINVAL;
    char *p = base + l->coll_off + (size_t)i * tern_shm_coll_slot_bytes(l->local_size);
    out->hdr = (struct tern_shm_coll_hdr *)p;
    p += sizeof(struct tern_shm_coll_hdr);
    out->arrived = (_Atomic uint64_t *)p;
    p += TERN_SHM_COLL_FLAG_LINES(l->local_size) * TERN_SHM_CACHE_LINE;
    out->tiny = (struct tern_shm_coll_tiny *)p;
    p += TERN_SHM_COLL_TINY_LINES(l->local_size) * TERN_SHM_CACHE_LINE;
    out->cells = (struct tern_shm_coll_cell *)p;
    out->reduced = (struct tern_shm_coll_reduced *)
        (out->cells + (size_t)TERN_SHM_COLL_CELL_SETS * (size_t)l->local_size);
    out->data = (char *)out->hdr + head_bytes(l->local_size);
    out->buf = tern_shm_coll_buf_bytes(l->local_size);
    out->local_size = l->local_size;
    return 0;
}

int tern_shm_coll_alloc(int nmembers)
{
    const struct tern_shm_layout *l;
    if (!tern_shm_area(&l) || nmembers < 1 || nmembers > l->local_size)
        return -1;
    for (uint32_t i = 0; i < l->coll_slots; i++) {
        struct tern_shm_coll_slot s;
        tern_shm_coll_slot((int)i, &s);
        uint32_t free_ = 0;
        if (!atomic_compare_exchange_strong(&s.hdr->users, &free_, (uint32_t)nmembers))
            continue;
        /* The members learn the index from a message sent after this, so
         * they see the cleared flags. */
        for (int m = 0; m < nmembers; m++) {
            for (int set = 0; set < TERN_SHM_COLL_CELL_SETS; set++)
                atomic_store_explicit(&tern_shm_coll_cell(&s, (uint64_t)set, m)->seq, 0,
                                      memory_order_relaxed);
            for (int set = 0; set < TERN_SHM_COLL_TINY_SETS; set++)
                atomic_store_explicit(&tern_shm_coll_tiny(&s, (uint64_t)set, m)->tag, 0,
                                      memory_order_relaxed);
            atomic_store_explicit(&s.reduced[m].seq, 0, memory_order_relaxed);
            atomic_store_explicit(&s.reduced[m].done, 0, memory_order_relaxed);
            atomic_store_explicit(&s.reduced[m].verdict, 0, memory_order_relaxed);
            atomic_store_explicit(&s.reduced[m].finished, 0, memory_order_relaxed);
            atomic_store_explicit(&s.reduced[m].stuck, 0, memory_order_relaxed);
            atomic_store_explicit(&s.reduced[m].digest, 0, memory_order_relaxed);
            atomic_store_explicit(&s.arrived[m], 0, memory_order_relaxed);
        }
        return (int)i;
    }
    return -1;
}

void tern_shm_coll_release(int i, int n)
{
    struct tern_shm_coll_slot s;
    if (tern_shm_coll_slot(i, &s) == 0)
        atomic_fetch_sub_explicit(&s.hdr->users, (uint32_t)n, memory_order_acq_rel);
}
