/*
 * The shared-memory transport: ranks on one host exchange packets through
 * per-pair rings in one shared segment, and large messages through a
 * single-copy read (CMA) where the kernel allows it.
 *
 * This file is the glue behind tern_shm_ops; the pieces live beside it:
 *   ring.h / ring.c          the lock-free single-producer single-consumer ring
 *   doorbell.h / doorbell.c  sleeping on a futex without slowing senders down
 *   segment.h / segment.c    the segment's layout, space check and lifecycle
 *   cma.h / cma.c            the CMA probe and the bulk read
 *   calibrate.h / .c         measuring the cells against the read at start-up
 *   xfer.h / xfer.c          large reads that the sender helps with
 *
 * Phases (see transports/transport.h):
 *   init     reads the tunables; every local rank publishes its pid and probe
 *            address ("shm.cma"); local rank 0 creates and formats the
 *            segment and publishes its geometry and name ("shm.seg").
 *   connect  the other local ranks attach; every rank probes CMA against each
 *            local peer and publishes the results ("shm.cmaok").
 *   ready    local rank 0 unlinks the segment; every rank combines the probe
 *            results, so single copy is used with a peer only when it works
 *            in both directions (the receiver of a message is the reader);
 *            local ranks 0 and 1 measure from which size a read beats the
 *            cells, and the others wait for the answer (calibrate.h).
 *   finalize unmaps.
 * A rank alone on its host creates nothing and serves no peer.
 *
 * Sending copies the packet into the ring towards the peer and rings the
 * peer's doorbell, which costs a fence and, only when the peer sleeps, a
 * futex wake. progress() drains the incoming rings in turn.
 */
#include <stdlib.h>
#include <string.h>

#include "tern/boot.h"
#include "tern/err.h"
#include "tern/log.h"
#include "tern/p2p.h"
#include "transports/shm/calibrate.h"
#include "transports/shm/cma.h"
#include "transports/shm/coll_area.h"
#include "transports/shm/doorbell.h"
#include "transports/shm/segment.h"
#include "transports/shm/xfer.h"
#include "transports/transport.h"

#define KEY_SEG "shm.seg"
#define KEY_CMA "shm.cma"
#define KEY_CMAOK "shm.cmaok"
#define KEY_MEMBARRIER "shm.mb"

/* What local rank 0 publishes under KEY_SEG: the segment's geometry and
 * name, so that the other local ranks attach with its settings, whatever
 * their own environment says. */
struct seg_key {
    uint32_t ncells;
    uint32_t cell_size;
    uint32_t coll_slots;
    uint32_t measure;               /* Local ranks 0 and 1 measure (calibrate.h). */
    char name[TERN_SHM_NAME_MAX];
};

/* One local peer, indexed by its local rank. */
struct peer {
    int world;                      /* Its world rank. */
    struct tern_shm_ring *out;      /* Ring from this rank to the peer. */
    struct tern_shm_ring *in;       /* Ring from the peer to this rank. */
    struct tern_shm_doorbell *db;   /* The peer's doorbell. */
    struct tern_shm_cma_id cma;     /* Its pid and probe address. */
    unsigned char can_read;         /* This rank's probe of the peer worked. */
    unsigned char single_copy;      /* The probe worked both ways. */
};

static struct {
    int rank, size, local_rank, local_size;
    int *local_of;                  /* World rank -> local rank, or -1. */
    struct peer *peers;
    struct tern_shm_doorbell *my_db;
    int cma_auto;                   /* TERN_SHM_CMA=auto. */
    int cma_measure;                /* TERN_SHM_CMA_MIN unset: measure it. */
    int host_measures;              /* Local rank 0's choice: the host measures. */
    size_t cma_min;                 /* Smallest message read in one copy. */
    size_t contig_eager_max;        /* Largest contiguous message sent eagerly
                                       when below a cell; 0: a cell. */
    int connected;                  /* connect() set up the rings. */
    int in_progress;
    int unlinked;
    struct tern_shm_layout layout;
    struct tern_shm_xfer_area xfer;
    void *base;
    char name[TERN_SHM_NAME_MAX];
} st;

/*
 * The default geometry. A cell holds a 32 KiB message: on a 2-core VM
 * where copying through cells beat the single-copy (CMA) read at every
 * size (latency, 2 ranks: 32 KiB 1.3 us eager vs 4.3 us; 1 MiB 30 us
 * pipelined vs 68 us CMA), eager up to 32 KiB beat rendezvous. Where the
 * read wins, contiguous messages leave the cells earlier (calibrate.h).
 * A ring has 32 cells where memory allows. Bidirectional bandwidth of 8 B
 * and 64 B messages (window 64) was 70 and 410 MB/s with 16 cells, 84 and
 * 465 with 32, 85 and 490 with 64 (Open MPI 72-97 at 8 B), since each side
 * can post more of its window before the other drains it; but a 2-rank
 * token ring took 0.40 us per hop with 16, 0.42 with 32 and 0.46 with 64.
 * Rings are per ordered pair, so the segment grows with n(n-1): to keep it
 * within SEGMENT_BUDGET (with the collective slots, whose share is taken
 * first) the ring first drops to 16 cells, then the cell shrinks (to 4 KiB
 * at least).
 */
#define CELL_PAYLOAD_MAX (32 * 1024)
#define CELL_PAYLOAD_MIN (4 * 1024)
#define CELLS_MAX 32
#define CELLS_MIN 16
#define SEGMENT_BUDGET (64L << 20)
/* Whether single copy pays depends on the machine, so it is measured at
 * start-up (calibrate.h). Where the read never wins, as on that VM
 * (latency, 2 ranks: 128 MiB 16.1 ms read vs 7.3 ms pipelined), only
 * messages of 1 GiB and more go single copy, which bounds the memory a
 * pipelined message keeps busy for long. */
#define DEFAULT_CMA_MIN (1L << 30)
/* Slots of the collective area (coll_area.h): a program rarely has more
 * communicators that live on one host and run collectives at once; others
 * use messages. 8 slots of 2 ranks take 2 MiB, of 8 ranks or more 8 MiB. */
#define DEFAULT_COLL_SLOTS 8

struct geometry {
    long cells, cell_size;
};

static struct geometry default_geometry(int local_size, long budget)
{
    long pairs = (long)local_size * (local_size > 1 ? local_size - 1 : 1);
    long cells = CELLS_MAX, payload = CELL_PAYLOAD_MAX;
    while (pairs * cells * payload > budget) {
        if (cells > CELLS_MIN)
            cells /= 2;
        else if (payload > CELL_PAYLOAD_MIN)
            payload /= 2;
        else
            break;
    }
    /* Room for the cell header and the p2p header, rounded to a line. */
    return (struct geometry){ cells, payload + 64 };
}

/* Reads the module's tunables, all of them here. */
static int read_tunables(int local_size, uint32_t *ncells, uint32_t *cell_size,
                         uint32_t *coll_slots)
{
    long slots = tern_env_long("TERN_SHM_COLL_SLOTS", DEFAULT_COLL_SLOTS,
        "Communicators on one host that can run collectives through shared "
        "memory at once (0: collectives always use messages)");
    /* The rings get what the collective slots leave of the budget. */
    long coll = slots > 0 && slots <= TERN_SHM_COLL_SLOTS_MAX && local_size > 1
                    ? slots * (long)tern_shm_coll_slot_bytes(local_size) : 0;
    struct geometry g = default_geometry(local_size, SEGMENT_BUDGET - coll);
    long cs = tern_env_long("TERN_SHM_CELL_SIZE", g.cell_size,
        "Bytes per shared-memory cell, which bounds one packet between ranks "
        "on a host (a multiple of 64)");
    long nc = tern_env_long("TERN_SHM_CELLS", g.cells,
        "Cells in the ring from one rank to another on the same host (a "
        "power of two); /dev/shm needs about ranks^2 x cells x cell size");
    const char *cma = tern_env_str("TERN_SHM_CMA", "auto",
        "auto: large messages between ranks on a host use single-copy "
        "process_vm_readv where the kernel allows it; off: copy through "
        "shared cells");

    long cma_min = tern_env_long("TERN_SHM_CMA_MIN", -1,
        "Smallest contiguous message read with single copy (CMA) when "
        "TERN_SHM_CMA=auto, but never one of 4 KiB or less; smaller ones go "
        "eagerly or pipelined through the cells (-1: measured on each host at "
        "start-up)");

    if (nc < 2 || nc > (1L << 20) || cs < 128 || cs > (1L << 24)
        || tern_shm_ring_check_geometry((uint32_t)nc, (uint32_t)cs) != 0) {
        tern_log("shm: TERN_SHM_CELLS=%ld must be a power of two from 2 to "
                 "2^20 and TERN_SHM_CELL_SIZE=%ld a multiple of 64 from 128 "
                 "to 16M", nc, cs);
        return TERN_EINVAL;
    }
    if (slots < 0 || slots > TERN_SHM_COLL_SLOTS_MAX) {
        tern_log("shm: TERN_SHM_COLL_SLOTS=%ld must be from 0 to %d", slots,
                 TERN_SHM_COLL_SLOTS_MAX);
        return TERN_EINVAL;
    }
    if (strcmp(cma, "auto") != 0 && strcmp(cma, "off") != 0) {
        tern_log("shm: TERN_SHM_CMA=%s must be auto or off", cma);
        return TERN_EINVAL;
    }
    *ncells = (uint32_t)nc;
    *cell_size = (uint32_t)cs;
    *coll_slots = (uint32_t)slots;
    st.cma_auto = strcmp(cma, "auto") == 0;
    st.cma_measure = cma_min < 0;
    st.host_measures = st.cma_auto && st.cma_measure;
    st.cma_min = cma_min >= 0 ? (size_t)cma_min : (size_t)DEFAULT_CMA_MIN;
    return 0;
}

/* Records which world ranks are local and at which index. */
static int map_local_ranks(const struct tern_boot_info *boot)
{
    st.local_of = malloc((size_t)boot->size * sizeof(int));
    st.peers = calloc((size_t)boot->local_size, sizeof(struct peer));
    if (!st.local_of || !st.peers)
        return TERN_ENOMEM;
    for (int r = 0; r < boot->size; r++)
        st.local_of[r] = -1;
    for (int l = 0; l < boot->local_size; l++) {
        int w = boot->local_ranks[l];
        if (w < 0 || w >= boot->size)
            return TERN_EINVAL;
        st.local_of[w] = l;
        st.peers[l].world = w;
    }
    return 0;
}

/* Local rank 0: creates and formats the segment and publishes it. */
static int create(const char *jobid)
{
    struct seg_key key = { st.layout.ncells, st.layout.cell_size, st.layout.coll_slots,
                           (uint32_t)st.host_measures, "" };
    int rc = tern_shm_segment_name(st.name, sizeof(st.name), jobid);

    if (rc == 0)
        rc = tern_shm_segment_create(st.name, st.layout.size, &st.base);
    if (rc != 0)
        return rc;
    tern_shm_layout_format(st.base, &st.layout);
    TERN_LOG(2, "shm: created %s (%zu bytes: %d local ranks, %u cells of %u "
             "bytes per pair)", st.name, st.layout.size, st.local_size,
             key.ncells, key.cell_size);
    memcpy(key.name, st.name, sizeof(key.name));
    rc = tern_boot_put(KEY_SEG, &key, sizeof(key));
    if (rc != 0) {
        tern_shm_segment_unlink(st.name);
        st.unlinked = 1;
    }
    return rc;
}

static int shm_init(const struct tern_boot_info *boot)
{
    uint32_t ncells, cell_size, coll_slots;
    int rc = read_tunables(boot->local_size, &ncells, &cell_size, &coll_slots);

    st.rank = boot->rank;
    st.size = boot->size;
    st.local_rank = boot->local_rank;
    st.local_size = boot->local_size;
    if (rc != 0 || st.local_size < 2)
        return rc;
    rc = map_local_ranks(boot);
    if (rc == 0)
        rc = tern_shm_layout_compute(st.local_size, ncells, cell_size, coll_slots,
                                     &st.layout);
    if (rc != 0)
        return rc;
    if (st.cma_auto) {
        struct tern_shm_cma_id self;
        tern_shm_cma_self(&self);
        rc = tern_boot_put(KEY_CMA, &self, sizeof(self));
        if (rc != 0)
            return rc;
    }
    /* On a host with more ranks than cores, ranks sleep on every few
     * messages, and each membarrier() interrupts the core of the rank that
     * has work: there the senders' fence is the cheaper side (doorbell.h). */
    unsigned char mb = !boot->oversubscribed && tern_shm_doorbell_register();
    rc = tern_boot_put(KEY_MEMBARRIER, &mb, 1);
    if (rc != 0)
        return rc;
    return st.local_rank == 0 ? create(boot->jobid) : 0;
}

/* Attaches to the segment that local rank 0 created, with its geometry. */
static int attach(void)
{
    struct seg_key key = { 0 };
    size_t len = sizeof(key);
    int rc = tern_boot_get(st.peers[0].world, KEY_SEG, &key, &len);

    if (rc != 0)
        return rc;
    if (len != sizeof(key) || memchr(key.name, '\0', sizeof(key.name)) == NULL)
        return TERN_EPROTO;
    memcpy(st.name, key.name, sizeof(st.name));
    /* Whether the host measures is local rank 0's call, whatever this
     * rank's own environment says, so that ranks 0 and 1 agree on what
     * travels on their rings in ready(). */
    st.host_measures = key.measure != 0;
    rc = tern_shm_layout_compute(st.local_size, key.ncells, key.cell_size, key.coll_slots,
                                 &st.layout);
    if (rc == 0)
        rc = tern_shm_segment_attach(st.name, st.layout.size, &st.base);
    if (rc == 0)
        rc = tern_shm_layout_verify(st.base, &st.layout);
    return rc;
}

/* Reads a key that a local peer put, or reports it missing (a peer that
 * runs with TERN_SHM_CMA=off publishes no CMA keys) as length 0. */
static int get_peer_key(int world, const char *key, void *buf, size_t *len)
{
    int rc = tern_boot_get(world, key, buf, len);

    if (rc == TERN_ENOTFOUND) {
        *len = 0;
        return 0;
    }
    return rc;
}

/* The asymmetric doorbell (doorbell.h) is safe only when every rank on the
 * host registered for membarrier; all ranks read the same keys, so they
 * all agree. */
static int choose_doorbell_mode(void)
{
    int all = 1;
    for (int l = 0; l < st.local_size && all; l++) {
        unsigned char mb = 0;
        size_t len = 1;
        int rc = get_peer_key(st.peers[l].world, KEY_MEMBARRIER, &mb, &len);
        if (rc != 0)
            return rc;
        all = len == 1 && mb == 1;
    }
    tern_shm_doorbell_asym = all;
    TERN_LOG(2, "shm: doorbell %s", all ? "without sender fences (membarrier)"
                                       : "with sender fences (membarrier not available)");
    return 0;
}

/* Probes CMA against every local peer and publishes the results. */
static int probe_cma(void)
{
    unsigned char ok[TERN_BOOT_VALUE_MAX] = { 0 };
    const char *why = NULL;
    int first_peer = -1, refused = 0;

    if (st.local_size > TERN_BOOT_VALUE_MAX)
        return TERN_ENOTSUP;
    memset(ok, 0, (size_t)st.local_size);
    for (int l = 0; l < st.local_size; l++) {
        struct peer *p = &st.peers[l];
        size_t len = sizeof(p->cma);
        int err = 0;
        if (l == st.local_rank)
            continue;
        int rc = get_peer_key(p->world, KEY_CMA, &p->cma, &len);
        if (rc != 0)
            return rc;
        if (len == sizeof(p->cma))
            p->can_read = (unsigned char)tern_shm_cma_probe(&p->cma, &err);
        ok[l] = p->can_read;
        if (!p->can_read && refused++ == 0) {
            first_peer = p->world;
            why = len != sizeof(p->cma) ? "TERN_SHM_CMA=off there"
                  : err ? strerror(err) : "unexpected data";
        }
    }
    if (refused)
        TERN_LOG(1, "shm: single-copy (CMA) reads refused for %d of %d local "
                 "peers (rank %d: %s); large messages with them use the "
                 "pipelined copy (check kernel.yama.ptrace_scope, seccomp or "
                 "container limits)", refused, st.local_size - 1, first_peer,
                 why);
    return tern_boot_put(KEY_CMAOK, ok, (size_t)st.local_size);
}

static int shm_connect(void)
{
    if (st.local_size < 2)
        return 0;
    int rc = st.local_rank == 0 ? 0 : attach();
    if (rc != 0)
        return rc;
    for (int l = 0; l < st.local_size; l++) {
        struct peer *p = &st.peers[l];
        p->db = tern_shm_layout_doorbell(st.base, &st.layout, l);
        if (l == st.local_rank)
            continue;
        p->out = tern_shm_layout_ring(st.base, &st.layout, st.local_rank, l);
        p->in = tern_shm_layout_ring(st.base, &st.layout, l, st.local_rank);
    }
    st.my_db = st.peers[st.local_rank].db;
    tern_shm_xfer_area_init(&st.xfer, (char *)st.base + st.layout.xfer_off, st.local_size);
    tern_shm_layout_prefault_rings(st.base, &st.layout, st.local_rank);
    st.connected = 1;
    rc = choose_doorbell_mode();
    if (rc != 0)
        return rc;
    if (!st.cma_auto) {
        TERN_LOG(1, "shm: single-copy (CMA) is off (TERN_SHM_CMA=off); large "
                 "messages on this host use the pipelined copy");
        return 0;
    }
    return probe_cma();
}

/* Combines this rank's probe results with its peers'. */
static int combine_cma(void)
{
    unsigned char ok[TERN_BOOT_VALUE_MAX] = { 0 };
    int n_single = 0;

    for (int l = 0; l < st.local_size; l++) {
        struct peer *p = &st.peers[l];
        size_t len = sizeof(ok);
        if (l == st.local_rank || !p->can_read)
            continue;
        int rc = get_peer_key(p->world, KEY_CMAOK, ok, &len);
        if (rc != 0)
            return rc;
        p->single_copy = len == (size_t)st.local_size && ok[st.local_rank];
        n_single += p->single_copy;
    }
    /* Say it at level 1 when some peer cannot read this rank, even if this
     * rank's own probes all worked. */
    TERN_LOG(n_single == st.local_size - 1 ? 2 : 1, "shm: single copy (CMA) "
             "with %d of %d local peers, the pipelined copy with the others",
             n_single, st.local_size - 1);
    return 0;
}

/* Takes the host's answer to where single copy starts (calibrate.h): local
 * ranks 0 and 1 measure it over their rings when local rank 0's settings
 * ask for it and the two can read each other. A rank whose own
 * TERN_SHM_CMA_MIN is set takes part but keeps its setting. */
static int settle_contig_eager_max(void)
{
    int partner = st.local_rank == 0 ? 1 : 0;
    struct peer *p = &st.peers[partner];
    struct tern_shm_calib_link link = { p->out, p->in, (pid_t)p->cma.pid, p->world };
    struct tern_shm_seg_hdr *h = st.base;
    uint64_t max;
    int rc = tern_shm_calibrate(&h->contig_eager_max, st.local_rank, st.host_measures,
                                st.local_rank <= 1 && p->single_copy ? &link : NULL,
                                (pid_t)st.peers[0].cma.pid, &max);
    if (rc || !st.cma_auto)
        return rc;
    if (!st.cma_measure) {
        /* TERN_SHM_CMA_MIN says where reads start, as a measurement would. */
        st.contig_eager_max = st.cma_min > TERN_SHM_EAGER_MIN ? st.cma_min - 1
                                                             : TERN_SHM_EAGER_MIN;
    } else if (max != TERN_SHM_READ_NEVER) {
        st.contig_eager_max = (size_t)max;
        st.cma_min = (size_t)max + 1;
    }
    return 0;
}

static int shm_ready(void)
{
    if (st.local_size < 2)
        return 0;
    if (st.local_rank == 0) {
        int rc = tern_shm_segment_unlink(st.name);
        if (rc != 0)
            return rc;
        st.unlinked = 1;
    }
    int rc = st.cma_auto ? combine_cma() : 0;
    return rc ? rc : settle_contig_eager_max();
}

static int shm_finalize(void)
{
    if (st.local_rank == 0 && st.base && !st.unlinked)
        tern_shm_segment_unlink(st.name);
    tern_shm_segment_detach(st.base, st.layout.size);
    free(st.local_of);
    free(st.peers);
    memset(&st, 0, sizeof(st));
    return 0;
}

static int shm_reachable(int peer)
{
    return st.connected && peer >= 0 && peer < st.size && peer != st.rank
           && st.local_of[peer] >= 0;
}

static void shm_caps(int peer, struct tern_tp_caps *caps)
{
    int ok = shm_reachable(peer);

    caps->max_packet = ok ? st.layout.cell_size - TERN_SHM_CELL_HDR : 0;
    caps->single_copy = ok && st.peers[st.local_of[peer]].single_copy;
    caps->single_copy_min = st.cma_min;
    caps->contig_eager_max = caps->single_copy ? st.contig_eager_max : 0;
}

static int shm_send(int peer, const void *hdr, size_t hdr_len,
                    const void *payload, size_t payload_len)
{
    struct peer *p = &st.peers[st.local_of[peer]];
    int rc = tern_shm_ring_push(p->out, hdr, hdr_len, payload, payload_len);

    if (rc == 0)
        tern_shm_doorbell_ring(p->db);
    return rc;
}

static int shm_progress(void)
{
    int n = 0;

    if (st.in_progress || !st.connected)
        return 0;
    st.in_progress = 1;
    n += tern_shm_xfer_help(&st.xfer, st.local_rank);
    for (int l = 0; l < st.local_size; l++) {
        struct tern_shm_ring *r = st.peers[l].in;
        struct tern_shm_cell *c;
        /* At most one ring's worth per peer per call, so that one busy
         * sender cannot starve the others. */
        for (uint32_t i = 0; r && i < st.layout.ncells
                             && (c = tern_shm_ring_peek(r)) != NULL; i++) {
            tern_p2p_recv_packet(st.peers[l].world, c->data, c->len);
            tern_shm_ring_pop(r);
            n++;
        }
    }
    st.in_progress = 0;
    return n;
}

static int shm_get_bulk(int peer, void *local, uint64_t remote, uint64_t key,
                        size_t len)
{
    (void)key; /* CMA reads any address of the peer. */
    if (!shm_reachable(peer))
        return TERN_EINVAL;
    int l = st.local_of[peer];
    return tern_shm_xfer_read(&st.xfer, st.local_rank, l, (pid_t)st.peers[l].cma.pid,
                              st.peers[l].db, local, remote, len);
}

static int shm_block(int timeout_ms)
{
    if (!st.connected)
        return TERN_ENOTSUP;
    uint32_t ticket = tern_shm_doorbell_arm(st.my_db);
    for (int l = 0; l < st.local_size; l++) {
        if (st.peers[l].in && tern_shm_ring_ready(st.peers[l].in)) {
            tern_shm_doorbell_disarm(st.my_db);
            return 0;
        }
    }
    /* Flags of the collective area come without a packet; their writers
     * ring the doorbell too, so they must be re-checked here as well. */
    if (tern_p2p_recheck()) {
        tern_shm_doorbell_disarm(st.my_db);
        return 0;
    }
    tern_shm_doorbell_sleep(st.my_db, ticket, timeout_ms);
    return 0;
}

void *tern_shm_area(const struct tern_shm_layout **l)
{
    *l = &st.layout;
    return st.connected && st.layout.coll_slots ? st.base : NULL;
}

int tern_shm_coll_local(int w)
{
    return shm_reachable(w) || (st.connected && w == st.rank);
}

struct tern_shm_doorbell *tern_shm_coll_doorbell(int w)
{
    return shm_reachable(w) ? st.peers[st.local_of[w]].db : NULL;
}

static void shm_tunables(void)
{
    uint32_t ncells, cell_size, coll_slots;
    read_tunables(2, &ncells, &cell_size, &coll_slots);
}

const struct tern_tp_ops tern_shm_ops = {
    .name = "shm",
    .init = shm_init,
    .connect = shm_connect,
    .ready = shm_ready,
    .finalize = shm_finalize,
    .reachable = shm_reachable,
    .caps = shm_caps,
    .send = shm_send,
    .progress = shm_progress,
    .get_bulk = shm_get_bulk,
    .forget = tern_shm_xfer_forget,
    .block = shm_block,
    .tunables = shm_tunables,
};
