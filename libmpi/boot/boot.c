/*
 * Wire-up client: implements include/tern/boot.h.
 *
 * Under mpirun the environment names the store (TERN_KVS_ADDR), the job
 * secret (TERN_JOB_SECRET, removed from the environment as soon as it is
 * read) and this rank's place in the job. tern_boot_init() connects, passes
 * the handshake, says HELLO and starts the watchdog. Requests are framed
 * messages (tern/wire.h); PUT is fire-and-forget, FENCE, GET and FINALIZE
 * wait for their answer on the same socket. Without TERN_KVS_ADDR the
 * process is a singleton and a small local table stands in for the store.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "libmpi/boot/boot_int.h"
#include "tern/auth.h"
#include "tern/boot.h"
#include "tern/err.h"
#include "tern/log.h"
#include "tern/wire.h"

/* Local table for singletons. */
struct entry {
    struct entry *next;
    char key[TERN_BOOT_KEY_MAX + 1];
    size_t len;
    unsigned char val[];
};

static int sock = -1;
static int singleton;
static struct entry *table;
static int *local_ranks;
static int *node_of;
static unsigned char secret[TERN_AUTH_SECRET_LEN];

/* The job secret, for other TCP connections of this rank (rank-rank
 * handshakes). Valid after tern_boot_init(); zero for a singleton. */
const unsigned char *tern_boot_secret(void)
{
    return secret;
}

static int env_int(const char *name, int min, int *out)
{
    const char *v = getenv(name);
    char *end;
    if (!v)
        return TERN_EINVAL;
    long x = strtol(v, &end, 10);
    if (end == v || *end || x < min || x > (1 << 24))
        return TERN_EINVAL;
    *out = (int)x;
    return 0;
}

static int parse_local_ranks(struct tern_boot_info *info)
{
    const char *s = getenv("TERN_LOCAL_RANKS");
    local_ranks = calloc((size_t)info->local_size, sizeof *local_ranks);
    if (!local_ranks)
        return TERN_ENOMEM;
    for (int i = 0; i < info->local_size; i++) {
        char *end;
        if (!s)
            return TERN_EINVAL;
        local_ranks[i] = (int)strtol(s, &end, 10);
        if (end == s || (*end != ',' && *end != '\0'))
            return TERN_EINVAL;
        s = *end ? end + 1 : NULL;
    }
    info->local_ranks = local_ranks;
    return 0;
}

/* TERN_NODE_MAP: runs "host*count" covering every world rank in order,
 * consistent with this rank's own host and its host's rank list. */
static int parse_node_map(struct tern_boot_info *info)
{
    const char *s = getenv("TERN_NODE_MAP");
    node_of = calloc((size_t)info->size, sizeof *node_of);
    if (!node_of || !s)
        return node_of ? TERN_EINVAL : TERN_ENOMEM;
    int r = 0;
    while (*s) {
        char *end;
        long node = strtol(s, &end, 10), count = 0;
        if (end != s && *end == '*')
            count = strtol(end + 1, &end, 10);
        if (node < 0 || node >= info->size || count < 1 || count > info->size - r ||
            (*end != ',' && *end != '\0'))
            return TERN_EINVAL;
        while (count--)
            node_of[r++] = (int)node;
        s = *end ? end + 1 : end;
    }
    if (r != info->size || node_of[info->rank] != info->node_rank)
        return TERN_EINVAL;
    for (int i = 0; i < info->local_size; i++)
        if (local_ranks[i] < 0 || local_ranks[i] >= info->size ||
            node_of[local_ranks[i]] != info->node_rank)
            return TERN_EINVAL;
    info->node_of = node_of;
    return 0;
}

static int read_env(struct tern_boot_info *info)
{
    const char *names[] = { "TERN_RANK", "TERN_SIZE", "TERN_LOCAL_RANK",
                            "TERN_LOCAL_SIZE", "TERN_NODE_RANK" };
    int *dst[] = { &info->rank, &info->size, &info->local_rank,
                   &info->local_size, &info->node_rank };
    int min[] = { 0, 1, 0, 1, 0 };
    for (int i = 0; i < 5; i++) {
        if (env_int(names[i], min[i], dst[i])) {
            tern_log("%s is missing or invalid in the environment; start MPI "
                     "programs with Tern's mpirun", names[i]);
            return TERN_EINVAL;
        }
    }
    const char *jobid = getenv("TERN_JOBID");
    snprintf(info->jobid, sizeof info->jobid, "%s", jobid ? jobid : "unknown");
    if (info->rank >= info->size || info->local_rank >= info->local_size ||
        parse_local_ranks(info) || parse_node_map(info)) {
        tern_log("TERN_RANK/TERN_LOCAL_*/TERN_NODE_MAP are inconsistent; start MPI programs "
                 "with Tern's mpirun");
        return TERN_EINVAL;
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    info->oversubscribed = ncpu > 0 && info->local_size > ncpu;
    const char *hex = getenv("TERN_JOB_SECRET");
    int rc = tern_auth_secret_parse(hex, secret);
    unsetenv("TERN_JOB_SECRET");
    if (rc) {
        tern_log("TERN_JOB_SECRET is missing or malformed; start MPI programs "
                 "with Tern's mpirun");
        return TERN_EAUTH;
    }
    return 0;
}

/* Connects to "host:port"; returns the socket or a negative code. */
static int connect_store(const char *addr)
{
    char host[256];
    const char *colon = strrchr(addr, ':');
    if (!colon || (size_t)(colon - addr) >= sizeof host)
        return TERN_EINVAL;
    memcpy(host, addr, (size_t)(colon - addr));
    host[colon - addr] = '\0';
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_NUMERICSERV }, *res, *ai;
    if (getaddrinfo(host, colon + 1, &hints, &res))
        return TERN_EINVAL;
    int fd = -1;
    for (ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        if (fd >= 0)
            close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0)
        return TERN_EPEER;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static int init_singleton(struct tern_boot_info *info)
{
    unsigned char rnd[8];
    char hex[17];
    singleton = 1;
    info->rank = info->local_rank = info->node_rank = 0;
    info->size = info->local_size = 1;
    info->singleton = 1;
    local_ranks = calloc(1, sizeof *local_ranks);
    node_of = calloc(1, sizeof *node_of);
    if (!local_ranks || !node_of)
        return TERN_ENOMEM;
    info->local_ranks = local_ranks;
    info->node_of = node_of;
    if (tern_auth_random(rnd, sizeof rnd))
        return TERN_EIO;
    tern_auth_hex(rnd, sizeof rnd, hex);
    snprintf(info->jobid, sizeof info->jobid, "s%d-%s", (int)getpid(), hex);
    return 0;
}

static const char *why(int rc)
{
    switch (rc) {
    case TERN_EAUTH: return "wrong job secret";
    case TERN_ETIMEDOUT: return "timed out";
    case TERN_EPEER: return "connection closed";
    default: return "I/O error";
    }
}

static int connect_and_hello(const char *addr, const struct tern_boot_info *info)
{
    int fd = connect_store(addr);
    if (fd < 0) {
        tern_log("cannot connect to mpirun's store at %s (%s); mpirun has "
                 "probably exited", addr, strerror(errno));
        return fd;
    }
    int rc = tern_auth_client(fd, secret, TERN_AUTH_TIMEOUT_MS);
    if (rc) {
        tern_log("the job-secret handshake with mpirun at %s failed (%s); "
                 "check that TERN_* variables come from this job's mpirun",
                 addr, why(rc));
        close(fd);
        return rc;
    }
    unsigned char hello[8];
    tern_wire_put32(hello, (uint32_t)info->rank);
    tern_wire_put32(hello + 4, (uint32_t)getpid());
    if ((rc = tern_wire_send(fd, TERN_KVS_HELLO, hello, sizeof hello))) {
        close(fd);
        return rc;
    }
    return fd;
}

int tern_boot_init(struct tern_boot_info *info)
{
    memset(info, 0, sizeof *info);
    if (gethostname(info->hostname, sizeof info->hostname) != 0)
        strcpy(info->hostname, "localhost");
    info->hostname[sizeof info->hostname - 1] = '\0';
    const char *addr = getenv("TERN_KVS_ADDR");
    if (!addr)
        return init_singleton(info);
    snprintf(info->store_addr, sizeof info->store_addr, "%s", addr);
    int rc = read_env(info);
    if (rc)
        return rc;
    char prefix[300];
    snprintf(prefix, sizeof prefix, "rank %d (%s)", info->rank, info->hostname);
    tern_log_set_prefix(prefix);
    int fd = connect_and_hello(addr, info);
    if (fd < 0)
        return fd;
    sock = fd;
    int pgid = 0;
    const char *pg = getenv("TERN_PGID");
    if (pg)
        pgid = atoi(pg);
    if ((rc = tern_boot_watchdog_start(sock, pgid))) {
        tern_log("cannot start the watchdog thread: %s", strerror(errno));
        return rc;
    }
    return 0;
}

static struct entry *find(const char *key)
{
    for (struct entry *e = table; e; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e;
    return NULL;
}

int tern_boot_put(const char *key, const void *value, size_t len)
{
    size_t kl = strlen(key);
    if (kl == 0 || kl > TERN_BOOT_KEY_MAX || len > TERN_BOOT_VALUE_MAX)
        return TERN_EINVAL;
    if (singleton) {
        struct entry *e = malloc(sizeof *e + len);
        if (!e)
            return TERN_ENOMEM;
        memcpy(e->key, key, kl + 1);
        memcpy(e->val, value, len);
        e->len = len;
        e->next = table;
        table = e;  /* Newest first, so it shadows an older value. */
        return 0;
    }
    if (sock < 0)
        return TERN_ENOTINIT;
    unsigned char msg[4 + TERN_BOOT_KEY_MAX + TERN_BOOT_VALUE_MAX];
    tern_wire_put32(msg, (uint32_t)kl);
    memcpy(msg + 4, key, kl);
    memcpy(msg + 4 + kl, value, len);
    return tern_wire_send(sock, TERN_KVS_PUT, msg, 4 + kl + len);
}

/* Reads the reply of type `want` to a request sent. */
static int await_reply(uint32_t want, void **reply, size_t *rlen)
{
    uint32_t got;
    void *b = NULL;
    size_t bl = 0;
    int rc = tern_wire_recv(sock, &got, &b, &bl, TERN_KVS_MSG_MAX);
    if (!rc && got != want) {
        free(b);
        return TERN_EPROTO;
    }
    if (rc)
        return rc;
    if (reply) {
        *reply = b;
        *rlen = bl;
    } else {
        free(b);
    }
    return 0;
}

/* Sends a request and waits for the reply of type `want`. */
static int call(uint32_t type, const void *body, size_t len, uint32_t want,
                void **reply, size_t *rlen)
{
    if (sock < 0)
        return TERN_ENOTINIT;
    int rc = tern_wire_send(sock, type, body, len);
    return rc ? rc : await_reply(want, reply, rlen);
}

int tern_boot_fence(void)
{
    if (singleton)
        return 0;
    return call(TERN_KVS_FENCE, NULL, 0, TERN_KVS_FENCE_DONE, NULL, NULL);
}

int tern_boot_fence_while(int (*work)(void))
{
    if (singleton)
        return 0;
    if (sock < 0)
        return TERN_ENOTINIT;
    int rc = tern_wire_send(sock, TERN_KVS_FENCE, NULL, 0);
    if (rc)
        return rc;
    for (;;) {
        struct pollfd p = { .fd = sock, .events = POLLIN };
        int idle = work() <= 0;
        if (poll(&p, 1, idle ? 1 : 0) > 0)
            break;
    }
    return await_reply(TERN_KVS_FENCE_DONE, NULL, NULL);
}

int tern_boot_get(int rank, const char *key, void *value, size_t *len)
{
    size_t kl = strlen(key);
    if (kl == 0 || kl > TERN_BOOT_KEY_MAX)
        return TERN_EINVAL;
    const unsigned char *src;
    size_t n;
    unsigned char *reply = NULL;
    if (singleton) {
        struct entry *e = rank == 0 ? find(key) : NULL;
        if (!e)
            return TERN_ENOTFOUND;
        src = e->val;
        n = e->len;
    } else {
        unsigned char msg[4 + TERN_BOOT_KEY_MAX];
        size_t rl;
        tern_wire_put32(msg, (uint32_t)rank);
        memcpy(msg + 4, key, kl);
        int rc = call(TERN_KVS_GET, msg, 4 + kl, TERN_KVS_GET_REPLY, (void **)&reply, &rl);
        if (rc)
            return rc;
        if (rl < 4 || tern_wire_get32(reply) != 1) {
            free(reply);
            return rl < 4 ? TERN_EPROTO : TERN_ENOTFOUND;
        }
        src = reply + 4;
        n = rl - 4;
    }
    int rc = n > *len ? TERN_ETRUNCATE : 0;
    memcpy(value, src, n < *len ? n : *len);
    *len = n;
    free(reply);
    return rc;
}

int tern_boot_abort(int code, const char *msg)
{
    if (singleton || sock < 0)
        return TERN_EPEER;
    unsigned char body[4 + 1024];
    size_t ml = msg ? strnlen(msg, 1024) : 0;
    tern_wire_put32(body, (uint32_t)code);
    if (ml)
        memcpy(body + 4, msg, ml);
    if (tern_wire_send(sock, TERN_KVS_ABORT, body, 4 + ml))
        return TERN_EPEER;
    /* mpirun now ends the job, this rank included; wait for that. Reaching
     * EOF means mpirun went away without killing us. */
    uint32_t type;
    void *b;
    size_t bl;
    while (tern_wire_recv(sock, &type, &b, &bl, TERN_KVS_MSG_MAX) == 0)
        free(b);
    return TERN_EPEER;
}

int tern_boot_finalize(void)
{
    int rc = 0;
    if (!singleton && sock >= 0) {
        tern_boot_watchdog_stop();
        rc = call(TERN_KVS_FINALIZE, NULL, 0, TERN_KVS_FINALIZE_ACK, NULL, NULL);
        close(sock);
        sock = -1;
    }
    while (table) {
        struct entry *e = table;
        table = e->next;
        free(e);
    }
    free(local_ranks);
    local_ranks = NULL;
    free(node_of);
    node_of = NULL;
    singleton = 0;
    return rc;
}
