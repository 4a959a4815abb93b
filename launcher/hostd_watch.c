/*
 * tern-hostd's watch on mpirun's host: a TCP connection to mpirun's store.
 *
 * hostd cannot tell a busy mpirun (blocked writing to a slow stdout, so it
 * sends nothing on the ssh channel) from a dead one by silence. So it opens
 * a connection to the store the ranks will use (TERN_KVS_ADDR and
 * TERN_JOB_SECRET from the ranks' environment), passes the job-secret
 * handshake, says TERN_HOSTD_KVS_WATCH and then only listens. TCP keepalive
 * (probes every keepalive_ms, given up after timeout_ms) and
 * TCP_USER_TIMEOUT make the kernel report a host or network that is gone,
 * while mpirun's kernel answers the probes however busy mpirun is. Done
 * before READY, it doubles as a preflight: a host whose ranks could not
 * reach the store (a firewall, the wrong interface) fails at once.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "launcher/hostd.h"
#include "tern/auth.h"
#include "tern/err.h"
#include "tern/net.h"

#define CONNECT_MS 5000

/* The value of NAME in the first rank's environment, or NULL. */
static const char *rank_env(const struct hostd *d, const char *name)
{
    size_t n = strlen(name);
    if (d->job.nranks == 0)
        return NULL;
    for (int i = 0; i < d->job.ranks[0].n_env; i++)
        if (!strncmp(d->job.ranks[0].env[i], name, n) && d->job.ranks[0].env[i][n] == '=')
            return d->job.ranks[0].env[i] + n + 1;
    return NULL;
}

static void keepalive(const struct hostd *d, int fd)
{
    int one = 1, idle = d->job.keepalive_ms / 1000, cnt;
    if (idle < 1)
        idle = 1;
    cnt = d->job.timeout_ms / (idle * 1000) - 1;
    if (cnt < 1)
        cnt = 1;
    unsigned ut = (unsigned)d->job.timeout_ms;
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &idle, sizeof idle);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ut, sizeof ut);
}

/* A nonblocking connect bounded by CONNECT_MS; 0 or an errno value. */
static int connect_bounded(int fd, const struct tern_addr *a)
{
    if (connect(fd, (const struct sockaddr *)&a->sa, a->len) == 0)
        return 0;
    if (errno != EINPROGRESS)
        return errno;
    struct pollfd p = { .fd = fd, .events = POLLOUT };
    int n;
    do {
        n = poll(&p, 1, CONNECT_MS);
    } while (n < 0 && errno == EINTR);
    if (n == 0)
        return ETIMEDOUT;
    int e = 0;
    socklen_t l = sizeof e;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l) != 0)
        e = errno;
    return e;
}

int tern_hostd_watch_open(struct hostd *d, char *err, size_t errlen)
{
    const char *addr = rank_env(d, "TERN_KVS_ADDR");
    const char *hex = rank_env(d, "TERN_JOB_SECRET");
    unsigned char secret[TERN_AUTH_SECRET_LEN];
    struct tern_addr a;
    d->watch_ev.fd = -1;
    d->watch_ev.kind = HEV_WATCH;
    /* Without a store (a job driven by hand) there is nothing to watch. */
    if (!addr || !hex)
        return 0;
    if (tern_auth_secret_parse(hex, secret) || tern_net_parse(addr, &a)) {
        snprintf(err, errlen, "the job names mpirun's store as '%.100s', which this "
                 "host cannot use; install the same Tern version on every host", addr);
        return TERN_EINVAL;
    }
    int fd = socket(a.sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int e = fd < 0 ? errno : connect_bounded(fd, &a);
    if (e) {
        snprintf(err, errlen, "cannot reach mpirun's store at %.100s from this host "
                 "(%s), which its ranks need; check the firewall, or choose the "
                 "interface that reaches the other hosts with --iface", addr, strerror(e));
        if (fd >= 0)
            close(fd);
        return TERN_EIO;
    }
    keepalive(d, fd);
    int rc = tern_auth_client(fd, secret, CONNECT_MS);
    if (!rc)
        rc = tern_wire_send(fd, TERN_HOSTD_KVS_WATCH, NULL, 0);
    if (rc) {
        snprintf(err, errlen, "the store at %.100s did not accept this host's job-secret "
                 "handshake (%s); is another program listening there?", addr,
                 rc == TERN_EAUTH ? "wrong answer" : rc == TERN_ETIMEDOUT ? "no answer"
                 : rc == TERN_EPEER ? "it closed the connection" : strerror(errno));
        close(fd);
        return rc;
    }
    d->watch_ev.fd = fd;
    return 0;
}
