/*
 * The wire-up store: a key-value server inside mpirun's event loop.
 *
 * It listens on 127.0.0.1 when the job runs on this host alone, else on
 * the address that reaches the first remote host (tern_net_pick(), which
 * honours --iface and --port-range). Every connection must first pass the job-secret handshake of tern/auth.h, done
 * here step by step without blocking. A connection that sends garbage, a
 * wrong MAC, closes early or stays silent past HANDSHAKE_MS is dropped and
 * logged at verbose level; the job never notices. After the handshake the
 * rank says HELLO with its rank number and then sends framed requests
 * (tern/wire.h): PUT stores (rank, key) -> value, FENCE is answered to all
 * ranks once all have sent it, GET looks a value up, ABORT ends the job,
 * FINALIZE marks a clean exit and is acknowledged. A tern-hostd may say
 * WATCH instead of HELLO (launcher/hostd_proto.h) and then only hold the
 * connection open, to learn through TCP keepalive when mpirun's host is
 * gone. Values live in one list per rank; jobs are small enough per host
 * that a linear search is fine.
 *
 * Connections closed inside a loop iteration are freed at the start of the
 * next one, because the same batch of events may still point at them.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "launcher/hostd_proto.h"
#include "launcher/launcher.h"
#include "tern/clock.h"
#include "tern/err.h"
#include "tern/log.h"
#include "tern/net.h"
#include "tern/wire.h"

#define HANDSHAKE_MS 10000

struct kv {
    struct kv *next;
    char key[TERN_BOOT_KEY_MAX + 1];
    size_t len;
    unsigned char *val;
};

struct conn {
    struct tern_ev ev;
    struct conn *next;
    int authed;
    int watcher;              /* A tern-hostd watching mpirun (no rank). */
    int rank;                 /* -1 until HELLO. */
    struct tern_auth_server auth;
    unsigned char resp[TERN_AUTH_RESPONSE_LEN];
    size_t have;
    long long deadline;
    struct tern_wire_reader rd;
    struct tern_wire_writer wr;
    char peer[64];
};

struct tern_kvs {
    struct tern_ev listen_ev;
    struct conn *conns;       /* Open connections. */
    struct conn *dead;        /* Closed, freed at the next iteration. */
    struct conn **by_rank;
    struct kv **table;        /* Per rank: what it put. */
    int fenced;
};

static void drop(struct tern_job *job, struct conn *c, const char *why)
{
    struct tern_kvs *k = job->kvs;
    if (c->ev.fd < 0)
        return;
    if (why)
        TERN_LOG(1, "dropped store connection from %s: %s", c->peer, why);
    tern_loop_del(job, &c->ev);
    close(c->ev.fd);
    c->ev.fd = -1;
    if (c->rank >= 0 && k->by_rank[c->rank] == c)
        k->by_rank[c->rank] = NULL;
    for (struct conn **p = &k->conns; *p; p = &(*p)->next) {
        if (*p == c) {
            *p = c->next;
            break;
        }
    }
    c->next = k->dead;
    k->dead = c;
}

/* Writes what is queued; watches for POLLOUT while something remains. */
static void flush(struct tern_job *job, struct conn *c)
{
    int rc = tern_wire_writer_flush(&c->wr, c->ev.fd);
    if (rc < 0)
        drop(job, c, "write failed");
    else
        tern_loop_mod(job, &c->ev, rc ? EPOLLIN | EPOLLOUT : EPOLLIN);
}

static void fence(struct tern_job *job, struct conn *c)
{
    struct tern_kvs *k = job->kvs;
    struct tern_rank *r = &job->ranks[c->rank];
    if (!r->fenced) {
        r->fenced = 1;
        k->fenced++;
    }
    if (k->fenced < job->size) {
        tern_job_check_fence(job);
        return;
    }
    k->fenced = 0;
    for (int i = 0; i < job->size; i++) {
        job->ranks[i].fenced = 0;
        struct conn *o = k->by_rank[i];
        if (o) {
            tern_wire_writer_push(&o->wr, TERN_KVS_FENCE_DONE, NULL, 0);
            if (o != c)
                flush(job, o);
        }
    }
}

static void put(struct tern_kvs *k, int rank, const unsigned char *b, size_t len)
{
    uint32_t kl = tern_wire_get32(b);
    if (kl == 0 || kl > TERN_BOOT_KEY_MAX || 4 + (size_t)kl > len ||
        len - 4 - kl > TERN_BOOT_VALUE_MAX)
        return;
    struct kv *e = k->table[rank];
    while (e && !(strlen(e->key) == kl && memcmp(e->key, b + 4, kl) == 0))
        e = e->next;
    if (!e) {
        if (!(e = calloc(1, sizeof *e)))
            return;
        memcpy(e->key, b + 4, kl);
        e->next = k->table[rank];
        k->table[rank] = e;
    }
    free(e->val);
    e->len = len - 4 - kl;
    e->val = malloc(e->len ? e->len : 1);
    if (e->val)
        memcpy(e->val, b + 4 + kl, e->len);
    else
        e->len = 0;
}

static void get(struct tern_job *job, struct conn *c, const unsigned char *b, size_t len)
{
    unsigned char reply[4 + TERN_BOOT_VALUE_MAX];
    uint32_t r = tern_wire_get32(b);
    size_t kl = len - 4;
    struct kv *e = NULL;
    if (r < (uint32_t)job->size)
        for (e = job->kvs->table[r]; e; e = e->next)
            if (strlen(e->key) == kl && memcmp(e->key, b + 4, kl) == 0)
                break;
    tern_wire_put32(reply, e != NULL);
    if (e)
        memcpy(reply + 4, e->val, e->len);
    tern_wire_writer_push(&c->wr, TERN_KVS_GET_REPLY, reply, 4 + (e ? e->len : 0));
}

static void hello(struct tern_job *job, struct conn *c, const unsigned char *b, size_t len)
{
    uint32_t r = len == 8 ? tern_wire_get32(b) : UINT32_MAX;
    if (c->rank >= 0 || r >= (uint32_t)job->size || job->kvs->by_rank[r]) {
        drop(job, c, "invalid or duplicate HELLO");
        return;
    }
    c->rank = (int)r;
    job->kvs->by_rank[r] = c;
    job->ranks[r].connected = 1;
    TERN_LOG(2, "rank %u (pid %u) connected to the store", r, tern_wire_get32(b + 4));
}

static void abort_msg(struct tern_job *job, struct conn *c, const unsigned char *b,
                      size_t len)
{
    int code = len >= 4 ? (int)tern_wire_get32(b) : 1;
    int ml = len > 4 ? (int)(len - 4) : 0;
    struct tern_rank *r = &job->ranks[c->rank];
    tern_job_fail(job, code & 0xff, "rank %d (pid %d) on host %s aborted the job "
                  "(exit code %d)%s%.*s", c->rank, tern_job_rank_pid(r),
                  tern_job_rank_host(job, c->rank), code & 0xff,
                  ml ? ": " : "", ml, ml ? (const char *)b + 4 : "");
}

/* Handles one framed request. */
static void request(struct tern_job *job, struct conn *c)
{
    const unsigned char *b = c->rd.body;
    size_t len = c->rd.len;
    uint32_t type = c->rd.type;
    if (c->watcher) {
        drop(job, c, "request from a watching tern-hostd");
        return;
    }
    if (type == TERN_HOSTD_KVS_WATCH && c->rank < 0 && len == 0) {
        c->watcher = 1;
        TERN_LOG(2, "tern-hostd at %s watches mpirun through the store", c->peer);
        return;
    }
    if (type == TERN_KVS_HELLO) {
        hello(job, c, b, len);
        return;
    }
    if (c->rank < 0) {
        drop(job, c, "request before HELLO");
        return;
    }
    if (type == TERN_KVS_PUT && len >= 4) {
        put(job->kvs, c->rank, b, len);
    } else if (type == TERN_KVS_FENCE) {
        fence(job, c);
    } else if (type == TERN_KVS_GET && len >= 4) {
        get(job, c, b, len);
    } else if (type == TERN_KVS_ABORT) {
        abort_msg(job, c, b, len);
    } else if (type == TERN_KVS_FINALIZE) {
        job->ranks[c->rank].finalized = 1;
        tern_wire_writer_push(&c->wr, TERN_KVS_FINALIZE_ACK, NULL, 0);
    } else {
        drop(job, c, "malformed request");
    }
}

/* Reads the client's handshake response; returns 1 once authenticated. */
static int handshake(struct tern_job *job, struct conn *c)
{
    ssize_t n = recv(c->ev.fd, c->resp + c->have, sizeof c->resp - c->have, 0);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        drop(job, c, "closed during the handshake");
        return 0;
    }
    if (n < 0)
        return 0;
    c->have += (size_t)n;
    if (c->have < sizeof c->resp)
        return 0;
    unsigned char proof[TERN_AUTH_PROOF_LEN];
    if (tern_auth_server_check(&c->auth, job->secret, c->resp, proof)) {
        drop(job, c, "handshake failed (not this job's secret)");
        return 0;
    }
    c->authed = 1;
    tern_wire_writer_push_raw(&c->wr, proof, sizeof proof);
    return 1;
}

static void on_conn(struct tern_job *job, struct tern_ev *ev, uint32_t events)
{
    struct conn *c = ev->arg;
    if (ev->fd < 0)
        return;
    if (!c->authed && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && !handshake(job, c))
        return;
    while (ev->fd >= 0 && c->authed) {
        int rc = tern_wire_reader_fill(&c->rd, ev->fd);
        if (rc == 0)
            break;
        if (rc < 0) {
            int r = c->rank;
            drop(job, c, rc == TERN_EPEER ? NULL : "read error or oversized message");
            if (r >= 0)
                TERN_LOG(2, "rank %d closed its store connection", r);
            return;
        }
        request(job, c);
        tern_wire_reader_next(&c->rd);
    }
    if (ev->fd >= 0)
        flush(job, c);
}

static void accept_one(struct tern_job *job, int fd, const struct tern_addr *sa)
{
    struct conn *c = calloc(1, sizeof *c);
    unsigned char chal[TERN_AUTH_CHALLENGE_LEN];
    int one = 1;
    if (!c) {
        close(fd);
        return;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->ev.fd = fd;
    c->ev.cb = on_conn;
    c->ev.arg = c;
    c->rank = -1;
    c->deadline = tern_clock_ms() + HANDSHAKE_MS;
    tern_net_format(sa, c->peer, sizeof c->peer);
    tern_wire_reader_init(&c->rd, TERN_KVS_MSG_MAX);
    tern_wire_writer_init(&c->wr);
    c->next = job->kvs->conns;
    job->kvs->conns = c;
    tern_loop_add(job, &c->ev, EPOLLIN);
    if (tern_auth_server_challenge(&c->auth, chal)) {
        drop(job, c, "no randomness for the challenge");
        return;
    }
    tern_wire_writer_push_raw(&c->wr, chal, sizeof chal);
    flush(job, c);
}

static void on_accept(struct tern_job *job, struct tern_ev *ev, uint32_t events)
{
    (void)events;
    for (;;) {
        struct tern_addr sa;
        sa.len = sizeof sa.sa;
        int fd = accept4(ev->fd, (struct sockaddr *)&sa.sa, &sa.len,
                         SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            return;
        }
        accept_one(job, fd, &sa);
    }
}

/* Picks the address toward the first remote host it can (a name that does
 * not resolve is the ssh preflight's to report, with its host); 127.0.0.1
 * for a job on this host alone. */
static int pick(const struct tern_job *job, struct tern_addr *addr, char *err,
                size_t errlen)
{
    const struct tern_hostlist *hl = &job->plan.hl;
    int rc = 1;
    for (int i = 0; job->plan.remote && i < hl->n && rc; i++) {
        if (hl->hosts[i].local)
            continue;
        rc = tern_net_pick(hl->hosts[i].name, addr, err, errlen);
        if (rc == TERN_EINVAL)
            return rc;
    }
    return rc == 0 ? 0 : tern_net_pick(NULL, addr, err, errlen);
}

int tern_kvs_start(struct tern_job *job)
{
    struct tern_kvs *k = calloc(1, sizeof *k);
    if (!k || !(k->by_rank = calloc((size_t)job->size, sizeof *k->by_rank)) ||
        !(k->table = calloc((size_t)job->size, sizeof *k->table)))
        return TERN_ENOMEM;
    job->kvs = k;
    char err[512];
    struct tern_addr addr;
    int fd = pick(job, &addr, err, sizeof err);
    if (fd == 0)
        fd = tern_net_listen(&addr, err, sizeof err);
    if (fd < 0) {
        tern_mpirun_msg("cannot listen for the wire-up store: %s", err);
        return TERN_EIO;
    }
    tern_net_format(&addr, job->kvs_addr, sizeof job->kvs_addr);
    TERN_LOG(1, "the wire-up store listens on %s", job->kvs_addr);
    k->listen_ev.fd = fd;
    k->listen_ev.cb = on_accept;
    return tern_loop_add(job, &k->listen_ev, EPOLLIN);
}

void tern_kvs_drain_rank(struct tern_job *job, int rank)
{
    struct conn *c = job->kvs ? job->kvs->by_rank[rank] : NULL;
    if (c)
        on_conn(job, &c->ev, EPOLLIN);
}

static void free_dead(struct tern_kvs *k)
{
    while (k->dead) {
        struct conn *c = k->dead;
        k->dead = c->next;
        tern_wire_reader_free(&c->rd);
        tern_wire_writer_free(&c->wr);
        free(c);
    }
}

long long tern_kvs_deadline(struct tern_job *job, long long now)
{
    struct tern_kvs *k = job->kvs;
    long long next = 0;
    if (!k)
        return 0;
    free_dead(k);
    for (struct conn *c = k->conns, *n; c; c = n) {
        n = c->next;
        if (c->rank >= 0 || c->watcher)
            continue;
        if (now >= c->deadline)
            drop(job, c, "no handshake and HELLO in time");
        else if (!next || c->deadline < next)
            next = c->deadline;
    }
    free_dead(k);
    return next;
}

void tern_kvs_stop(struct tern_job *job)
{
    struct tern_kvs *k = job->kvs;
    if (!k)
        return;
    while (k->conns)
        drop(job, k->conns, NULL);
    free_dead(k);
    close(k->listen_ev.fd);
    for (int i = 0; i < job->size; i++) {
        for (struct kv *e = k->table[i], *n; e; e = n) {
            n = e->next;
            free(e->val);
            free(e);
        }
    }
    free(k->table);
    free(k->by_rank);
    free(k);
    job->kvs = NULL;
}
