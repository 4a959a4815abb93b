/*
 * hostd_drive: plays mpirun's part of the tern-hostd protocol over pipes,
 * so tern-hostd is tested without ssh and without root.
 *
 *   hostd_drive HOSTD [options] -- program [args...]
 *     -n N        ranks 0..N-1 on this host (default 1)
 *     -w DIR      --wdir DIR;  -W DIR: mpirun's cwd DIR (may not exist)
 *     -e VAR=VAL  add to every rank's environment (repeatable)
 *     -i TEXT     forward TEXT, then EOF, as rank 0's stdin
 *     -s MS:SIG   send SIGNAL SIG MS ms after START
 *     -c MS       close hostd's stdin MS ms after START (mpirun gone)
 *     -S          close hostd's stdin right after READY (no START)
 *     -k MS       be mpirun's store: accept hostd's watch connection and
 *                 close it MS ms after START (mpirun's host gone)
 *     -K          name a store address where nothing listens
 *
 * It prints one line per event on stdout: READY, ERROR <text>,
 * STARTED <rank>, OUT <rank> <stream> [LAST] <bytes, newlines as '|'>,
 * EXIT <rank> code|signal <n>, STDIN_ACK <n>, WATCH, DONE, EOF, and finally
 * HOSTD exit|signal <n>. Every rank gets TERN_RANK, TERN_LOCAL_RANK and
 * whatever TERN_TEST_MARK the driver itself has.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/hostd_proto.h"
#include "tern/auth.h"
#include "tern/clock.h"
#include "tern/wire.h"

struct opts {
    int n, wdir_explicit, signal_ms, signal_no, close_ms, no_start;
    int store_ms, bad_store;
    const char *wdir, *stdin_text;
    char *env[64];
    int n_env;
    char **argv;
    int argc;
};

static int parse(int argc, char **argv, struct opts *o)
{
    int c;
    memset(o, 0, sizeof *o);
    o->n = 1;
    o->signal_ms = o->close_ms = o->store_ms = -1;
    while ((c = getopt(argc, argv, "n:w:W:e:i:s:c:Sk:K")) != -1) {
        switch (c) {
        case 'n': o->n = atoi(optarg); break;
        case 'w': o->wdir = optarg; o->wdir_explicit = 1; break;
        case 'W': o->wdir = optarg; break;
        case 'e': if (o->n_env < 60) o->env[o->n_env++] = optarg; break;
        case 'i': o->stdin_text = optarg; break;
        case 's': if (sscanf(optarg, "%d:%d", &o->signal_ms, &o->signal_no) != 2) return -1;
                  break;
        case 'c': o->close_ms = atoi(optarg); break;
        case 'S': o->no_start = 1; break;
        case 'k': o->store_ms = atoi(optarg); break;
        case 'K': o->bad_store = 1; break;
        default: return -1;
        }
    }
    o->argv = argv + optind;
    o->argc = argc - optind;
    return o->argc > 0 ? 0 : -1;
}

static unsigned char secret[TERN_AUTH_SECRET_LEN];
static char store_env[2][128];

/* Listens on 127.0.0.1 as mpirun's store would (closed again for -K) and
 * fills the two environment entries that name it. */
static int open_store(const struct opts *o)
{
    struct sockaddr_in sa = { .sin_family = AF_INET };
    socklen_t sl = sizeof sa;
    char hex[TERN_AUTH_SECRET_HEX];
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) || listen(fd, 4) ||
        getsockname(fd, (struct sockaddr *)&sa, &sl) || tern_auth_secret_new(secret))
        return -1;
    tern_auth_hex(secret, sizeof secret, hex);
    snprintf(store_env[0], sizeof store_env[0], "TERN_KVS_ADDR=127.0.0.1:%d",
             ntohs(sa.sin_port));
    snprintf(store_env[1], sizeof store_env[1], "TERN_JOB_SECRET=%s", hex);
    if (o->bad_store) {
        close(fd);
        return -2;
    }
    return fd;
}

/* Accepts hostd's watch connection; prints WATCH when it says so. */
static int accept_watch(int lfd)
{
    int fd = accept(lfd, NULL, NULL);
    uint32_t type;
    void *body = NULL;
    size_t len;
    if (fd < 0 || tern_auth_server(fd, secret, 5000) ||
        tern_wire_recv(fd, &type, &body, &len, 16) || type != TERN_HOSTD_KVS_WATCH) {
        printf("BAD WATCH\n");
        return fd;
    }
    printf("WATCH\n");
    fflush(stdout);
    return fd;
}

static int send_job(int fd, const struct opts *o)
{
    struct tern_hostd_job j = { 0 };
    char cwd[4096];
    j.version = TERN_HOSTD_VERSION;
    j.host = "testhost";
    j.wdir = (char *)(o->wdir ? o->wdir : getcwd(cwd, sizeof cwd));
    j.wdir_explicit = o->wdir_explicit;
    j.grace_ms = 500;
    j.keepalive_ms = 1000;
    j.timeout_ms = 3000;
    j.stdin_rank = o->stdin_text ? 0 : -1;
    j.local_size = j.nranks = o->n;
    j.argc = o->argc;
    j.argv = o->argv;
    j.ranks = calloc((size_t)o->n, sizeof *j.ranks);
    char (*own)[3][64] = calloc((size_t)o->n, sizeof *own);
    for (int r = 0; r < o->n; r++) {
        j.ranks[r].rank = r;
        j.ranks[r].local_rank = r;
        j.ranks[r].env = calloc((size_t)o->n_env + 6, sizeof(char *));
        snprintf(own[r][0], 64, "TERN_RANK=%d", r);
        snprintf(own[r][1], 64, "TERN_LOCAL_RANK=%d", r);
        snprintf(own[r][2], 64, "TERN_BIND_TO=none");
        for (int k = 0; k < 3; k++)
            j.ranks[r].env[j.ranks[r].n_env++] = own[r][k];
        for (int e = 0; e < o->n_env; e++)
            j.ranks[r].env[j.ranks[r].n_env++] = o->env[e];
        for (int e = 0; e < 2 && store_env[e][0]; e++)
            j.ranks[r].env[j.ranks[r].n_env++] = store_env[e];
    }
    unsigned char *body = NULL;
    size_t len;
    int rc = tern_hostd_job_encode(&j, &body, &len);
    if (!rc)
        rc = tern_wire_send(fd, TERN_HOSTD_JOB, body, len);
    free(body);
    for (int r = 0; r < o->n; r++)
        free(j.ranks[r].env);
    free(j.ranks);
    free(own);
    return rc;
}

static void print_frame(uint32_t type, const unsigned char *b, size_t len)
{
    switch (type) {
    case TERN_HOSTD_READY: printf("READY\n"); break;
    case TERN_HOSTD_ERROR: printf("ERROR %.*s\n", (int)len, (const char *)b); break;
    case TERN_HOSTD_STARTED: printf("STARTED %u\n", tern_wire_get32(b)); break;
    case TERN_HOSTD_OUTPUT:
        printf("OUT %u %u%s ", tern_wire_get32(b), tern_wire_get32(b + 4),
               (tern_wire_get32(b + 8) & TERN_HOSTD_OUT_LAST) ? " LAST" : "");
        for (size_t i = 12; i < len; i++)
            putchar(b[i] == '\n' ? '|' : b[i]);
        putchar('\n');
        break;
    case TERN_HOSTD_EXIT: {
        int st = (int)tern_wire_get32(b + 4);
        printf("EXIT %u %s %d\n", tern_wire_get32(b), WIFSIGNALED(st) ? "signal" : "code",
               WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
        break;
    }
    case TERN_HOSTD_DONE: printf("DONE\n"); break;
    case TERN_HOSTD_STDIN_ACK: printf("STDIN_ACK %u\n", tern_wire_get32(b)); break;
    case TERN_HOSTD_PING: break;
    default: printf("UNKNOWN %u\n", type);
    }
    fflush(stdout);
}

/* Talks to hostd until it closes its stdout. */
static void converse(const struct opts *o, int to, int from, int lfd)
{
    long long start = 0, last_ping = tern_clock_ms();
    int started = 0, to_open = 1, signalled = 0, watch = -1;
    for (;;) {
        long long now = tern_clock_ms();
        if (started && to_open && o->signal_ms >= 0 && !signalled &&
            now - start >= o->signal_ms) {
            unsigned char b[4];
            tern_wire_put32(b, (uint32_t)o->signal_no);
            tern_wire_send(to, TERN_HOSTD_SIGNAL, b, 4);
            signalled = 1;
        }
        if (started && to_open && o->close_ms >= 0 && now - start >= o->close_ms) {
            close(to);
            to_open = 0;
        }
        if (started && watch >= 0 && o->store_ms >= 0 && now - start >= o->store_ms) {
            close(watch);
            watch = -2;
        }
        if (to_open && now - last_ping >= 200) {
            tern_wire_send(to, TERN_HOSTD_PING, NULL, 0);
            last_ping = now;
        }
        struct pollfd p[2] = { { .fd = from, .events = POLLIN },
                               { .fd = watch == -1 ? lfd : -1, .events = POLLIN } };
        if (poll(p, 2, 50) <= 0)
            continue;
        if (p[1].revents) {
            watch = accept_watch(lfd);
            continue;
        }
        uint32_t type;
        void *body = NULL;
        size_t len;
        if (tern_wire_recv(from, &type, &body, &len, TERN_HOSTD_FROM_HOSTD_MAX)) {
            printf("EOF\n");
            return;
        }
        print_frame(type, body, len);
        free(body);
        if (type == TERN_HOSTD_READY && o->no_start) {
            close(to);
            to_open = 0;
        } else if (type == TERN_HOSTD_READY) {
            tern_wire_send(to, TERN_HOSTD_START, NULL, 0);
            started = 1;
            start = tern_clock_ms();
            if (o->stdin_text) {
                tern_wire_send(to, TERN_HOSTD_STDIN, o->stdin_text, strlen(o->stdin_text));
                tern_wire_send(to, TERN_HOSTD_STDIN, NULL, 0);
            }
        }
    }
}

int main(int argc, char **argv)
{
    struct opts o;
    if (argc < 3 || parse(argc - 1, argv + 1, &o)) {
        fprintf(stderr, "usage: hostd_drive HOSTD [-n N] [-w|-W DIR] [-e VAR=VAL] "
                "[-i TEXT] [-s MS:SIG] [-c MS] [-S] [-k MS] [-K] -- program [args]\n");
        return 2;
    }
    int to[2], from[2];
    signal(SIGPIPE, SIG_IGN);
    if (pipe(to) || pipe(from))
        return 2;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(to[0], 0);
        dup2(from[1], 1);
        close(to[1]);
        close(from[0]);
        execl(argv[1], argv[1], (char *)NULL);
        perror(argv[1]);
        _exit(127);
    }
    close(to[0]);
    close(from[1]);
    int lfd = -1;
    if ((o.store_ms >= 0 || o.bad_store) && (lfd = open_store(&o)) == -1) {
        printf("cannot open a store\n");
        return 2;
    }
    char magic[TERN_HOSTD_MAGIC_LEN];
    if (tern_wire_read_full(from[0], magic, sizeof magic) ||
        memcmp(magic, TERN_HOSTD_MAGIC, sizeof magic)) {
        printf("no magic from hostd\n");
        return 2;
    }
    if (send_job(to[1], &o)) {
        printf("cannot send the job\n");
        return 2;
    }
    converse(&o, to[1], from[0], lfd);
    int st;
    waitpid(pid, &st, 0);
    printf("HOSTD %s %d\n", WIFSIGNALED(st) ? "signal" : "exit",
           WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    return 0;
}
