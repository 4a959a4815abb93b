/*
 * The self transport: packets a rank sends to itself. send() copies the
 * packet into a FIFO; progress() hands the queued packets to the p2p core.
 * Single-copy reads are plain memcpy, so large self messages cost one copy.
 */
#include <stdlib.h>
#include <string.h>

#include "tern/err.h"
#include "tern/p2p.h"
#include "transports/transport.h"

struct self_pkt {
    struct self_pkt *next;
    size_t len;
    char data[];
};

static struct self_pkt *head, *tail;
static int my_rank;

#define SELF_MAX_PACKET (64 * 1024)

static int self_init(const struct tern_boot_info *boot)
{
    my_rank = boot->rank;
    return 0;
}

static int self_nothing(void)
{
    return 0;
}

static int self_finalize(void)
{
    while (head) {
        struct self_pkt *p = head;
        head = p->next;
        free(p);
    }
    tail = NULL;
    return 0;
}

static int self_reachable(int peer)
{
    return peer == my_rank;
}

static void self_caps(int peer, struct tern_tp_caps *caps)
{
    (void)peer;
    caps->max_packet = SELF_MAX_PACKET;
    caps->single_copy = 1;
    caps->single_copy_min = 0;
}

static int self_send(int peer, const void *hdr, size_t hdr_len,
                     const void *payload, size_t payload_len)
{
    (void)peer;
    struct self_pkt *p = malloc(sizeof(*p) + hdr_len + payload_len);
    if (!p)
        return TERN_ENOMEM;
    p->next = NULL;
    p->len = hdr_len + payload_len;
    memcpy(p->data, hdr, hdr_len);
    if (payload_len)
        memcpy(p->data + hdr_len, payload, payload_len);
    if (tail)
        tail->next = p;
    else
        head = p;
    tail = p;
    return 0;
}

static int self_progress(void)
{
    /* Take the whole queue first: replies queued while delivering go to a
     * new queue and wait for the next call, so this never loops forever. */
    struct self_pkt *p = head;
    int n = 0;
    head = tail = NULL;
    while (p) {
        struct self_pkt *next = p->next;
        tern_p2p_recv_packet(my_rank, p->data, p->len);
        free(p);
        p = next;
        n++;
    }
    return n;
}

static int self_get_bulk(int peer, void *local, uint64_t remote, uint64_t key,
                         size_t len)
{
    (void)peer;
    (void)key;
    memcpy(local, (const void *)(uintptr_t)remote, len);
    return 0;
}

const struct tern_tp_ops tern_self_ops = {
    .name = "self",
    .init = self_init,
    .connect = self_nothing,
    .ready = self_nothing,
    .finalize = self_finalize,
    .reachable = self_reachable,
    .caps = self_caps,
    .send = self_send,
    .progress = self_progress,
    .get_bulk = self_get_bulk,
    .block = NULL,
};
