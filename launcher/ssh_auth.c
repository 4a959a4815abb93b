/*
 * Host keys and user authentication for the ssh launcher (libssh2).
 *
 * Host keys: ~/.ssh/known_hosts is read line by line with libssh2's
 * parser (plain and hashed names; see add_line() for a libssh2 bug). A host on port 22 is looked up as "name", on another port
 * as "[name]:port", as OpenSSH does. Before the handshake the session is
 * told to prefer the key types known_hosts holds for the host (found by
 * probing each type with a dummy key: a MISMATCH means an entry of that
 * type exists), so a host known by its ed25519 key is not asked for its
 * ECDSA key. Outcomes: a match passes; no entry is "unknown" (added, with
 * --ssh-accept-new-hostkey, as one appended line); an entry with another
 * key is "CHANGED", never accepted, and the message names the known_hosts
 * line (found by parsing the file one line at a time).
 *
 * Authentication, in order: every key ssh-agent holds (when SSH_AUTH_SOCK
 * is set), then the key of -i / TERN_SSH_KEY if given, else whichever of
 * ~/.ssh/id_ed25519, id_ecdsa and id_rsa exist. A failure names each
 * method tried and what happened to it.
 *
 * All of this runs in a setup worker thread on a blocking session whose
 * operations are bounded by libssh2_session_set_timeout().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/ssh.h"
#include "tern/err.h"

struct keytype {
    int hostkey;              /* LIBSSH2_HOSTKEY_TYPE_* */
    int known;                /* LIBSSH2_KNOWNHOST_KEY_* */
    const char *methods;      /* Host key algorithms for it. */
    const char *name;
};

/* In OpenSSH's order of preference. */
static const struct keytype types[] = {
    { LIBSSH2_HOSTKEY_TYPE_ED25519, LIBSSH2_KNOWNHOST_KEY_ED25519, "ssh-ed25519", "ed25519" },
    { LIBSSH2_HOSTKEY_TYPE_ECDSA_256, LIBSSH2_KNOWNHOST_KEY_ECDSA_256,
      "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp256" },
    { LIBSSH2_HOSTKEY_TYPE_ECDSA_384, LIBSSH2_KNOWNHOST_KEY_ECDSA_384,
      "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp384" },
    { LIBSSH2_HOSTKEY_TYPE_ECDSA_521, LIBSSH2_KNOWNHOST_KEY_ECDSA_521,
      "ecdsa-sha2-nistp521", "ecdsa-sha2-nistp521" },
    { LIBSSH2_HOSTKEY_TYPE_RSA, LIBSSH2_KNOWNHOST_KEY_SSHRSA,
      "rsa-sha2-512,rsa-sha2-256,ssh-rsa", "rsa" },
};
#define NTYPES (sizeof types / sizeof types[0])

const char *tern_ssh_errmsg(struct tern_ssh_host *h)
{
    char *msg = NULL;
    if (!h->sess)
        return "no session";
    libssh2_session_last_error(h->sess, &msg, NULL, 0);
    return msg && *msg ? msg : "unknown error";
}

static void known_hosts_path(const struct tern_ssh_host *h, char *out, size_t len)
{
    snprintf(out, len, "%s/.ssh/known_hosts", h->ssh->home);
}

/* The name known_hosts uses for this host and port. */
static void known_name(const struct tern_ssh_host *h, char *out, size_t len)
{
    if (h->port == 22)
        snprintf(out, len, "%s", h->host);
    else
        snprintf(out, len, "[%s]:%d", h->host, h->port);
}

/* Adds one known_hosts line. libssh2 1.10 takes a host field of one or
 * two characters ("h2") for a hashed one and drops the line, so such a
 * name is given to it as "h2,h2", which means the same. */
static int add_line(LIBSSH2_KNOWNHOSTS *kh, const char *line)
{
    char fixed[8300];
    size_t skip = strspn(line, " \t"), n = strcspn(line + skip, " \t\r\n");
    if (n >= 1 && n <= 2 && line[skip] != '#' && line[skip] != '@' && line[skip] != '|') {
        snprintf(fixed, sizeof fixed, "%.*s,%s", (int)n, line + skip, line + skip);
        line = fixed;
    }
    return libssh2_knownhost_readline(kh, line, strlen(line),
                                      LIBSSH2_KNOWNHOST_FILE_OPENSSH);
}

/* Reads known_hosts into kh. A missing file or a line libssh2 cannot parse just knows fewer hosts. */
static void read_known(struct tern_ssh_host *h, LIBSSH2_KNOWNHOSTS *kh)
{
    char path[4200], line[8192];
    known_hosts_path(h, path, sizeof path);
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    while (fgets(line, sizeof line, f))
        add_line(kh, line);
    fclose(f);
}

static LIBSSH2_KNOWNHOSTS *load_known(struct tern_ssh_host *h)
{
    LIBSSH2_KNOWNHOSTS *kh = libssh2_knownhost_init(h->sess);
    if (kh)
        read_known(h, kh);
    return kh;
}

/* Appends the methods of the comma-separated list that algs contains. */
static void add_supported(char *prefs, size_t len, const char *methods,
                          const char **algs, int nalgs)
{
    for (const char *m = methods; *m; ) {
        size_t k = strcspn(m, ",");
        for (int a = 0; a < nalgs; a++) {
            if (strlen(algs[a]) == k && !strncmp(algs[a], m, k)) {
                size_t n = strlen(prefs);
                snprintf(prefs + n, len - n, "%s%.*s", n ? "," : "", (int)k, m);
                break;
            }
        }
        m += k + (m[k] == ',');
    }
}

void tern_ssh_hostkey_prefs(struct tern_ssh_host *h)
{
    char name[300], prefs[512] = "";
    static const char dummy[] = "tern-probe";
    LIBSSH2_KNOWNHOSTS *kh = load_known(h);
    if (!kh)
        return;
    known_name(h, name, sizeof name);
    int have[NTYPES];
    for (size_t i = 0; i < NTYPES; i++)
        have[i] = libssh2_knownhost_checkp(kh, name, -1, dummy, sizeof dummy - 1,
                                           LIBSSH2_KNOWNHOST_TYPE_PLAIN |
                                           LIBSSH2_KNOWNHOST_KEYENC_RAW | types[i].known,
                                           NULL) == LIBSSH2_KNOWNHOST_CHECK_MISMATCH;
    libssh2_knownhost_free(kh);
    /* Only algorithms this libssh2 supports: 1.10 copies the list with an
     * overlapping memcpy when it drops one it does not know. */
    const char **algs = NULL;
    int nalgs = libssh2_session_supported_algs(h->sess, LIBSSH2_METHOD_HOSTKEY, &algs);
    for (int pass = 1; pass >= 0 && nalgs > 0; pass--) {
        for (size_t i = 0; i < NTYPES; i++) {
            if (have[i] == pass)
                add_supported(prefs, sizeof prefs, types[i].methods, algs, nalgs);
        }
    }
    if (nalgs > 0) {
        libssh2_free(h->sess, algs);
        if (prefs[0])
            libssh2_session_method_pref(h->sess, LIBSSH2_METHOD_HOSTKEY, prefs);
    }
}

/* The 1-based line of known_hosts whose entry for name has another key,
 * or 0 if none is found. */
static int changed_line(struct tern_ssh_host *h, const char *name, const char *key,
                        size_t keylen, int typemask)
{
    char path[4200], line[8192];
    known_hosts_path(h, path, sizeof path);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    int no = 0, found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        no++;
        LIBSSH2_KNOWNHOSTS *one = libssh2_knownhost_init(h->sess);
        if (!one)
            break;
        if (add_line(one, line) == 0 &&
            libssh2_knownhost_checkp(one, name, -1, key, keylen, typemask, NULL) ==
                LIBSSH2_KNOWNHOST_CHECK_MISMATCH)
            found = no;
        libssh2_knownhost_free(one);
    }
    fclose(f);
    return found;
}

/* 1 if known_hosts has a key of any type for name: checking the offered key
 * bytes under each other type finds such an entry as a mismatch. */
static int has_other_key(LIBSSH2_KNOWNHOSTS *kh, const char *name, const char *key,
                         size_t keylen, int typemask)
{
    for (int t = 1; t <= 7; t++) {
        int mask = (typemask & ~LIBSSH2_KNOWNHOST_KEY_MASK) |
                   (t << LIBSSH2_KNOWNHOST_KEY_SHIFT);
        if (mask != typemask &&
            libssh2_knownhost_checkp(kh, name, -1, key, keylen, mask, NULL) !=
                LIBSSH2_KNOWNHOST_CHECK_NOTFOUND)
            return 1;
    }
    return 0;
}

/* Appends the host's key to known_hosts (creating ~/.ssh if needed). */
static int add_known(struct tern_ssh_host *h, LIBSSH2_KNOWNHOSTS *kh, const char *name,
                     const char *key, size_t keylen, int typemask, char *why,
                     size_t whylen)
{
    struct libssh2_knownhost *entry;
    char line[8192], path[4200];
    size_t len = 0;
    if (libssh2_knownhost_addc(kh, name, NULL, key, keylen, NULL, 0, typemask, &entry) ||
        libssh2_knownhost_writeline(kh, entry, line, sizeof line - 1, &len,
                                    LIBSSH2_KNOWNHOST_FILE_OPENSSH)) {
        snprintf(why, whylen, "%s", tern_ssh_errmsg(h));
        return TERN_EIO;
    }
    if (len == 0 || line[len - 1] != '\n')
        line[len++] = '\n';
    snprintf(path, sizeof path, "%s/.ssh", h->ssh->home);
    if (mkdir(path, 0700) != 0 && errno != EEXIST) {
        snprintf(why, whylen, "cannot create %.400s: %s", path, strerror(errno));
        return TERN_EIO;
    }
    known_hosts_path(h, path, sizeof path);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    /* One write with O_APPEND: workers adding keys at once do not mix. */
    if (fd < 0 || write(fd, line, len) != (ssize_t)len) {
        snprintf(why, whylen, "cannot append to %.400s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return TERN_EIO;
    }
    close(fd);
    return 0;
}

int tern_ssh_check_hostkey(struct tern_ssh_host *h)
{
    size_t keylen;
    int type;
    const char *key = libssh2_session_hostkey(h->sess, &keylen, &type);
    const struct keytype *kt = NULL;
    for (size_t i = 0; i < NTYPES; i++)
        if (key && types[i].hostkey == type)
            kt = &types[i];
    if (!kt) {
        snprintf(h->err, sizeof h->err, "the server's host key is of a type Tern "
                 "does not check; give the host an ed25519, ECDSA or RSA host key");
        return TERN_EAUTH;
    }
    char name[300], path[4200];
    known_name(h, name, sizeof name);
    known_hosts_path(h, path, sizeof path);
    int mask = LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | kt->known;
    LIBSSH2_KNOWNHOSTS *kh = load_known(h);
    if (!kh) {
        snprintf(h->err, sizeof h->err, "cannot read known hosts: %s", tern_ssh_errmsg(h));
        return TERN_EAUTH;
    }
    int rc = libssh2_knownhost_checkp(kh, name, -1, key, keylen, mask, NULL);
    if (rc == LIBSSH2_KNOWNHOST_CHECK_MATCH) {
        libssh2_knownhost_free(kh);
        return 0;
    }
    if (rc == LIBSSH2_KNOWNHOST_CHECK_MISMATCH) {
        libssh2_knownhost_free(kh);
        int line = changed_line(h, name, key, keylen, mask);
        char at[64] = "";
        if (line)
            snprintf(at, sizeof at, " line %d", line);
        snprintf(h->err, sizeof h->err, "host key CHANGED: the %s key it offers "
                 "differs from the one in %.400s%s; someone may be intercepting the "
                 "connection, or the host was reinstalled (then remove the old key "
                 "with: ssh-keygen -R '%s')", kt->name, path, at, name);
        return TERN_EAUTH;
    }
    if (h->ssh->accept_new && has_other_key(kh, name, key, keylen, mask)) {
        libssh2_knownhost_free(kh);
        snprintf(h->err, sizeof h->err, "host key CHANGED: %.400s has a key of another "
                 "type for '%s' than the %s key it offers; someone may be intercepting "
                 "the connection (--ssh-accept-new-hostkey adds keys only for hosts "
                 "with none)", path, name, kt->name);
        return TERN_EAUTH;
    }
    if (!h->ssh->accept_new) {
        libssh2_knownhost_free(kh);
        snprintf(h->err, sizeof h->err, "host key unknown: %.400s has no %s key for "
                 "'%s'; connect once with ssh to check and accept it, or run mpirun "
                 "with --ssh-accept-new-hostkey", path, kt->name, name);
        return TERN_EAUTH;
    }
    char why[600];
    rc = add_known(h, kh, name, key, keylen, mask, why, sizeof why);
    libssh2_knownhost_free(kh);
    if (rc) {
        snprintf(h->err, sizeof h->err, "host key unknown and it could not be added "
                 "(--ssh-accept-new-hostkey): %s", why);
        return TERN_EAUTH;
    }
    snprintf(h->note, sizeof h->note, "added its %s host key to %.300s as '%s' "
             "(--ssh-accept-new-hostkey)", kt->name, path, name);
    return 0;
}

/* Appends "what (result)" to the list of tried methods. */
static void tried(char *list, size_t len, const char *what, const char *result)
{
    size_t n = strlen(list);
    snprintf(list + n, len - n, "%s%s (%s)", n ? ", " : "", what, result);
}

/* 1 if authenticated with one of the agent's keys. */
static int try_agent(struct tern_ssh_host *h, char *list, size_t len)
{
    if (!getenv("SSH_AUTH_SOCK")) {
        tried(list, len, "ssh-agent", "SSH_AUTH_SOCK not set");
        return 0;
    }
    LIBSSH2_AGENT *agent = libssh2_agent_init(h->sess);
    if (!agent || libssh2_agent_connect(agent) || libssh2_agent_list_identities(agent)) {
        tried(list, len, "ssh-agent", "cannot talk to it");
        if (agent)
            libssh2_agent_free(agent);
        return 0;
    }
    struct libssh2_agent_publickey *id = NULL, *prev = NULL;
    int nkeys = 0, ok = 0;
    while (!ok && libssh2_agent_get_identity(agent, &id, prev) == 0) {
        nkeys++;
        ok = libssh2_agent_userauth(agent, h->user, id) == 0;
        prev = id;
    }
    libssh2_agent_disconnect(agent);
    libssh2_agent_free(agent);
    if (!ok) {
        char r[64];
        snprintf(r, sizeof r, nkeys ? "%d key%s, none accepted" : "no keys loaded",
                 nkeys, nkeys == 1 ? "" : "s");
        tried(list, len, "ssh-agent", r);
    }
    return ok;
}

/* 1 if authenticated with the private key in path. */
static int try_file(struct tern_ssh_host *h, const char *path, int named,
                    char *list, size_t len)
{
    if (access(path, F_OK) != 0) {
        if (named)
            tried(list, len, path, "no such file");
        return 0;
    }
    int rc = libssh2_userauth_publickey_fromfile(h->sess, h->user, NULL, path, NULL);
    if (rc == 0)
        return 1;
    if (rc == LIBSSH2_ERROR_FILE)
        tried(list, len, path, access(path, R_OK) ? "unreadable"
              : "cannot load it; a passphrase-protected key must be loaded into ssh-agent");
    else if (rc == LIBSSH2_ERROR_TIMEOUT)
        tried(list, len, path, "timed out");
    else
        tried(list, len, path, "rejected by the server");
    return 0;
}

int tern_ssh_auth(struct tern_ssh_host *h)
{
    char list[900] = "";
    const char *methods = libssh2_userauth_list(h->sess, h->user,
                                                (unsigned)strlen(h->user));
    if (!methods && libssh2_userauth_authenticated(h->sess))
        return 0;
    if (methods && !strstr(methods, "publickey")) {
        snprintf(h->err, sizeof h->err, "ssh authentication as '%s' impossible: the "
                 "server offers only %s, and Tern needs public-key authentication; "
                 "enable PubkeyAuthentication there", h->user, methods);
        return TERN_EAUTH;
    }
    if (try_agent(h, list, sizeof list))
        return 0;
    if (h->ssh->key) {
        if (try_file(h, h->ssh->key, 1, list, sizeof list))
            return 0;
    } else {
        static const char *names[] = { "id_ed25519", "id_ecdsa", "id_rsa" };
        int any = 0;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            char path[4200];
            snprintf(path, sizeof path, "%s/.ssh/%s", h->ssh->home, names[i]);
            any |= access(path, F_OK) == 0;
            if (try_file(h, path, 0, list, sizeof list))
                return 0;
        }
        if (!any)
            tried(list, sizeof list, "key files", "none of ~/.ssh/id_ed25519, "
                  "id_ecdsa, id_rsa exists");
    }
    snprintf(h->err, sizeof h->err, "ssh authentication as '%.60s' failed; tried "
             "%.700s; put your public key into ~%.60s/.ssh/authorized_keys there, "
             "load a key into ssh-agent, or give one with -i FILE", h->user, list,
             h->user);
    return TERN_EAUTH;
}
