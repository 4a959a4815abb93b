/*
 * Encoding and decoding of the JOB message of the mpirun <-> tern-hostd
 * protocol (launcher/hostd_proto.h).
 *
 * Layout of the body, every integer 32-bit big-endian, every string a
 * length and its bytes:
 *   version, host, wdir, wdir_explicit, grace_ms, keepalive_ms, timeout_ms,
 *   stdin_rank (+1, so -1 is 0), local_size, argc, argv[argc],
 *   nranks, then per rank: rank, local_rank, n_env, env[n_env].
 * The decoder checks every length against the bytes left, so a short or
 * hostile body is TERN_EPROTO, never an overread or a huge allocation.
 */
#include <stdlib.h>
#include <string.h>

#include "launcher/hostd_proto.h"
#include "tern/err.h"
#include "tern/wire.h"

struct buf {
    unsigned char *p;
    size_t len, cap;
    int oom;
};

static void put_bytes(struct buf *b, const void *src, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, src, n);
    b->len += n;
}

static void put_u32(struct buf *b, uint32_t v)
{
    unsigned char x[4];
    tern_wire_put32(x, v);
    put_bytes(b, x, 4);
}

static void put_str(struct buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    put_u32(b, (uint32_t)n);
    put_bytes(b, s ? s : "", n);
}

int tern_hostd_job_encode(const struct tern_hostd_job *job, unsigned char **body,
                          size_t *len)
{
    struct buf b = { 0 };
    put_u32(&b, (uint32_t)job->version);
    put_str(&b, job->host);
    put_str(&b, job->wdir);
    put_u32(&b, (uint32_t)job->wdir_explicit);
    put_u32(&b, (uint32_t)job->grace_ms);
    put_u32(&b, (uint32_t)job->keepalive_ms);
    put_u32(&b, (uint32_t)job->timeout_ms);
    put_u32(&b, (uint32_t)(job->stdin_rank + 1));
    put_u32(&b, (uint32_t)job->local_size);
    put_u32(&b, (uint32_t)job->argc);
    for (int i = 0; i < job->argc; i++)
        put_str(&b, job->argv[i]);
    put_u32(&b, (uint32_t)job->nranks);
    for (int i = 0; i < job->nranks; i++) {
        const struct tern_hostd_rank *r = &job->ranks[i];
        put_u32(&b, (uint32_t)r->rank);
        put_u32(&b, (uint32_t)r->local_rank);
        put_u32(&b, (uint32_t)r->n_env);
        for (int e = 0; e < r->n_env; e++)
            put_str(&b, r->env[e]);
    }
    if (b.oom) {
        free(b.p);
        return TERN_ENOMEM;
    }
    *body = b.p;
    *len = b.len;
    return 0;
}

struct cur {
    const unsigned char *p;
    size_t left;
    int bad;
};

static uint32_t get_u32(struct cur *c)
{
    if (c->bad || c->left < 4) {
        c->bad = 1;
        return 0;
    }
    uint32_t v = tern_wire_get32(c->p);
    c->p += 4;
    c->left -= 4;
    return v;
}

/* A non-negative int no larger than max. */
static int get_int(struct cur *c, uint32_t max)
{
    uint32_t v = get_u32(c);
    if (v > max)
        c->bad = 1;
    return c->bad ? 0 : (int)v;
}

/* A malloc'ed NUL-terminated copy; strings with NULs inside are refused. */
static char *get_str(struct cur *c)
{
    uint32_t n = get_u32(c);
    if (c->bad || n > c->left || memchr(c->p, '\0', n)) {
        c->bad = 1;
        return NULL;
    }
    char *s = malloc((size_t)n + 1);
    if (!s) {
        c->bad = 2;
        return NULL;
    }
    memcpy(s, c->p, n);
    s[n] = '\0';
    c->p += n;
    c->left -= n;
    return s;
}

/* An array of n strings (NULL-terminated); n must fit in what is left,
 * since every string takes at least 4 bytes. */
static char **get_strs(struct cur *c, int n)
{
    if (c->bad || (size_t)n > c->left / 4) {
        c->bad = c->bad ? c->bad : 1;
        return NULL;
    }
    char **v = calloc((size_t)n + 1, sizeof *v);
    if (!v) {
        c->bad = 2;
        return NULL;
    }
    for (int i = 0; i < n && !c->bad; i++)
        v[i] = get_str(c);
    return v;
}

static void decode_ranks(struct cur *c, struct tern_hostd_job *job)
{
    job->nranks = get_int(c, 1u << 20);
    if (c->bad || (size_t)job->nranks > c->left / 12) {
        c->bad = c->bad ? c->bad : 1;
        return;
    }
    job->ranks = calloc((size_t)job->nranks ? (size_t)job->nranks : 1,
                        sizeof *job->ranks);
    if (!job->ranks) {
        c->bad = 2;
        return;
    }
    for (int i = 0; i < job->nranks && !c->bad; i++) {
        struct tern_hostd_rank *r = &job->ranks[i];
        r->rank = get_int(c, 1u << 24);
        r->local_rank = get_int(c, 1u << 24);
        r->n_env = get_int(c, 1u << 20);
        r->env = get_strs(c, r->n_env);
    }
}

int tern_hostd_job_decode(const unsigned char *body, size_t len,
                          struct tern_hostd_job *job)
{
    struct cur c = { body, len, 0 };
    memset(job, 0, sizeof *job);
    job->version = get_int(&c, 1u << 30);
    job->host = get_str(&c);
    job->wdir = get_str(&c);
    job->wdir_explicit = get_int(&c, 1);
    job->grace_ms = get_int(&c, 1u << 30);
    job->keepalive_ms = get_int(&c, 1u << 30);
    job->timeout_ms = get_int(&c, 1u << 30);
    job->stdin_rank = get_int(&c, 1u << 24) - 1;
    job->local_size = get_int(&c, 1u << 24);
    job->argc = get_int(&c, 1u << 20);
    job->argv = get_strs(&c, job->argc);
    decode_ranks(&c, job);
    if (!c.bad && (c.left != 0 || job->argc < 1 || job->nranks != job->local_size))
        c.bad = 1;
    if (c.bad) {
        tern_hostd_job_free(job);
        return c.bad == 2 ? TERN_ENOMEM : TERN_EPROTO;
    }
    return 0;
}

static void free_strs(char **v, int n)
{
    if (!v)
        return;
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void tern_hostd_job_free(struct tern_hostd_job *job)
{
    free(job->host);
    free(job->wdir);
    free_strs(job->argv, job->argc);
    if (job->ranks)
        for (int i = 0; i < job->nranks; i++)
            free_strs(job->ranks[i].env, job->ranks[i].n_env);
    free(job->ranks);
    memset(job, 0, sizeof *job);
}
