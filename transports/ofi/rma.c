/*
 * Memory registration and remote reads.
 *
 * A large message goes as one remote read: the sender registers its buffer
 * for FI_REMOTE_READ and sends the key in the RTS; the receiver reads the
 * bytes straight into its own buffer and answers FIN, after which the
 * sender closes the registration. Cost: the RTS and FIN packets, two
 * registrations and one read, with no copy on either side; on an RDMA
 * fabric the sender's CPU takes no part in the read. Reads run in the
 * background: the receiver's progress posts the pieces of every read
 * under way and completes each message when its last piece is in, so
 * many rendezvous messages (a window of MPI_Irecv) are read at once.
 *
 * Registrations are made per message and closed when it completes, so a
 * buffer the program frees afterwards never has a stale registration of
 * Tern's. Providers whose registrations are expensive (verbs, efa, cxi)
 * serve fi_mr_reg from libfabric's registration cache, whose memory
 * monitor drops entries when memory is unmapped; a second cache here would
 * need the same monitor to stay correct.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_rma.h>

#include "tern/err.h"
#include "tern/log.h"
#include "transports/ofi/ofi.h"

/* The size of a read's pieces (why: struct ofi_read in ofi.h). */
#define READ_PIECE (256UL * 1024)

int tern_ofi_mr_reg(const struct ofi_rma *r, const void *buf, size_t len,
                    uint64_t access, struct fid_mr **mr)
{
    static uint64_t next_key = 1;
    *mr = NULL;
    if (!(access & FI_REMOTE_READ) && !(r->mr_mode & FI_MR_LOCAL))
        return 0;
    uint64_t key = (r->mr_mode & FI_MR_PROV_KEY) ? 0 : next_key++;
    int rc = fi_mr_reg(r->domain, buf, len, access, 0, key, 0, mr, NULL);
    if (rc) {
        TERN_LOG(1, "ofi: registering %zu bytes failed: %s", len, tern_fi.strerror(-rc));
        *mr = NULL;
        return TERN_EIO;
    }
    if (r->mr_mode & FI_MR_ENDPOINT) {
        rc = fi_mr_bind(*mr, &r->ep->fid, 0);
        if (!rc)
            rc = fi_mr_enable(*mr);
        if (rc) {
            fi_close(&(*mr)->fid);
            *mr = NULL;
            return TERN_EIO;
        }
    }
    return 0;
}

int tern_ofi_expose(const struct ofi_rma *r, const void *buf, size_t len,
                    uint64_t *key, void **handle)
{
    struct fid_mr *mr;
    if (!r->usable || tern_ofi_mr_reg(r, buf, len, FI_REMOTE_READ, &mr))
        return TERN_ENOTSUP;
    *key = fi_mr_key(mr);
    *handle = mr;
    return 0;
}

void tern_ofi_unexpose(void *handle)
{
    fi_close(&((struct fid_mr *)handle)->fid);
}

struct ofi_read *tern_ofi_read_start(const struct ofi_rma *r, fi_addr_t from,
                                     void *local, uint64_t remote, uint64_t key,
                                     size_t len, void *arg)
{
    struct ofi_read *rd = calloc(1, sizeof *rd);
    if (!rd)
        return NULL;
    if (tern_ofi_mr_reg(r, local, len, FI_READ, &rd->mr)) {
        free(rd);
        return NULL;
    }
    rd->desc = rd->mr ? fi_mr_desc(rd->mr) : NULL;
    rd->from = from;
    rd->local = local;
    /* Without FI_MR_VIRT_ADDR a registration is addressed from 0. */
    rd->base = (r->mr_mode & FI_MR_VIRT_ADDR) ? remote : 0;
    rd->key = key;
    rd->len = len;
    rd->arg = arg;
    for (int i = 0; i < READ_DEPTH; i++) {
        rd->slot[i].op = OP_READ;
        rd->slot[i].read = rd;
    }
    tern_ofi_read_advance(r, rd);
    return rd;
}

int tern_ofi_read_advance(const struct ofi_rma *r, struct ofi_read *rd)
{
    for (int i = 0; i < READ_DEPTH && !rd->error && rd->asked < rd->len; i++) {
        struct ofi_op_ctx *c = &rd->slot[i];
        if (c->busy)
            continue;
        size_t n = rd->len - rd->asked < READ_PIECE ? rd->len - rd->asked : READ_PIECE;
        ssize_t s = fi_read(r->ep, rd->local + rd->asked, n, rd->desc, rd->from,
                            rd->base + rd->asked, rd->key, c);
        if (s == -FI_EAGAIN)
            break;
        if (s) {
            TERN_LOG(1, "ofi: fi_read of %zu bytes failed: %s", n, tern_fi.strerror((int)-s));
            rd->error = (int)-s;
            break;
        }
        c->busy = 1;
        rd->inflight++;
        rd->asked += n;
    }
    return rd->inflight == 0 && (rd->error || rd->asked >= rd->len);
}

void tern_ofi_read_free(struct ofi_read *rd)
{
    if (rd->mr)
        fi_close(&rd->mr->fid);
    free(rd);
}
