/*
 * The TCP transport: ranks on different hosts (or all ranks, with
 * TERN_TRANSPORTS=self,tcp) exchange packets over one authenticated TCP
 * connection per pair, driven by epoll from the progress engine. The
 * protocol and the failure rules are in transports/tcp/tcp.h.
 *
 * Phases (see transports/transport.h):
 *   init     when some peer needs TCP (it is not on this host, or shm is not
 *            allowed): listen on the address include/tern/net.h picks and
 *            publish it with our hostname ("tcp.addr").
 *   connect  read the addresses of the peers this transport serves.
 *   ready    nothing: connections open on first use.
 *   finalize close everything (after the job-wide fence, so no peer still
 *            reads).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tern/boot.h"
#include "tern/clock.h"
#include "tern/err.h"
#include "tern/log.h"
#include "transports/failure.h"
#include "transports/registry.h"
#include "transports/tcp/tcp.h"
#include "transports/transport.h"

#define KEY_ADDR "tcp.addr"
#define MAX_EVENTS 32
/* Up to this many connections are read directly instead of through epoll. */
#define DIRECT_MAX 4
/* Progress calls between two epoll_wait() while reading directly. */
#define EPOLL_EVERY 64
/* The largest TERN_TCP_CHUNK honoured (frame lengths are 32-bit). */
#define MAX_CHUNK (64L * 1024 * 1024)
/* Progress calls between checks of handshake deadlines. */
#define DEADLINE_TICKS 1024

struct peer {
    int served;              /* This transport carries traffic to it. */
    struct tern_addr addr;   /* Its listener. */
    char host[TERN_HOSTNAME_MAX];
    struct tcp_conn *conn;   /* The authenticated connection, or NULL. */
    struct tcp_conn *dialing;/* Our pending connection to it, or NULL. */
    int lost;                /* Its connection failed; no new one is made. */
};

static struct {
    int enabled;             /* Serves at least one peer. */
    int rank, size;
    const unsigned char *secret;
    char host[TERN_HOSTNAME_MAX];
    int epfd, listen_fd;
    struct tern_addr self;
    struct peer *peers;
    struct tcp_conn *conns;  /* Every connection, for deadlines and reaping. */
    int handshakes;          /* Connections still in their handshake. */
    unsigned ticks;
    size_t max_packet, eager_max;
    long timeout_s;
    struct tern_tp_failure fail; /* A lost peer, and when. */
    int reap;                /* Some connection is dead and not yet freed. */
    long long listen_rest;   /* The listener is out of epoll until then, or 0. */
    int nready;              /* Authenticated connections. */
    unsigned skips;          /* Progress calls that did not ask epoll. */
    int closing;
} st = { .epfd = -1, .listen_fd = -1 };

static void read_tunables(void)
{
    st.max_packet = (size_t)tern_env_long("TERN_TCP_CHUNK", 512 * 1024,
        "Largest packet on a TCP connection, in bytes (the chunk of large messages)");
    st.eager_max = (size_t)tern_env_long("TERN_TCP_EAGER", 64 * 1024,
        "Largest message sent eagerly over TCP; larger ones wait for the receiver");
    st.timeout_s = tern_env_long("TERN_TCP_TIMEOUT", 20,
        "Seconds after which a silent TCP peer counts as lost (keepalive, user timeout)");
    st.fail.grace_ms = tern_env_long("TERN_TCP_FAIL_GRACE_MS", 1000,
        "After losing a TCP peer, how long a rank waits for the launcher to end the "
        "job before it aborts the job itself");
    if (st.max_packet < 4096)
        st.max_packet = 4096;
    if (st.max_packet > MAX_CHUNK)
        st.max_packet = MAX_CHUNK;
    if (st.eager_max > st.max_packet - 64)
        st.eager_max = st.max_packet - 64;
}

static int epoll_add(int fd, void *ptr, uint32_t events)
{
    struct epoll_event e = { .events = events, .data.ptr = ptr };
    return epoll_ctl(st.epfd, EPOLL_CTL_ADD, fd, &e) ? TERN_EIO : 0;
}

/* Host name or address the listener must be reachable from. */
static const char *toward(const struct tern_boot_info *b)
{
    for (int r = 0; r < b->size; r++)
        if (r != b->rank && !tern_tp_local(b, r))
            return b->store_addr;
    return NULL;
}

static int tcp_init(const struct tern_boot_info *b)
{
    read_tunables();
    int any = 0;
    for (int r = 0; r < b->size; r++)
        any |= tern_tp_needs_network(b, r);
    if (!any || b->singleton)
        return 0;
    st.rank = b->rank;
    st.size = b->size;
    st.secret = tern_boot_secret();
    snprintf(st.host, sizeof st.host, "%s", b->hostname);
    st.peers = calloc((size_t)b->size, sizeof *st.peers);
    if (!st.peers)
        return TERN_ENOMEM;
    for (int r = 0; r < b->size; r++)
        st.peers[r].served = tern_tp_needs_network(b, r);
    char err[300];
    int rc = tern_net_pick(toward(b), &st.self, err, sizeof err);
    if (rc) {
        tern_log("tcp: %s", err);
        return rc;
    }
    st.listen_fd = tern_net_listen(&st.self, err, sizeof err);
    if (st.listen_fd < 0) {
        tern_log("tcp: %s", err);
        return st.listen_fd;
    }
    st.epfd = epoll_create1(EPOLL_CLOEXEC);
    if (st.epfd < 0 || epoll_add(st.listen_fd, &st, EPOLLIN))
        return TERN_EIO;
    char val[TERN_HOSTNAME_MAX + 80];
    tern_net_format(&st.self, val, sizeof val);
    TERN_LOG(2, "tcp: listening on %s", val);
    size_t n = strlen(val);
    snprintf(val + n, sizeof val - n, " %s", st.host);
    st.enabled = 1;
    return tern_boot_put(KEY_ADDR, val, strlen(val) + 1);
}

static int tcp_connect(void)
{
    for (int r = 0; st.enabled && r < st.size; r++) {
        struct peer *p = &st.peers[r];
        if (!p->served)
            continue;
        char val[TERN_HOSTNAME_MAX + 80];
        size_t len = sizeof val;
        int rc = tern_boot_get(r, KEY_ADDR, val, &len);
        if (rc)
            return rc;
        val[sizeof val - 1] = '\0';
        char *space = strchr(val, ' ');
        if (!space)
            return TERN_EPROTO;
        *space = '\0';
        snprintf(p->host, sizeof p->host, "%s", space + 1);
        if (tern_net_parse(val, &p->addr))
            return TERN_EPROTO;
    }
    return 0;
}

static int tcp_ready(void)
{
    return 0;
}

static int tcp_finalize(void)
{
    st.closing = 1;
    while (st.conns) {
        struct tcp_conn *c = st.conns;
        st.conns = c->next;
        tern_tcp_conn_free(c);
    }
    if (st.listen_fd >= 0)
        close(st.listen_fd);
    if (st.epfd >= 0)
        close(st.epfd);
    free(st.peers);
    memset(&st, 0, sizeof st);
    st.epfd = st.listen_fd = -1;
    return 0;
}

static int tcp_reachable(int peer)
{
    return st.enabled && peer >= 0 && peer < st.size && st.peers[peer].served;
}

static void tcp_caps(int peer, struct tern_tp_caps *caps)
{
    (void)peer;
    caps->max_packet = st.max_packet;
    caps->eager_max = st.eager_max;
    caps->single_copy = 0;
    caps->single_copy_min = 0;
}

/* Records the loss of a peer; the job ends after the grace period. */
static void peer_lost(int peer, const char *why)
{
    struct peer *p = &st.peers[peer];
    if (st.closing || p->lost)
        return;
    p->lost = 1;
    char where[80];
    tern_net_format(&p->addr, where, sizeof where);
    tern_tp_failure_set(&st.fail, "lost the TCP connection to rank %d (host %s, %s): %s; "
                        "that rank or its host failed, or the network between them",
                        peer, p->host, where, why);
}

static void conn_dead(struct tcp_conn *c)
{
    if (c->state != CONN_READY && c->state != CONN_DEAD)
        st.handshakes--;
    if (c->state == CONN_READY)
        st.nready--;
    c->state = CONN_DEAD;
    st.reap = 1;
    if (c->peer >= 0 && c->peer < st.size) {
        if (st.peers[c->peer].conn == c)
            st.peers[c->peer].conn = NULL;
        if (st.peers[c->peer].dialing == c)
            st.peers[c->peer].dialing = NULL;
    }
}

static int dial(int peer)
{
    struct peer *p = &st.peers[peer];
    struct tcp_conn *c = tern_tcp_conn_dial(&p->addr, peer);
    if (!c || epoll_add(c->fd, c, EPOLLIN | EPOLLOUT)) {
        peer_lost(peer, strerror(errno));
        tern_tcp_conn_free(c);
        return TERN_EPEER;
    }
    c->deadline_ms = tern_clock_ms() + st.timeout_s * 1000;
    c->next = st.conns;
    st.conns = c;
    st.handshakes++;
    p->dialing = c;
    return 0;
}

static int tcp_send(int peer, const void *hdr, size_t hdr_len,
                    const void *payload, size_t payload_len)
{
    struct peer *p = &st.peers[peer];
    if (!p->conn) {
        if (p->lost)
            return TERN_EPEER;
        if (!p->dialing && dial(peer))
            return TERN_EPEER;
        return TERN_EAGAIN;
    }
    struct tcp_conn *c = p->conn;
    int rc = tern_tcp_conn_send(c, hdr, hdr_len, payload, payload_len);
    if (rc && rc != TERN_EAGAIN) {
        peer_lost(peer, strerror(errno));
        conn_dead(c);
        return TERN_EPEER;
    }
    return rc;
}

/* The acceptor's choice between two connections of one pair. */
static int decide(struct tcp_conn *c)
{
    if (c->peer >= st.size || !st.peers[c->peer].served)
        return -1;
    struct peer *p = &st.peers[c->peer];
    if (p->conn)
        return 0;
    if (p->dialing) {
        if (st.rank < c->peer)
            return 0;
        epoll_ctl(st.epfd, EPOLL_CTL_DEL, p->dialing->fd, NULL);
        conn_dead(p->dialing);
    }
    return 1;
}

static void became_ready(struct tcp_conn *c)
{
    struct peer *p = &st.peers[c->peer];
    st.handshakes--;
    if (p->dialing == c)
        p->dialing = NULL;
    p->conn = c;
    st.nready++;
    tern_tcp_conn_tune(c, (int)st.timeout_s);
    struct epoll_event e = { .events = EPOLLIN, .data.ptr = c };
    epoll_ctl(st.epfd, EPOLL_CTL_MOD, c->fd, &e);
    TERN_LOG(2, "tcp: connected to rank %d (%s)", c->peer, p->host);
}

static int on_conn(struct tcp_conn *c);

static int on_handshake(struct tcp_conn *c)
{
    int was_initiator = c->state <= CONN_WAIT_PROOF;
    int was_connecting = c->state == CONN_CONNECTING;
    int rc = tern_tcp_conn_handshake(c, st.rank, st.secret, decide);
    if (was_connecting && rc == 0 && c->state != CONN_CONNECTING) {
        struct epoll_event e = { .events = EPOLLIN, .data.ptr = c };
        epoll_ctl(st.epfd, EPOLL_CTL_MOD, c->fd, &e);
    }
    if (rc == 0 && c->state == CONN_READY) {
        became_ready(c);
        return on_conn(c);
    }
    if (rc == 0)
        return 0;
    if (rc == 1) {
        TERN_LOG(2, "tcp: kept the other of two connections with rank %d", c->peer);
    } else if (was_initiator && (was_connecting || rc == TERN_EAUTH)) {
        peer_lost(c->peer, rc == TERN_EAUTH ? "it failed the job-secret handshake"
                                            : errno ? strerror(errno) : "could not connect");
    } else if (was_initiator) {
        TERN_LOG(2, "tcp: rank %d closed our connection during the handshake (busy "
                 "outside MPI?); connecting again", c->peer);
    } else {
        TERN_LOG(1, "tcp: dropped a connection from %s: %s", c->who,
                 rc == TERN_EAUTH ? "wrong job-secret handshake"
                 : rc == TERN_EPROTO ? "malformed handshake" : "closed during the handshake");
    }
    conn_dead(c);
    return 0;
}

static int on_conn(struct tcp_conn *c)
{
    if (c->state == CONN_DEAD)
        return 0;
    if (c->state != CONN_READY)
        return on_handshake(c);
    int n = tern_tcp_conn_read(c, st.max_packet);
    if (n >= 0)
        return n;
    peer_lost(c->peer, n == TERN_EPROTO ? "a malformed packet arrived"
                       : errno ? strerror(errno) : "it closed the connection");
    conn_dead(c);
    return 0;
}

/* Takes the listener out of epoll for a moment. */
static void rest_listener(void)
{
    epoll_ctl(st.epfd, EPOLL_CTL_DEL, st.listen_fd, NULL);
    st.listen_rest = tern_clock_ms() + TCP_LISTEN_REST_MS;
}

static void accept_all(void)
{
    for (;;) {
        if (st.handshakes >= TCP_MAX_HANDSHAKES) {
            TERN_LOG(1, "tcp: %d connections are in their handshake; not accepting "
                     "more for %d ms", st.handshakes, TCP_LISTEN_REST_MS);
            rest_listener();
            return;
        }
        struct tern_addr from = { .len = sizeof from.sa };
        int fd = accept4(st.listen_fd, (struct sockaddr *)&from.sa, &from.len,
                         SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                TERN_LOG(1, "tcp: accept failed: %s; not accepting for %d ms",
                         strerror(errno), TCP_LISTEN_REST_MS);
                rest_listener();
            }
            return;
        }
        struct tcp_conn *c = tern_tcp_conn_new(fd, CONN_WAIT_HELLO, -1);
        unsigned char chal[TERN_AUTH_CHALLENGE_LEN];
        if (!c || tern_auth_server_challenge(&c->srv, chal) ||
            send(fd, chal, sizeof chal, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)sizeof chal ||
            epoll_add(fd, c, EPOLLIN)) {
            if (c)
                tern_tcp_conn_free(c);
            else
                close(fd);
            continue;
        }
        tern_net_format(&from, c->who, sizeof c->who);
        c->next = st.conns;
        st.conns = c;
        st.handshakes++;
    }
}

/* A handshake past its deadline: an accepted connection is dropped; our own
 * is tried again if the peer's kernel accepted it (the peer is alive but
 * busy), else the peer is lost. Our own that already sent its HELLO waits
 * on instead: the peer may have accepted it, and closing it then would
 * look to the peer like our death (the peer is alive: it sent the
 * challenge; if it dies, the connection ends and is dialled again). */
static void handshake_expired(struct tcp_conn *c)
{
    if (c->state == CONN_WAIT_PROOF) {
        TERN_LOG(2, "tcp: rank %d has not answered our HELLO for %ld s; waiting on",
                 c->peer, st.timeout_s);
        c->deadline_ms = tern_clock_ms() + st.timeout_s * 1000;
        return;
    }
    if (c->peer < 0) {
        TERN_LOG(1, "tcp: dropped a connection from %s: no handshake within %d ms",
                 c->who, TERN_AUTH_TIMEOUT_MS);
    } else if (c->state == CONN_CONNECTING) {
        peer_lost(c->peer, "no answer to connect within TERN_TCP_TIMEOUT");
    } else {
        TERN_LOG(2, "tcp: rank %d has not answered the handshake for %ld s (busy "
                 "outside MPI?); connecting again", c->peer, st.timeout_s);
    }
    conn_dead(c);
}

/* Frees dead connections and drops handshakes past their deadline. */
static void sweep(int check_deadlines)
{
    st.reap = 0;
    long long now = check_deadlines ? tern_clock_ms() : 0;
    for (struct tcp_conn **pp = &st.conns; *pp;) {
        struct tcp_conn *c = *pp;
        if (check_deadlines && c->state != CONN_READY && c->state != CONN_DEAD &&
            now > c->deadline_ms)
            handshake_expired(c);
        if (c->state == CONN_DEAD) {
            *pp = c->next;
            tern_tcp_conn_free(c);
            continue;
        }
        pp = &c->next;
    }
}

static int finish_progress(void);

/* With few connections, reading each one directly is cheaper than asking
 * epoll which one has data: on the reference VM an 8-byte ping-pong over
 * loopback took 7.4 us per hop polling recv() against 9.0 us polling
 * epoll_wait() (raw sockets, medians of 2 runs). epoll is still asked every
 * EPOLL_EVERY calls, and always while handshakes run, for new connections. */
static int poll_direct(void)
{
    int n = 0;
    for (struct tcp_conn *c = st.conns; c; c = c->next)
        if (c->state == CONN_READY)
            n += on_conn(c);
    return n;
}

static int tcp_progress(void)
{
    if (!st.enabled)
        return 0;
    int n = 0;
    if (st.nready <= DIRECT_MAX) {
        n = poll_direct();
        if (!st.handshakes && ++st.skips % EPOLL_EVERY != 0)
            return n + finish_progress();
    }
    struct epoll_event ev[MAX_EVENTS];
    int k = epoll_wait(st.epfd, ev, MAX_EVENTS, 0);
    for (int i = 0; i < k; i++) {
        if (ev[i].data.ptr == &st) {
            accept_all();
            continue;
        }
        n += on_conn(ev[i].data.ptr);
    }
    return n + finish_progress();
}

/* The bookkeeping after reading: listener rest, deadlines, dead
 * connections, and the end of the job after a lost peer. */
static int finish_progress(void)
{
    int deadlines = (st.handshakes || st.listen_rest) && ++st.ticks % DEADLINE_TICKS == 0;
    if (deadlines && st.listen_rest && tern_clock_ms() > st.listen_rest) {
        st.listen_rest = 0;
        epoll_add(st.listen_fd, &st, EPOLLIN);
    }
    if (st.reap || deadlines)
        sweep(deadlines);
    tern_tp_failure_check(&st.fail);
    return 0;
}

static int tcp_block(int timeout_ms)
{
    if (!st.enabled)
        return 0;
    if (st.handshakes)
        sweep(1);
    struct epoll_event ev;
    epoll_wait(st.epfd, &ev, 1, timeout_ms);
    return 0;
}

static void tcp_tunables(void)
{
    read_tunables();
    tern_net_tunables();
}

const struct tern_tp_ops tern_tcp_ops = {
    .name = "tcp",
    .init = tcp_init,
    .connect = tcp_connect,
    .ready = tcp_ready,
    .finalize = tcp_finalize,
    .reachable = tcp_reachable,
    .caps = tcp_caps,
    .send = tcp_send,
    .progress = tcp_progress,
    .get_bulk = NULL,
    .block = tcp_block,
    .tunables = tcp_tunables,
};
