/*
 * The TCP connection under one host's ssh session: name resolution, a
 * nonblocking connect to each address bounded by connect_ms and tried
 * twice ("refused" is final), keepalive and a user timeout on the socket.
 * Runs in the host's worker thread (see launch_ssh.c).
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "launcher/ssh.h"
#include "tern/clock.h"
#include "tern/err.h"
#include "tern/log.h"

static void tune_socket(struct tern_ssh *s, int fd)
{
    int one = 1, idle = 5, intvl = 2, cnt = 3;
    unsigned ut = (unsigned)s->timeout_ms;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ut, sizeof ut);
}

int tern_ssh_cancelled(struct tern_ssh *s)
{
    return __atomic_load_n(&s->cancel, __ATOMIC_ACQUIRE);
}

/* One nonblocking connect bounded by connect_ms; 0 or an errno. */
static int connect_one(struct tern_ssh_host *h, const struct addrinfo *ai)
{
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errno;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
        int e = errno;
        close(fd);
        return e;
    }
    long long end = tern_clock_ms() + h->ssh->connect_ms;
    int e = ETIMEDOUT;
    for (long long now = tern_clock_ms(); now < end && !tern_ssh_cancelled(h->ssh);
         now = tern_clock_ms()) {
        struct pollfd p = { .fd = fd, .events = POLLOUT };
        long long slice = end - now < 100 ? end - now : 100;
        if (poll(&p, 1, (int)slice) > 0) {
            socklen_t l = sizeof e;
            if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l) != 0)
                e = errno;
            break;
        }
    }
    if (e) {
        close(fd);
        return e;
    }
    tune_socket(h->ssh, fd);
    __atomic_store_n(&h->sock, fd, __ATOMIC_RELEASE);
    return 0;
}

static void set_where(struct tern_ssh_host *h, const struct addrinfo *ai)
{
    char a[128] = "?";
    getnameinfo(ai->ai_addr, ai->ai_addrlen, a, sizeof a, NULL, 0, NI_NUMERICHOST);
    snprintf(h->where, sizeof h->where, ai->ai_family == AF_INET6 ? "%s ([%s]:%d)"
             : "%s (%s:%d)", h->label, a, h->port);
}

int tern_ssh_connect(struct tern_ssh_host *h)
{
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
    char port[16];
    snprintf(port, sizeof port, "%d", h->port);
    int g = getaddrinfo(h->host, port, &hints, &res);
    if (g) {
        snprintf(h->err, sizeof h->err, "cannot resolve the host name: %s; check "
                 "the name in the hostfile or -H, or /etc/hosts", gai_strerror(g));
        return TERN_EIO;
    }
    set_where(h, res);
    int e = 0;
    for (int attempt = 0; attempt < 2 && !tern_ssh_cancelled(h->ssh); attempt++) {
        for (struct addrinfo *ai = res; ai && !tern_ssh_cancelled(h->ssh); ai = ai->ai_next) {
            set_where(h, ai);
            e = connect_one(h, ai);
            if (!e || e == ECONNREFUSED)
                break;
        }
        if (!e || e == ECONNREFUSED)
            break;
        TERN_LOG(1, "host %s: connection attempt %d failed: %s", h->where,
                 attempt + 1, strerror(e));
    }
    freeaddrinfo(res);
    if (!e)
        return 0;
    if (e == ECONNREFUSED)
        snprintf(h->err, sizeof h->err, "ssh connection refused; is sshd running "
                 "there, and on port %d?", h->port);
    else if (e == ETIMEDOUT)
        snprintf(h->err, sizeof h->err, "ssh connection timed out (2 tries of %d s); "
                 "is the host up and reachable (name, network, firewall)?",
                 h->ssh->connect_ms / 1000);
    else
        snprintf(h->err, sizeof h->err, "cannot connect for ssh: %s; is the host up "
                 "and reachable (name, network, firewall)?", strerror(e));
    return TERN_EIO;
}
