/*
 * Host lists from hostfiles and -H values.
 *
 * One entry is "host", "host:N" (MPICH) or "host slots=N [max_slots=M]
 * [port=P]" (Open MPI; "max-slots" is accepted too), where host may be
 * "user@host" to log in as another user than mpirun's. An IPv6 address
 * is written in brackets ("[fe80::1]", "[::1]:4", "me@[::1]"), since
 * "fe80::1:4" could be read two ways. In a hostfile each line holds one entry; '#' starts a
 * comment, blank lines are skipped, CR before LF and spaces around an entry
 * are ignored and the last line needs no newline. A -H value holds entries
 * separated by commas. An entry without a count gives one slot, and a host
 * named again adds its slots to the first mention (names compare without
 * regard to case); a host's mentions must agree on its user and port.
 *
 * Every name that denotes this machine (localhost, a loopback address, our
 * hostname short or full, or one of our interface addresses) is merged into
 * the first such host: "localhost slots=2" and "127.0.0.1" make one local
 * host with 3 slots, so the ranks on it share memory and see one
 * TERN_LOCAL_SIZE. Ranks there are started without ssh, as the user
 * running mpirun, so a user@ on such a name must be that user. Names are
 * not looked up in DNS here; the ssh launcher resolves remote ones.
 *
 * Errors: one line, "file:line:col: problem near 'token'; accepted forms:
 * ..." for a hostfile and "-H 'value', column C: ..." for -H.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "launcher/plan.h"
#include "tern/err.h"

#define FORMS "accepted forms: host, host:N, host slots=N [max_slots=M] [port=P], " \
              "each host also as user@host"
#define MAX_SLOTS (1 << 20)
#define SLOT_CAP (1 << 24)     /* Sums of slots saturate here. */
#define NAME_MAX_LEN 253
#define USER_MAX_LEN 32            /* useradd's limit. */
#define HOSTFILE_MAX (16 << 20)

/* One parsed entry; name and user point into the text being parsed. */
struct entry {
    const char *name;
    size_t name_len;
    const char *user;           /* NULL when the entry gives none. */
    size_t user_len, user_off;
    int slots, max_slots, port; /* 0 when not given. */
    size_t port_off;            /* Offset of "port=" for a conflict error. */
};

/* Where and what a parse error is: off is an offset into the text. */
struct perr {
    size_t off;
    char msg[160];
};

static int is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int bad(struct perr *pe, size_t off, const char *msg)
{
    pe->off = off;
    snprintf(pe->msg, sizeof pe->msg, "%s", msg);
    return TERN_EINVAL;
}

/* Parses s[i, j) as a decimal number from 1 to max; -1 if it is not. */
static int parse_num(const char *s, size_t i, size_t j, int max)
{
    if (i == j || j - i > 9)
        return -1;
    long v = 0;
    for (size_t k = i; k < j; k++) {
        if (!isdigit((unsigned char)s[k]))
            return -1;
        v = v * 10 + (s[k] - '0');
    }
    return v >= 1 && v <= max ? (int)v : -1;
}

/* 1 if text (with an optional "%zone") is an IPv6 address. */
static int valid_ipv6(const char *s, size_t n)
{
    char buf[INET6_ADDRSTRLEN + 1];
    size_t a = 0;
    while (a < n && s[a] != '%')
        a++;
    if (a == 0 || a >= sizeof buf)
        return 0;
    for (size_t k = a + 1; k < n; k++)
        if (!isalnum((unsigned char)s[k]) && s[k] != '.' && s[k] != '_' && s[k] != '-')
            return 0;
    if (a < n && a + 1 == n)
        return 0;
    memcpy(buf, s, a);
    buf[a] = '\0';
    struct in6_addr addr;
    return inet_pton(AF_INET6, buf, &addr) == 1;
}

static int parse_bracketed(const char *s, size_t *pi, size_t end, struct entry *e,
                           struct perr *pe)
{
    size_t i = *pi, j = i + 1;
    while (j < end && s[j] != ']' && !is_ws(s[j]))
        j++;
    if (j >= end || s[j] != ']')
        return bad(pe, i, "'[' without a closing ']'");
    if (j == i + 1)
        return bad(pe, i, "empty brackets");
    if (!valid_ipv6(s + i + 1, j - i - 1))
        return bad(pe, i + 1, "brackets hold an IPv6 address, and this is not one");
    e->name = s + i + 1;
    e->name_len = j - i - 1;
    *pi = j + 1;
    return 0;
}

/* Parses the host name at s[*pi] and moves *pi past it. */
static int parse_name(const char *s, size_t *pi, size_t end, struct entry *e,
                      struct perr *pe)
{
    size_t i = *pi, j = i;
    if (s[i] == '[')
        return parse_bracketed(s, pi, end, e, pe);
    while (j < end && !is_ws(s[j]) && s[j] != ':')
        j++;
    if (j == i)
        return bad(pe, i, "missing host name");
    if (j < end && s[j] == ':') {
        for (size_t k = j + 1; k < end && !is_ws(s[k]); k++)
            if (s[k] == ':')
                return bad(pe, i, "an IPv6 address must be written in brackets, "
                           "e.g. [fe80::1]:4");
    }
    if (s[i] == '-' || s[i] == '.')
        return bad(pe, i, "a host name cannot start with '-' or '.'");
    for (size_t k = i; k < j; k++) {
        unsigned char c = (unsigned char)s[k];
        if (!isalnum(c) && c != '.' && c != '-' && c != '_') {
            char msg[64];
            snprintf(msg, sizeof msg, isprint(c) ? "invalid character '%c' in host name"
                     : "invalid byte 0x%02x in host name", c);
            return bad(pe, k, msg);
        }
    }
    if (j - i > NAME_MAX_LEN)
        return bad(pe, i, "host name longer than 253 characters");
    e->name = s + i;
    e->name_len = j - i;
    *pi = j;
    return 0;
}

/* Parses a "user@" before the host name at s[*pi], if there is one, and
 * moves *pi past it. User names are those useradd accepts by default:
 * letters, digits, '.', '_' and '-', not starting with '-'. */
static int parse_user(const char *s, size_t *pi, size_t end, struct entry *e,
                      struct perr *pe)
{
    size_t i = *pi, at = i;
    while (at < end && !is_ws(s[at]) && s[at] != '@')
        at++;
    if (at == end || s[at] != '@')
        return 0;
    if (at == i)
        return bad(pe, i, "missing user name before '@'");
    if (s[i] == '-')
        return bad(pe, i, "a user name cannot start with '-'");
    for (size_t k = i; k < at; k++) {
        unsigned char c = (unsigned char)s[k];
        if (!isalnum(c) && c != '.' && c != '-' && c != '_')
            return bad(pe, k, "invalid character in user name (letters, digits, '.', "
                       "'_' and '-' only)");
    }
    if (at - i > USER_MAX_LEN)
        return bad(pe, i, "user name longer than 32 characters");
    e->user = s + i;
    e->user_len = at - i;
    e->user_off = i;
    *pi = at + 1;
    if (*pi == end || is_ws(s[*pi]))
        return bad(pe, at, "missing host name after '@'");
    return 0;
}

/* Parses one "key=value" word s[i, j). */
static int parse_keyword(const char *s, size_t i, size_t j, struct entry *e,
                         struct perr *pe)
{
    size_t eq = i;
    while (eq < j && s[eq] != '=')
        eq++;
    if (eq == j)
        return bad(pe, i, "unexpected word after the host");
    size_t klen = eq - i;
    int *dst, max = MAX_SLOTS;
    if (klen == 5 && !strncmp(s + i, "slots", 5)) {
        dst = &e->slots;
    } else if (klen == 9 && (!strncmp(s + i, "max_slots", 9) ||
                             !strncmp(s + i, "max-slots", 9))) {
        dst = &e->max_slots;
    } else if (klen == 4 && !strncmp(s + i, "port", 4)) {
        dst = &e->port;
        max = 65535;
        e->port_off = i;
    } else {
        return bad(pe, i, "unknown keyword (known: slots=, max_slots=, port=)");
    }
    if (*dst)
        return bad(pe, i, dst == &e->slots ? "slots given twice"
                   : dst == &e->port ? "port given twice" : "max_slots given twice");
    if ((*dst = parse_num(s, eq + 1, j, max)) < 0)
        return bad(pe, eq + 1, max == 65535 ? "port is not a number from 1 to 65535"
                   : "slot count is not a number from 1 to 1048576");
    return 0;
}

/* Parses the entry in s[i, end). Returns 1 for an entry, 0 for a blank one,
 * or TERN_EINVAL with pe filled in. */
static int parse_entry(const char *s, size_t i, size_t end, struct entry *e,
                       struct perr *pe)
{
    memset(e, 0, sizeof *e);
    while (i < end && is_ws(s[i]))
        i++;
    while (end > i && is_ws(s[end - 1]))
        end--;
    if (i == end)
        return 0;
    int rc = parse_user(s, &i, end, e, pe);
    if (!rc)
        rc = parse_name(s, &i, end, e, pe);
    if (rc)
        return rc;
    if (i < end && s[i] == ':') {
        size_t j = ++i;
        while (j < end && !is_ws(s[j]))
            j++;
        if ((e->slots = parse_num(s, i, j, MAX_SLOTS)) < 0)
            return bad(pe, i, "slot count after ':' is not a number from 1 to 1048576");
        i = j;
    }
    if (i < end && !is_ws(s[i]))
        return bad(pe, i, "unexpected text after the host");
    while (i < end) {
        while (i < end && is_ws(s[i]))
            i++;
        size_t j = i;
        while (j < end && !is_ws(s[j]))
            j++;
        if (i < j && (rc = parse_keyword(s, i, j, e, pe)))
            return rc;
        i = j;
    }
    if (e->max_slots && e->max_slots < (e->slots ? e->slots : 1))
        return bad(pe, e->name - s, "max_slots is smaller than slots");
    return 1;
}

/* ---- Does a name denote this machine? ---- */

/* Parses a numeric address (IPv6 may carry a %zone); returns the family
 * (AF_INET with 4 bytes, AF_INET6 with 16) or 0 if name is not one. An
 * IPv4-mapped IPv6 address is returned as IPv4. */
static int numeric_addr(const char *name, unsigned char *addr)
{
    char buf[INET6_ADDRSTRLEN + 1];
    size_t n = strcspn(name, "%");
    if (inet_pton(AF_INET, name, addr) == 1)
        return AF_INET;
    if (n >= sizeof buf)
        return 0;
    memcpy(buf, name, n);
    buf[n] = '\0';
    if (inet_pton(AF_INET6, buf, addr) != 1)
        return 0;
    static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
    if (memcmp(addr, mapped, 12) == 0) {
        memmove(addr, addr + 12, 4);
        return AF_INET;
    }
    return AF_INET6;
}

static int is_loopback(int fam, const unsigned char *a)
{
    static const unsigned char one[16] = { [15] = 1 };
    return fam == AF_INET ? a[0] == 127 : memcmp(a, one, 16) == 0;
}

/* 1 if the address belongs to one of our interfaces. */
static int is_own_address(int fam, const unsigned char *a)
{
    struct ifaddrs *list, *ifa;
    int found = 0;
    if (getifaddrs(&list) != 0)
        return 0;
    for (ifa = list; ifa && !found; ifa = ifa->ifa_next) {
        if (!ifa->ifa_addr || ifa->ifa_addr->sa_family != fam)
            continue;
        if (fam == AF_INET)
            found = !memcmp(&((struct sockaddr_in *)ifa->ifa_addr)->sin_addr, a, 4);
        else
            found = !memcmp(&((struct sockaddr_in6 *)ifa->ifa_addr)->sin6_addr, a, 16);
    }
    freeifaddrs(list);
    return found;
}

/* 1 if name is our hostname, or its short form, or our hostname is the
 * short form of name. */
static int is_own_name(const char *name)
{
    char self[256];
    if (gethostname(self, sizeof self) != 0)
        return 0;
    self[sizeof self - 1] = '\0';
    if (strcasecmp(name, self) == 0)
        return 1;
    size_t a = strcspn(name, "."), b = strcspn(self, ".");
    if (a != b || strncasecmp(name, self, a) != 0)
        return 0;
    return name[a] == '\0' || self[b] == '\0';
}

int tern_hostfile_is_local(const char *name)
{
    static const char *loop[] = { "localhost", "localhost.localdomain",
                                  "ip6-localhost", "ip6-loopback" };
    for (size_t i = 0; i < sizeof loop / sizeof loop[0]; i++)
        if (strcasecmp(name, loop[i]) == 0)
            return 1;
    unsigned char addr[16];
    int fam = numeric_addr(name, addr);
    if (fam)
        return is_loopback(fam, addr) || is_own_address(fam, addr);
    return is_own_name(name);
}

/* ---- Building the list ---- */

static int add_sat(int a, int b)
{
    return a + b > SLOT_CAP ? SLOT_CAP : a + b;
}

/* Whether e's user (given) is another than the one running mpirun. */
static int other_user(const struct entry *e)
{
    const struct passwd *pw = getpwuid(getuid());
    return !pw || strlen(pw->pw_name) != e->user_len ||
           strncmp(pw->pw_name, e->user, e->user_len) != 0;
}

/* Adds a parsed entry, merging it into an earlier mention of the same host
 * (or into the local host). */
static int hostlist_add(struct tern_hostlist *hl, const struct entry *e,
                        struct perr *pe)
{
    char *name = strndup(e->name, e->name_len);
    if (!name)
        return TERN_ENOMEM;
    int local = tern_hostfile_is_local(name);
    int slots = e->slots ? e->slots : 1;
    if (local && e->user && other_user(e)) {
        free(name);
        return bad(pe, e->user_off, "this host is the machine mpirun runs on, where ranks "
                   "run as the user running mpirun, and this is another user");
    }
    for (int i = 0; i < hl->n; i++) {
        struct tern_host *h = &hl->hosts[i];
        if (strcasecmp(h->name, name) != 0 && !(local && h->local))
            continue;
        free(name);
        if (!h->local && e->port && h->ssh_port && e->port != h->ssh_port)
            return bad(pe, e->port_off, "this host was given another port= before");
        if (!h->local && e->user && h->ssh_user &&
            (strlen(h->ssh_user) != e->user_len ||
             strncmp(h->ssh_user, e->user, e->user_len) != 0))
            return bad(pe, e->user_off, "this host was given another user before");
        if (!h->local && e->user && !h->ssh_user &&
            !(h->ssh_user = strndup(e->user, e->user_len)))
            return TERN_ENOMEM;
        if (e->port)
            h->ssh_port = e->port;
        h->slots = add_sat(h->slots, slots);
        h->max_slots = h->max_slots && e->max_slots ? add_sat(h->max_slots, e->max_slots) : 0;
        return 0;
    }
    struct tern_host *hosts = realloc(hl->hosts, (size_t)(hl->n + 1) * sizeof *hosts);
    if (!hosts) {
        free(name);
        return TERN_ENOMEM;
    }
    hl->hosts = hosts;
    struct tern_host *h = &hosts[hl->n++];
    memset(h, 0, sizeof *h);
    h->name = name;
    h->slots = slots;
    h->max_slots = e->max_slots;
    h->ssh_port = e->port;
    h->local = local;
    if (e->user && !local && !(h->ssh_user = strndup(e->user, e->user_len)))
        return TERN_ENOMEM;
    return 0;
}

/* Copies the whitespace-delimited word around off in s[start, end) into
 * tok (at most 40 bytes, non-printable bytes as '?'). */
static void near_token(const char *s, size_t start, size_t end, size_t off,
                       char *tok, size_t toklen)
{
    if (off >= end && off > start)
        off = end - 1;
    while (off > start && is_ws(s[off]))
        off--;
    size_t a = off, b = off;
    while (a > start && !is_ws(s[a - 1]))
        a--;
    while (b < end && !is_ws(s[b]))
        b++;
    size_t n = 0;
    for (size_t k = a; k < b && n + 1 < toklen && n < 40; k++)
        tok[n++] = isprint((unsigned char)s[k]) ? s[k] : '?';
    tok[n] = '\0';
}

/* Parses and adds the entry s[start, end) of line `line` of file (or of
 * the -H value s when line is 0). Returns 1 if an entry was added, 0 for a
 * blank one, or a TERN_E* code with the one-line message in err. */
static int add_entry(struct tern_hostlist *hl, const char *s, size_t start,
                     size_t end, const char *file, int line, char *err, size_t errlen)
{
    struct entry e;
    struct perr pe = { 0, "" };
    int rc = parse_entry(s, start, end, &e, &pe);
    if (rc == 1)
        rc = hostlist_add(hl, &e, &pe);
    else if (rc == 0)
        return 0;
    if (rc == 0)
        return 1;
    if (rc == TERN_ENOMEM) {
        snprintf(err, errlen, "out of memory reading the host list");
        return rc;
    }
    char tok[48];
    near_token(s, start, end, pe.off, tok, sizeof tok);
    if (line > 0)
        snprintf(err, errlen, "%s:%d:%d: %s near '%s'; " FORMS, file, line,
                 (int)(pe.off - start) + 1, pe.msg, tok);
    else
        snprintf(err, errlen, "-H '%s', column %d: %s near '%s'; " FORMS, s,
                 (int)pe.off + 1, pe.msg, tok);
    return TERN_EINVAL;
}

int tern_hostlist_add_spec(const char *spec, struct tern_hostlist *hl,
                           char *err, size_t errlen)
{
    size_t len = strlen(spec), i = 0;
    for (;;) {
        size_t j = i;
        while (j < len && spec[j] != ',')
            j++;
        int rc = add_entry(hl, spec, i, j, NULL, 0, err, errlen);
        if (rc < 0)
            return rc;
        if (rc == 0) {
            snprintf(err, errlen, "-H '%s', column %d: empty host entry; give "
                     "hosts separated by commas, e.g. -H node1,node2:4", spec,
                     (int)i + 1);
            return TERN_EINVAL;
        }
        if (j >= len)
            return 0;
        i = j + 1;
    }
}

/* Reads a whole file (at most HOSTFILE_MAX bytes); errno on failure. */
static char *slurp(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf)
            break;
        if (n == cap) {
            char *nb = cap >= HOSTFILE_MAX ? NULL : realloc(buf, cap * 2);
            if (!nb) {
                errno = cap >= HOSTFILE_MAX ? EFBIG : ENOMEM;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0) {
                close(fd);
                *len = n;
                return buf;
            }
            break;
        }
        n += (size_t)r;
    }
    int saved = errno;
    free(buf);
    close(fd);
    errno = saved;
    return NULL;
}

int tern_hostfile_read(const char *path, struct tern_hostlist *hl,
                       char *err, size_t errlen)
{
    size_t len;
    char *text = slurp(path, &len);
    if (!text) {
        snprintf(err, errlen, "cannot read hostfile '%s': %s; check the path given "
                 "to --hostfile", path, strerror(errno));
        return TERN_EINVAL;
    }
    int line = 0, entries = 0, rc = 0;
    for (size_t i = 0; i < len && rc >= 0; ) {
        size_t eol = i;
        while (eol < len && text[eol] != '\n')
            eol++;
        size_t end = i;
        while (end < eol && text[end] != '#')
            end++;
        rc = add_entry(hl, text, i, end, path, ++line, err, errlen);
        entries += rc > 0;
        i = eol + 1;
    }
    free(text);
    if (rc < 0)
        return rc;
    if (entries == 0) {
        snprintf(err, errlen, "hostfile '%s' names no hosts (it has only blank or "
                 "comment lines); add one host per line, " FORMS, path);
        return TERN_EINVAL;
    }
    return 0;
}

void tern_hostlist_free(struct tern_hostlist *hl)
{
    for (int i = 0; i < hl->n; i++) {
        free(hl->hosts[i].name);
        free(hl->hosts[i].ssh_user);
        free(hl->hosts[i].ranks);
    }
    free(hl->hosts);
    hl->hosts = NULL;
    hl->n = 0;
}
