/*
 * Listener addresses and ports for every Tern TCP listener (see
 * include/tern/net.h for the rules).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tern/log.h"
#include "tern/err.h"
#include "tern/net.h"

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen)
        vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return code;
}

int tern_net_is_loopback(const struct tern_addr *a)
{
    if (a->sa.ss_family == AF_INET) {
        const struct sockaddr_in *s = (const void *)&a->sa;
        return (ntohl(s->sin_addr.s_addr) >> 24) == 127;
    }
    if (a->sa.ss_family == AF_INET6) {
        const struct sockaddr_in6 *s = (const void *)&a->sa;
        if (IN6_IS_ADDR_V4MAPPED(&s->sin6_addr))
            return s->sin6_addr.s6_addr[12] == 127;
        return IN6_IS_ADDR_LOOPBACK(&s->sin6_addr);
    }
    return 0;
}

static int is_link_local(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET) {
        uint32_t a = ntohl(((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr);
        return (a >> 16) == 0xa9fe; /* 169.254/16 */
    }
    return IN6_IS_ADDR_LINKLOCAL(&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr);
}

/* Interfaces that are never chosen by default: containers and VMs. */
static int is_virtual(const char *name)
{
    return !strncmp(name, "docker", 6) || !strncmp(name, "virbr", 5) ||
           !strncmp(name, "veth", 4);
}

static void set_addr(struct tern_addr *out, const struct sockaddr *sa)
{
    memset(out, 0, sizeof *out);
    out->len = sa->sa_family == AF_INET ? sizeof(struct sockaddr_in)
                                        : sizeof(struct sockaddr_in6);
    memcpy(&out->sa, sa, out->len);
}

/* Parses "a.b.c.d/n" or "v6/n"; 1 if spec is a CIDR, 0 if not. */
static int parse_cidr(const char *spec, int *family, unsigned char net[16], int *bits)
{
    const char *slash = strchr(spec, '/');
    if (!slash)
        return 0;
    char host[INET6_ADDRSTRLEN];
    size_t n = (size_t)(slash - spec);
    if (n >= sizeof host)
        return 0;
    memcpy(host, spec, n);
    host[n] = '\0';
    char *end;
    long b = strtol(slash + 1, &end, 10);
    if (*end || end == slash + 1)
        return 0;
    if (inet_pton(AF_INET, host, net) == 1 && b >= 0 && b <= 32)
        *family = AF_INET;
    else if (inet_pton(AF_INET6, host, net) == 1 && b >= 0 && b <= 128)
        *family = AF_INET6;
    else
        return 0;
    *bits = (int)b;
    return 1;
}

static int in_cidr(const struct sockaddr *sa, int family, const unsigned char *net, int bits)
{
    if (sa->sa_family != family)
        return 0;
    const unsigned char *a = family == AF_INET
        ? (const unsigned char *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr
        : ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr;
    for (int i = 0; i < bits; i++) {
        int byte = i / 8, bit = 7 - i % 8;
        if (((a[byte] >> bit) & 1) != ((net[byte] >> bit) & 1))
            return 0;
    }
    return 1;
}

/*
 * Walks the interfaces: with spec, the first address of the named interface
 * or inside the CIDR (IPv4 preferred); without, the first suitable address.
 */
static int find_iface(const char *spec, struct tern_addr *out)
{
    struct ifaddrs *list, *i;
    if (getifaddrs(&list))
        return TERN_EIO;
    int family = 0, bits = 0, cidr = 0;
    unsigned char net[16];
    if (spec)
        cidr = parse_cidr(spec, &family, net, &bits);
    int found = 0;
    for (int pass = 0; pass < 2 && !found; pass++) {
        int want = pass == 0 ? AF_INET : AF_INET6;
        for (i = list; i && !found; i = i->ifa_next) {
            /* Link-local addresses need a scope id that peers cannot know. */
            if (!i->ifa_addr || i->ifa_addr->sa_family != want ||
                !(i->ifa_flags & IFF_UP) || is_link_local(i->ifa_addr))
                continue;
            if (spec ? (cidr ? !in_cidr(i->ifa_addr, family, net, bits)
                             : strcmp(i->ifa_name, spec) != 0)
                     : ((i->ifa_flags & IFF_LOOPBACK) || is_virtual(i->ifa_name)))
                continue;
            set_addr(out, i->ifa_addr);
            found = 1;
        }
    }
    freeifaddrs(list);
    return found ? 0 : TERN_ENOTFOUND;
}

int tern_net_parse(const char *hostport, struct tern_addr *out)
{
    char host[256];
    const char *port;
    if (hostport[0] == '[') {
        const char *close = strchr(hostport, ']');
        if (!close || close[1] != ':' || (size_t)(close - hostport - 1) >= sizeof host)
            return TERN_EINVAL;
        memcpy(host, hostport + 1, (size_t)(close - hostport - 1));
        host[close - hostport - 1] = '\0';
        port = close + 2;
    } else {
        const char *colon = strrchr(hostport, ':');
        if (!colon || (size_t)(colon - hostport) >= sizeof host)
            return TERN_EINVAL;
        memcpy(host, hostport, (size_t)(colon - hostport));
        host[colon - hostport] = '\0';
        port = colon + 1;
    }
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
    if (!*port || getaddrinfo(host, port, &hints, &ai))
        return TERN_EINVAL;
    set_addr(out, ai->ai_addr);
    freeaddrinfo(ai);
    return 0;
}

/* The local address of the route toward `toward` ("host" or "host:port"). */
static int route_to(const char *toward, struct tern_addr *out, struct tern_addr *dest)
{
    char buf[300];
    int has_port = toward[0] == '[' ? strstr(toward, "]:") != NULL
                                    : strchr(toward, ':') && strchr(toward, ':') == strrchr(toward, ':');
    if (!has_port) {
        int v6 = strchr(toward, ':') != NULL;
        snprintf(buf, sizeof buf, v6 ? "[%s]:9" : "%s:9", toward);
        toward = buf;
    }
    if (tern_net_parse(toward, dest))
        return TERN_ENOTFOUND;
    int fd = socket(dest->sa.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return TERN_EIO;
    int rc = connect(fd, (struct sockaddr *)&dest->sa, dest->len) ? TERN_EIO : 0;
    out->len = sizeof out->sa;
    if (!rc && getsockname(fd, (struct sockaddr *)&out->sa, &out->len))
        rc = TERN_EIO;
    close(fd);
    return rc;
}

static void clear_port(struct tern_addr *a)
{
    if (a->sa.ss_family == AF_INET)
        ((struct sockaddr_in *)(void *)&a->sa)->sin_port = 0;
    else
        ((struct sockaddr_in6 *)(void *)&a->sa)->sin6_port = 0;
}

static const char *iface_spec(void)
{
    return tern_env_str("TERN_TCP_IF", "",
        "Interface (name or CIDR) that every Tern listener binds to (mpirun --iface)");
}

static const char *port_spec(void)
{
    return tern_env_str("TERN_PORT_RANGE", "",
        "Ports every Tern listener may use, as LOW-HIGH (mpirun --port-range); "
        "empty for any port the kernel gives");
}

void tern_net_tunables(void)
{
    iface_spec();
    port_spec();
}

static int same_host_addr(const struct sockaddr *a, const struct sockaddr *b)
{
    if (a->sa_family != b->sa_family)
        return 0;
    if (a->sa_family == AF_INET)
        return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
               ((const struct sockaddr_in *)b)->sin_addr.s_addr;
    return a->sa_family == AF_INET6 &&
           !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                   &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
}

int tern_net_ifname(const struct tern_addr *addr, char *name, size_t cap)
{
    struct ifaddrs *list;
    if (getifaddrs(&list))
        return TERN_EIO;
    int rc = TERN_ENOTFOUND;
    for (struct ifaddrs *i = list; i && rc; i = i->ifa_next)
        if (i->ifa_addr && same_host_addr(i->ifa_addr, (const struct sockaddr *)&addr->sa)) {
            snprintf(name, cap, "%s", i->ifa_name);
            rc = 0;
        }
    freeifaddrs(list);
    return rc;
}

int tern_net_pick(const char *toward, struct tern_addr *out, char *err, size_t errlen)
{
    const char *spec = iface_spec();
    if (spec && *spec) {
        if (find_iface(spec, out))
            return fail(err, errlen, TERN_EINVAL, "TERN_TCP_IF '%s' (--iface) matches no "
                        "interface address that is up; give an interface name from "
                        "'ip -brief addr' or a CIDR such as 10.0.0.0/24", spec);
        return 0;
    }
    if (!toward) {
        struct sockaddr_in lo = { .sin_family = AF_INET,
                                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        set_addr(out, (struct sockaddr *)&lo);
        return 0;
    }
    struct tern_addr dest;
    int rc = route_to(toward, out, &dest);
    if (rc == TERN_ENOTFOUND)
        return fail(err, errlen, rc, "cannot resolve '%s' to pick the interface that "
                    "reaches it; check the host name", toward);
    if (rc)
        return fail(err, errlen, rc, "no route to '%s' (%s); check the network or "
                    "choose an interface with --iface", toward, strerror(errno));
    if (tern_net_is_loopback(out) && !tern_net_is_loopback(&dest) && find_iface(NULL, out))
        return fail(err, errlen, TERN_ENOTFOUND, "'%s' is reached only through a loopback "
                    "address, which other hosts cannot use; choose an interface with "
                    "--iface", toward);
    clear_port(out);
    return 0;
}

static void set_port(struct tern_addr *a, int port)
{
    if (a->sa.ss_family == AF_INET)
        ((struct sockaddr_in *)(void *)&a->sa)->sin_port = htons((uint16_t)port);
    else
        ((struct sockaddr_in6 *)(void *)&a->sa)->sin6_port = htons((uint16_t)port);
}

/* Reads TERN_PORT_RANGE into [lo, hi]; 0,0 when unset. */
static int port_range(int *lo, int *hi, char *err, size_t errlen)
{
    const char *r = port_spec();
    *lo = *hi = 0;
    if (!r || !*r)
        return 0;
    if (sscanf(r, "%d-%d", lo, hi) != 2 || *lo < 1 || *hi > 65535 || *lo > *hi)
        return fail(err, errlen, TERN_EINVAL, "TERN_PORT_RANGE '%s' (--port-range) is not "
                    "LOW-HIGH with 1 <= LOW <= HIGH <= 65535; use e.g. 50000-50100", r);
    return 0;
}

int tern_net_listen(struct tern_addr *addr, char *err, size_t errlen)
{
    int lo, hi;
    int rc = port_range(&lo, &hi, err, errlen);
    if (rc)
        return rc;
    int fd = socket(addr->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return fail(err, errlen, TERN_EIO, "cannot create a socket: %s", strerror(errno));
    int bound = 0;
    if (!lo) {
        set_port(addr, 0);
        bound = bind(fd, (struct sockaddr *)&addr->sa, addr->len) == 0;
    }
    /* Start at a random port of the range, so jobs sharing it spread out. */
    int span = hi - lo + 1, start = lo ? (int)(getpid() % span) : 0;
    for (int i = 0; lo && i < span && !bound; i++) {
        set_port(addr, lo + (start + i) % span);
        bound = bind(fd, (struct sockaddr *)&addr->sa, addr->len) == 0;
    }
    char where[80];
    tern_net_format(addr, where, sizeof where);
    if (!bound || listen(fd, SOMAXCONN)) {
        int e = errno;
        close(fd);
        if (lo)
            return fail(err, errlen, TERN_EIO, "no free port in TERN_PORT_RANGE %d-%d on "
                        "%s (%s); widen --port-range", lo, hi, where, strerror(e));
        return fail(err, errlen, TERN_EIO, "cannot listen on %s: %s", where, strerror(e));
    }
    addr->len = sizeof addr->sa;
    getsockname(fd, (struct sockaddr *)&addr->sa, &addr->len);
    return fd;
}

void tern_net_format(const struct tern_addr *a, char *out, size_t outlen)
{
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (a->sa.ss_family == AF_INET) {
        const struct sockaddr_in *s = (const void *)&a->sa;
        inet_ntop(AF_INET, &s->sin_addr, host, sizeof host);
        port = ntohs(s->sin_port);
        snprintf(out, outlen, "%s:%d", host, port);
    } else {
        const struct sockaddr_in6 *s = (const void *)&a->sa;
        inet_ntop(AF_INET6, &s->sin6_addr, host, sizeof host);
        port = ntohs(s->sin6_port);
        snprintf(out, outlen, "[%s]:%d", host, port);
    }
}
