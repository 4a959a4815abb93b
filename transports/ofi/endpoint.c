/*
 * The fabric objects of the ofi transport: fabric, domain, completion
 * queue, address vector and endpoint for the provider chosen, the send and
 * receive buffers, and the address a rank publishes for its peers.
 *
 * An endpoint of libfabric's shm provider gets a name of this job's
 * (name_shm_endpoint), since the provider's own names start with the pid.
 *
 * The completion queue gets a file descriptor (FI_WAIT_FD) where the
 * provider has one, so that an idle rank sleeps in poll(); otherwise idle
 * ranks nap (ofi.c). Opening may load more of the provider's libraries,
 * so the program's signal handlers are saved around it and put back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include "tern/err.h"
#include "tern/log.h"
#include "tern/shmname.h"
#include "transports/ofi/ofi.h"


static int failed(const char *what, int rc)
{
    tern_log("ofi (%s): %s failed: %s", tern_ofi.info->fabric_attr->prov_name, what,
             tern_fi.strerror(-rc));
    return TERN_EIO;
}

static int open_cq(void)
{
    struct ofi_state *st = &tern_ofi;
    struct fi_cq_attr a = { .format = FI_CQ_FORMAT_TAGGED, .wait_obj = FI_WAIT_FD };
    if (fi_cq_open(st->domain, &a, &st->cq, NULL) == 0 &&
        fi_control(&st->cq->fid, FI_GETWAIT, &st->wait_fd) == 0)
        return 0;
    if (st->cq)
        fi_close(&st->cq->fid);
    st->cq = NULL;
    st->wait_fd = -1;
    TERN_LOG(1, "ofi: %s has no wait fd; idle ranks nap", st->info->fabric_attr->prov_name);
    a.wait_obj = FI_WAIT_NONE;
    int rc = fi_cq_open(st->domain, &a, &st->cq, NULL);
    return rc ? failed("fi_cq_open", rc) : 0;
}

/* The send and receive buffers, registered when the provider asks. */
static int make_buffers(void)
{
    struct ofi_state *st = &tern_ofi;
    size_t n = (size_t)(st->nsend + st->nrecv);
    st->pool = aligned_alloc(64, n * st->buf_size);
    st->ops = calloc(n, sizeof *st->ops);
    if (!st->pool || !st->ops)
        return TERN_ENOMEM;
    if (tern_ofi_mr_reg(&st->rma, st->pool, n * st->buf_size, FI_SEND | FI_RECV,
                        &st->pool_mr))
        return TERN_EIO;
    void *desc = st->pool_mr ? fi_mr_desc(st->pool_mr) : NULL;
    for (size_t i = 0; i < n; i++) {
        struct ofi_op_ctx *c = &st->ops[i];
        c->data = st->pool + i * st->buf_size;
        c->desc = desc;
        if (i < (size_t)st->nsend) {
            c->op = OP_SEND;
            c->next = st->send_free;
            st->send_free = c;
        } else {
            c->op = OP_RECV;
            if (tern_ofi_post_recv(c))
                return TERN_EIO;
        }
    }
    return 0;
}

/* Names an endpoint of the shm provider "tern-<euid>-<jobid>-ofi-<rank>",
 * which is also the name of the region it creates in /dev/shm. The
 * provider's own names start with the pid, and a region that a killed
 * job left behind made a later rank with the same pid fail in fi_enable
 * (seen in runs of the test suite: "File exists"). Under the job's prefix
 * the name is new for every job, and mpirun removes what a killed job
 * left (tern/shmname.h). Other providers keep their names. */
static int name_shm_endpoint(const char *jobid)
{
    struct ofi_state *st = &tern_ofi;
    char name[160];
    size_t n;

    if (strcmp(st->info->fabric_attr->prov_name, "shm") != 0)
        return 0;
    if (tern_shmname_prefix(name, sizeof name, jobid) != 0 ||
        (n = strlen(name)) + 16 > sizeof name)
        return TERN_EINVAL;
    snprintf(name + n, sizeof name - n, "ofi-%d", st->rank);
    int rc = fi_setname(&st->ep->fid, name, strlen(name) + 1);
    if (rc)
        return failed("fi_setname", rc);
    TERN_LOG(2, "ofi: shm endpoint named %s", name);
    return 0;
}

static int open_all(const char *jobid)
{
    struct ofi_state *st = &tern_ofi;
    struct fi_info *i = st->info;
    int rc = tern_fi.fabric(i->fabric_attr, &st->fabric, NULL);
    if (rc)
        return failed("fi_fabric", rc);
    if ((rc = fi_domain(st->fabric, i, &st->domain, NULL)))
        return failed("fi_domain", rc);
    if ((rc = open_cq()))
        return rc;
    struct fi_av_attr av = { .type = i->domain_attr->av_type };
    if ((rc = fi_av_open(st->domain, &av, &st->av, NULL)))
        return failed("fi_av_open", rc);
    if ((rc = fi_endpoint(st->domain, i, &st->ep, NULL)))
        return failed("fi_endpoint", rc);
    if ((rc = fi_ep_bind(st->ep, &st->av->fid, 0)) ||
        (rc = fi_ep_bind(st->ep, &st->cq->fid, FI_TRANSMIT | FI_RECV)))
        return failed("fi_ep_bind", rc);
    if ((rc = name_shm_endpoint(jobid)))
        return rc;
    if ((rc = fi_enable(st->ep)))
        return failed("fi_enable", rc);
    st->rma.domain = st->domain;
    st->rma.ep = st->ep;
    st->rma.mr_mode = i->domain_attr->mr_mode;
    st->rma.usable = (i->caps & FI_RMA) && (i->caps & FI_READ) && st->use_rma;
    st->inject_max = i->tx_attr->inject_size < OFI_INJECT_MAX ? i->tx_attr->inject_size
                                                              : OFI_INJECT_MAX;
    st->tagged = (i->caps & FI_TAGGED) != 0;
    st->frame = st->tagged ? 0 : sizeof(struct ofi_frame);
    st->max_packet = st->buf_size - st->frame;
    return make_buffers();
}

int tern_ofi_open(const char *jobid)
{
    struct ofi_signals saved;
    tern_ofi_signals_save(&saved);
    int rc = open_all(jobid);
    tern_ofi_signals_restore(&saved);
    if (rc)
        tern_ofi_close();
    return rc;
}

static void close_fid(struct fid *f, const char *what)
{
    int rc = fi_close(f);
    if (rc)
        TERN_LOG(1, "ofi: closing the %s failed: %s", what, tern_fi.strerror(-rc));
}

void tern_ofi_close(void)
{
    struct ofi_state *st = &tern_ofi;
    /* Registrations first (they may be bound to the endpoint), then the
     * endpoint, then what it was bound to; each object before its parent. */
    while (st->reads) {
        struct ofi_read *rd = st->reads;
        st->reads = rd->next;
        tern_ofi_read_free(rd);
    }
    if (st->pool_mr)
        close_fid(&st->pool_mr->fid, "buffer registration");
    if (st->ep)
        close_fid(&st->ep->fid, "endpoint");
    if (st->av)
        close_fid(&st->av->fid, "address vector");
    if (st->cq)
        close_fid(&st->cq->fid, "completion queue");
    if (st->domain)
        close_fid(&st->domain->fid, "domain");
    if (st->fabric)
        close_fid(&st->fabric->fid, "fabric");
    st->pool_mr = NULL;
    st->ep = NULL;
    st->av = NULL;
    st->cq = NULL;
    st->domain = NULL;
    st->fabric = NULL;
    st->wait_fd = -1;
    free(st->pool);
    free(st->ops);
    st->pool = NULL;
    st->ops = NULL;
    st->send_free = st->ready_head = st->ready_tail = st->unposted = NULL;
}

int tern_ofi_address(const char *host, char *out, size_t cap)
{
    struct ofi_state *st = &tern_ofi;
    unsigned char name[OFI_ADDR_MAX];
    size_t len = sizeof name;
    int rc = fi_getname(&st->ep->fid, name, &len);
    if (rc)
        return failed("fi_getname", rc);
    int k = snprintf(out, cap, "%s %u %zu %s %s ", st->info->fabric_attr->prov_name,
                     st->info->addr_format, st->buf_size, st->tagged ? "tagged" : "msg",
                     host);
    if (k < 0 || (size_t)k + 2 * len + 1 > cap)
        return TERN_EINVAL;
    for (size_t i = 0; i < len; i++)
        snprintf(out + k + 2 * i, 3, "%02x", name[i]);
    return 0;
}

int tern_ofi_parse_address(char *val, int *same, char **prov, char **host,
                           unsigned char *addr, size_t cap, size_t *addr_len)
{
    struct ofi_state *st = &tern_ofi;
    char *save = NULL, *fmt, *buf, *mode, *hex;
    *prov = strtok_r(val, " ", &save);
    fmt = strtok_r(NULL, " ", &save);
    buf = strtok_r(NULL, " ", &save);
    mode = strtok_r(NULL, " ", &save);
    *host = strtok_r(NULL, " ", &save);
    hex = strtok_r(NULL, " ", &save);
    if (!*prov || !fmt || !buf || !mode || !*host || !hex)
        return TERN_EPROTO;
    *same = !strcmp(*prov, st->info->fabric_attr->prov_name) &&
            strtoul(fmt, NULL, 10) == st->info->addr_format &&
            strtoul(buf, NULL, 10) == st->buf_size &&
            !strcmp(mode, st->tagged ? "tagged" : "msg");
    size_t n = strlen(hex);
    if (n % 2 || n / 2 > cap)
        return TERN_EPROTO;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return TERN_EPROTO;
        addr[i] = (unsigned char)v;
    }
    *addr_len = n / 2;
    return 0;
}
