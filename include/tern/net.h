/*
 * Choosing addresses and opening listeners, for every Tern TCP listener
 * (the launcher's store, hostd, the tcp transport).
 *
 * The address a listener binds to, in order:
 *   1. TERN_TCP_IF (mpirun --iface): an interface name ("eth1") or a CIDR
 *      ("10.1.0.0/16"); the interface's first IPv4 address (IPv6 if it has
 *      none) that matches.
 *   2. The local address the kernel would use to reach `toward` (a host or
 *      "host:port" the listener must be reachable from), found with a
 *      connected UDP socket, which sends nothing. A loopback answer is
 *      replaced by the first suitable interface address when `toward` is not
 *      itself a loopback address, so 127.0.1.1 is never advertised to a
 *      remote peer.
 *   3. 127.0.0.1 when `toward` is NULL (a job on this host alone).
 * "Suitable" skips loopback, link-local, down interfaces and names starting
 * with docker, virbr or veth.
 *
 * Ports come from TERN_PORT_RANGE ("50000-50100", mpirun --port-range) when
 * set, else from the kernel. All sockets are nonblocking and close-on-exec.
 * Errors: 0 or a negative TERN_E* code, with one line in err naming the
 * setting and the fix.
 */
#ifndef TERN_NET_H
#define TERN_NET_H

#include <stddef.h>
#include <sys/socket.h>

struct tern_addr {
    struct sockaddr_storage sa;
    socklen_t len;
};

/* Picks the address to listen on (port 0). */
int tern_net_pick(const char *toward, struct tern_addr *out, char *err, size_t errlen);

/* Opens a nonblocking listener on addr with a port as described above and
 * writes the bound address back into *addr. Returns the fd or an error. */
int tern_net_listen(struct tern_addr *addr, char *err, size_t errlen);

/* "a.b.c.d:port" or "[v6]:port". */
void tern_net_format(const struct tern_addr *addr, char *out, size_t outlen);

/* Parses "host:port" / "[v6]:port" (a name is resolved); TERN_EINVAL if bad. */
int tern_net_parse(const char *hostport, struct tern_addr *out);

/* Reads TERN_TCP_IF and TERN_PORT_RANGE, so tern-info lists them. */
void tern_net_tunables(void);

/* The name of the interface that has addr ("eth0"); TERN_ENOTFOUND if none. */
int tern_net_ifname(const struct tern_addr *addr, char *name, size_t cap);

/* 1 if addr is a loopback address. */
int tern_net_is_loopback(const struct tern_addr *addr);

#endif
