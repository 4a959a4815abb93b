/*
 * The ssh launcher's setup: from the plan's remote hosts to a tern-hostd
 * on each that has checked the job and answered READY (see launcher/ssh.h
 * for the whole lifecycle).
 *
 * Per host, in a worker thread:
 *   connect   getaddrinfo, then a nonblocking connect to each address,
 *             bounded by connect_ms and tried twice, so a host that does
 *             not answer is reported after 2 x 5 s; "refused" is final.
 *   session   libssh2 handshake with the preferred host key types, the host
 *             key check and authentication (ssh_auth.c).
 *   hostd     a session channel runs "exec '<dir of mpirun>/tern-hostd'"
 *             (or TERN_HOSTD), so the remote PATH does not matter; the JOB
 *             frame goes to its stdin; the worker waits for READY or ERROR.
 * The main thread waits on an eventfd the workers count up and on the
 * signalfd; when every host is done it prints one line per failing host,
 * in the order of the plan.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/hostd_proto.h"
#include "launcher/ssh.h"
#include "tern/clock.h"
#include "tern/err.h"
#include "tern/log.h"

/* ---- Settings ---- */

static void read_settings(struct tern_ssh *s, const struct tern_cli *cli)
{
    s->port = (int)tern_env_long("TERN_SSH_PORT", 22,
        "ssh port of hosts whose hostfile entry gives no port=");
    const char *key = tern_env_str("TERN_SSH_KEY", NULL,
        "Private key file for ssh (as mpirun -i); default: ssh-agent, then "
        "~/.ssh/id_ed25519, id_ecdsa, id_rsa");
    s->key = cli->ssh_key ? cli->ssh_key : key;
    s->accept_new = cli->ssh_accept_new;
    s->connect_ms = (int)tern_env_long("TERN_SSH_CONNECT_TIMEOUT_MS", 5000,
        "Milliseconds one ssh connection attempt may take (there is one retry)");
    s->op_ms = (int)tern_env_long("TERN_SSH_OP_TIMEOUT_MS", 10000,
        "Milliseconds one ssh step (handshake, authentication, starting "
        "tern-hostd) may take");
    s->keepalive_ms = (int)tern_env_long("TERN_HOSTD_KEEPALIVE_MS", 2000,
        "Milliseconds between keepalive messages of mpirun and tern-hostd");
    s->timeout_ms = (int)tern_env_long("TERN_HOSTD_TIMEOUT_MS", 10000,
        "Milliseconds of silence after which mpirun and tern-hostd give each "
        "other up (host or network down)");
    s->parallel = (int)tern_env_long("TERN_SSH_PARALLEL", 8,
        "How many hosts mpirun connects to at the same time");
    if (s->port < 1 || s->port > 65535)
        s->port = 22;
    if (s->parallel < 1)
        s->parallel = 1;
    if (s->keepalive_ms < 100)
        s->keepalive_ms = 100;
    if (s->timeout_ms < 2 * s->keepalive_ms)
        s->timeout_ms = 2 * s->keepalive_ms;
    const char *hostd = tern_env_str("TERN_HOSTD", NULL,
        "Absolute path of tern-hostd on the remote hosts (default: beside mpirun)");
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    snprintf(s->hostd, sizeof s->hostd, "%.4000s%s", hostd ? hostd : self,
             hostd ? "" : "/tern-hostd");
    struct passwd *pw = getpwuid(getuid());
    const char *home = getenv("HOME"), *user = getenv("USER");
    snprintf(s->home, sizeof s->home, "%s", home ? home : pw ? pw->pw_dir : "/");
    snprintf(s->user, sizeof s->user, "%s", user ? user : pw ? pw->pw_name : "root");
}

/* ---- The JOB message of one host ---- */

static int encode_job(struct tern_job *job, struct tern_ssh_host *h, int stdin_fwd)
{
    const struct tern_cli *cli = job->cli;
    const struct tern_host *ph = &job->plan.hl.hosts[h->index];
    struct tern_hostd_job j = { 0 };
    char cwd[4096], wdir[8200];
    if (!getcwd(cwd, sizeof cwd))
        snprintf(cwd, sizeof cwd, "/");
    /* A relative --wdir means the same directory as for local ranks. */
    if (cli->wdir && cli->wdir[0] != '/')
        snprintf(wdir, sizeof wdir, "%s/%s", cwd, cli->wdir);
    else
        snprintf(wdir, sizeof wdir, "%s", cli->wdir ? cli->wdir : cwd);
    j.version = TERN_HOSTD_VERSION;
    j.host = (char *)h->label;
    j.wdir = wdir;
    j.wdir_explicit = cli->wdir != NULL;
    j.grace_ms = (int)job->grace_ms;
    j.keepalive_ms = h->ssh->keepalive_ms;
    j.timeout_ms = h->ssh->timeout_ms;
    j.stdin_rank = stdin_fwd && job->plan.host_of[0] == h->index ? 0 : -1;
    j.local_size = ph->nranks;
    j.argc = cli->argc;
    j.argv = cli->argv;
    j.nranks = ph->nranks;
    j.ranks = calloc((size_t)ph->nranks, sizeof *j.ranks);
    int rc = j.ranks ? 0 : TERN_ENOMEM;
    for (int i = 0; i < ph->nranks && !rc; i++) {
        j.ranks[i].rank = ph->ranks[i];
        j.ranks[i].local_rank = i;
        j.ranks[i].env = tern_rank_env(job, ph->ranks[i]);
        if (!j.ranks[i].env)
            rc = TERN_ENOMEM;
        while (!rc && j.ranks[i].env[j.ranks[i].n_env])
            j.ranks[i].n_env++;
    }
    if (!rc)
        rc = tern_hostd_job_encode(&j, &h->job_msg, &h->job_len);
    for (int i = 0; j.ranks && i < ph->nranks; i++)
        tern_rank_env_free(j.ranks[i].env);
    free(j.ranks);
    return rc;
}

/* ---- ssh session and tern-hostd ---- */

static int open_session(struct tern_ssh_host *h)
{
    h->sess = libssh2_session_init();
    if (!h->sess) {
        snprintf(h->err, sizeof h->err, "cannot create an ssh session (out of memory)");
        return TERN_ENOMEM;
    }
    libssh2_session_set_blocking(h->sess, 1);
    libssh2_session_set_timeout(h->sess, h->ssh->op_ms);
    tern_ssh_hostkey_prefs(h);
    int rc = libssh2_session_handshake(h->sess, h->sock);
    if (rc) {
        snprintf(h->err, sizeof h->err, "ssh handshake failed: %s; is port %d of "
                 "this host an ssh server?", rc == LIBSSH2_ERROR_TIMEOUT
                 ? "no answer in time" : tern_ssh_errmsg(h), h->port);
        return TERN_EIO;
    }
    if (tern_ssh_check_hostkey(h) || tern_ssh_auth(h))
        return TERN_EAUTH;
    return 0;
}

/* Reads exactly len bytes from the channel's stdout; TERN_EPEER on EOF. */
static int chan_read(struct tern_ssh_host *h, void *buf, size_t len)
{
    unsigned char *p = buf;
    while (len > 0) {
        ssize_t n = libssh2_channel_read(h->ch, (char *)p, len);
        if (n == 0)
            return TERN_EPEER;
        if (n < 0)
            return n == LIBSSH2_ERROR_TIMEOUT ? TERN_ETIMEDOUT : TERN_EIO;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int chan_write(struct tern_ssh_host *h, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = libssh2_channel_write(h->ch, p, len);
        if (n < 0)
            return TERN_EIO;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* hostd ended before answering: say why from its status and stderr. */
static void hostd_died(struct tern_ssh_host *h)
{
    char text[600] = "";
    ssize_t n = libssh2_channel_read_stderr(h->ch, text, sizeof text - 1);
    text[n > 0 ? n : 0] = '\0';
    text[strcspn(text, "\n")] = '\0';
    libssh2_channel_close(h->ch);
    libssh2_channel_wait_closed(h->ch);
    int status = libssh2_channel_get_exit_status(h->ch);
    if (status == 127 || status == 126)
        snprintf(h->err, sizeof h->err, "cannot run tern-hostd at %.400s there (%.300s); "
                 "install Tern at the same path on every host, or set TERN_HOSTD to "
                 "its path there", h->ssh->hostd, *text ? text : "not found");
    else
        snprintf(h->err, sizeof h->err, "tern-hostd (%.400s) exited with status %d "
                 "before answering%s%.300s", h->ssh->hostd, status, *text ? ": " : "", text);
}

/* Reads up to hostd's magic; what comes before it was printed by the
 * login shell's startup files. */
static int find_magic(struct tern_ssh_host *h)
{
    char junk[200];
    size_t seen = 0, kept = 0;
    for (size_t match = 0; match < TERN_HOSTD_MAGIC_LEN; ) {
        char c;
        int rc = chan_read(h, &c, 1);
        if (rc)
            return rc;
        if (c == TERN_HOSTD_MAGIC[match]) {
            match++;
            continue;
        }
        /* The magic's bytes are distinct, so a mismatch restarts it. */
        for (size_t i = 0; i < match && kept < sizeof junk - 1; i++)
            junk[kept++] = TERN_HOSTD_MAGIC[i];
        seen += match + 1;
        match = c == TERN_HOSTD_MAGIC[0];
        if (!match && kept < sizeof junk - 1)
            junk[kept++] = c == '\n' ? ' ' : c;
        if (seen > 65536)
            break;
    }
    if (seen == 0)
        return 0;
    junk[kept] = '\0';
    snprintf(h->err, sizeof h->err, "the login shell there printed \"%.100s\" before "
             "tern-hostd started; ssh sessions must print nothing to stdout, so make "
             "its startup files (~/.bashrc) quiet when not interactive", junk);
    return TERN_EPROTO;
}

static int start_hostd(struct tern_ssh_host *h)
{
    char cmd[8400] = "exec '";
    size_t n = strlen(cmd);
    for (const char *p = h->ssh->hostd; *p && n < sizeof cmd - 8; p++) {
        if (*p == '\'') {
            memcpy(cmd + n, "'\\''", 4);
            n += 4;
        } else {
            cmd[n++] = *p;
        }
    }
    memcpy(cmd + n, "'", 2);
    h->ch = libssh2_channel_open_session(h->sess);
    if (!h->ch || libssh2_channel_exec(h->ch, cmd)) {
        snprintf(h->err, sizeof h->err, "the ssh server refused to run tern-hostd: "
                 "%s; check MaxSessions and ForceCommand in its sshd_config",
                 tern_ssh_errmsg(h));
        return TERN_EIO;
    }
    unsigned char hdr[TERN_WIRE_HEADER];
    tern_wire_put32(hdr, (uint32_t)h->job_len);
    tern_wire_put32(hdr + 4, TERN_HOSTD_JOB);
    if (chan_write(h, hdr, sizeof hdr) || chan_write(h, h->job_msg, h->job_len)) {
        snprintf(h->err, sizeof h->err, "cannot send the job to tern-hostd: %s",
                 tern_ssh_errmsg(h));
        return TERN_EIO;
    }
    char body[1025];
    int rc = find_magic(h);
    if (rc == TERN_EPROTO)
        return rc;
    if (!rc)
        rc = chan_read(h, hdr, sizeof hdr);
    uint32_t len = rc ? 0 : tern_wire_get32(hdr), type = tern_wire_get32(hdr + 4);
    if (!rc && len >= sizeof body)
        rc = TERN_EPROTO;
    if (!rc)
        rc = chan_read(h, body, len);
    if (rc == TERN_EPEER) {
        hostd_died(h);
    } else if (rc == TERN_EPROTO) {
        snprintf(h->err, sizeof h->err, "garbled answer from tern-hostd (%.400s); "
                 "install the same Tern version on every host", h->ssh->hostd);
    } else if (rc) {
        snprintf(h->err, sizeof h->err, "no answer from tern-hostd (%.400s) within %d s",
                 h->ssh->hostd, h->ssh->op_ms / 1000);
    } else if (type == TERN_HOSTD_ERROR) {
        body[len] = '\0';
        snprintf(h->err, sizeof h->err, "%.1000s", body);
        rc = TERN_EINVAL;
    } else if (type != TERN_HOSTD_READY) {
        snprintf(h->err, sizeof h->err, "tern-hostd (%.400s) answered with message %u; "
                 "install the same Tern version on every host", h->ssh->hostd, type);
        rc = TERN_EPROTO;
    }
    return rc;
}

static void setup_host(struct tern_ssh_host *h)
{
    long long t0 = tern_clock_ms();
    if (tern_ssh_connect(h))
        return;
    long long t1 = tern_clock_ms();
    if (open_session(h))
        return;
    long long t2 = tern_clock_ms();
    if (start_hostd(h))
        return;
    TERN_LOG(2, "host %s: connected in %lld ms, ssh (%s, %s) in %lld ms, tern-hostd "
             "ready in %lld ms", h->where, t1 - t0,
             libssh2_session_methods(h->sess, LIBSSH2_METHOD_KEX),
             libssh2_session_methods(h->sess, LIBSSH2_METHOD_HOSTKEY), t2 - t1,
             tern_clock_ms() - t2);
    h->ok = 1;
}

static void *worker(void *arg)
{
    struct tern_ssh *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->lock);
        int i = s->next++;
        pthread_mutex_unlock(&s->lock);
        if (i >= s->n)
            return NULL;
        struct tern_ssh_host *h = &s->hosts[i];
        if (!tern_ssh_cancelled(s))
            setup_host(h);
        if (tern_ssh_cancelled(s) && !h->ok && !h->err[0])
            snprintf(h->err, sizeof h->err, "setup cancelled");
        uint64_t one = 1;
        if (write(s->done_fd, &one, sizeof one) < 0)
            TERN_LOG(1, "cannot signal the end of a host's setup");
    }
}

/* Stops the workers: they see the flag, and a blocked libssh2 call fails
 * once its socket is shut down. */
static void cancel_workers(struct tern_ssh *s)
{
    __atomic_store_n(&s->cancel, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < s->n; i++) {
        int fd = __atomic_load_n(&s->hosts[i].sock, __ATOMIC_ACQUIRE);
        if (fd >= 0)
            shutdown(fd, SHUT_RDWR);
    }
}

/* Runs what the event loop holds so far (the store, which hostd's watch
 * connection reaches during the preflight), but for the signalfd, which
 * wait_workers() reads itself. */
static void serve_loop(struct tern_job *job)
{
    struct epoll_event evs[64];
    int n = epoll_wait(job->epfd, evs, 64, 0);
    for (int i = 0; i < n; i++) {
        struct tern_ev *ev = evs[i].data.ptr;
        if (ev != &job->sig_ev)
            ev->cb(job, ev, evs[i].events);
    }
}

/* Waits for the workers while serving the store; a stop signal cancels
 * them. Returns the signal number that cancelled, or 0. */
static int wait_workers(struct tern_job *job, struct tern_ssh *s)
{
    int done = 0, sig = 0;
    while (done < s->n) {
        long long now = tern_clock_ms(), next = tern_kvs_deadline(job, now);
        struct pollfd p[3] = { { .fd = s->done_fd, .events = POLLIN },
                               { .fd = job->sig_ev.fd, .events = POLLIN },
                               { .fd = job->epfd, .events = POLLIN } };
        if (poll(p, 3, next ? (int)(next > now ? next - now : 0) : -1) < 0)
            continue;
        uint64_t v;
        if ((p[0].revents & POLLIN) && read(s->done_fd, &v, sizeof v) == sizeof v)
            done += (int)v;
        struct signalfd_siginfo si;
        while ((p[1].revents & POLLIN) &&
               read(job->sig_ev.fd, &si, sizeof si) == (ssize_t)sizeof si) {
            if (si.ssi_signo == SIGCHLD || sig)
                continue;
            sig = (int)si.ssi_signo;
            cancel_workers(s);
        }
        if (p[2].revents & POLLIN)
            serve_loop(job);
    }
    return sig;
}

/* The plan's host gives the name, the port and the user, if the hostfile
 * names one ("user@host"); else the user is mpirun's. */
static void init_host(struct tern_ssh *s, struct tern_ssh_host *h, int index)
{
    const struct tern_host *ph = &s->job->plan.hl.hosts[index];
    h->ssh = s;
    h->job = s->job;
    h->index = index;
    h->label = ph->name;
    h->sock = -1;
    h->port = ph->ssh_port ? ph->ssh_port : s->port;
    snprintf(h->user, sizeof h->user, "%s", ph->ssh_user ? ph->ssh_user : s->user);
    snprintf(h->host, sizeof h->host, "%s", ph->name);
    snprintf(h->where, sizeof h->where, "%s (port %d)", h->label, h->port);
}

static int run_workers(struct tern_job *job, struct tern_ssh *s)
{
    int nt = s->n < s->parallel ? s->n : s->parallel;
    pthread_t *t = calloc((size_t)nt, sizeof *t);
    s->done_fd = eventfd(0, EFD_CLOEXEC);
    if (!t || s->done_fd < 0 || pthread_mutex_init(&s->lock, NULL)) {
        free(t);
        tern_mpirun_msg("cannot prepare the ssh connections: %s", strerror(errno));
        return TERN_EIO;
    }
    int started = 0;
    for (int i = 0; i < nt; i++)
        started += pthread_create(&t[started], NULL, worker, s) == 0;
    if (started == 0) {
        free(t);
        tern_mpirun_msg("cannot start a thread for the ssh connections: %s; check "
                        "ulimit -u", strerror(errno));
        return TERN_EIO;
    }
    int sig = wait_workers(job, s);
    for (int i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    free(t);
    pthread_mutex_destroy(&s->lock);
    if (sig) {
        job->exit_code = sig == SIGINT ? 130 : 128 + sig;
        tern_mpirun_msg("received signal %d (%s) while connecting to the hosts; "
                        "no rank was started", sig, strsignal(sig));
        return TERN_EIO;
    }
    return 0;
}

/* The ranks of this host pass the same preflight as a remote host's: the
 * working directory exists and the program can be executed from it. */
static int local_preflight(struct tern_job *job, char *err, size_t errlen)
{
    const struct tern_plan *p = &job->plan;
    int first = -1;
    for (int r = 0; r < p->np && first < 0; r++)
        if (p->hl.hosts[p->host_of[r]].local)
            first = r;
    if (first < 0)
        return 0;
    const char *wdir = job->cli->wdir;
    struct stat st;
    if (wdir && (stat(wdir, &st) != 0 || !S_ISDIR(st.st_mode) || access(wdir, X_OK))) {
        snprintf(err, errlen, "the working directory '%.400s' (--wdir) cannot be "
                 "entered: %s; create it or give --wdir a directory that exists on "
                 "every host", wdir, errno ? strerror(errno) : "not a directory");
        return TERN_EINVAL;
    }
    char **env = tern_rank_env(job, first);
    const char *path = getenv("PATH");
    for (char **e = env; e && *e; e++)
        if (strncmp(*e, "PATH=", 5) == 0)
            path = *e + 5;
    char dir[8200], cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        snprintf(cwd, sizeof cwd, ".");
    if (wdir && wdir[0] == '/')
        snprintf(dir, sizeof dir, "%s", wdir);
    else
        snprintf(dir, sizeof dir, "%s%s%s", cwd, wdir ? "/" : "", wdir ? wdir : "");
    int rc = tern_preflight_program(dir, job->cli->argv[0],
                                    path ? path : "/usr/local/bin:/usr/bin:/bin",
                                    err, errlen);
    tern_rank_env_free(env);
    return rc;
}

/* Prints the notices and one line per failing host; TERN_EIO if any. */
static int report(struct tern_ssh *s, const char *local_err)
{
    int bad = 0;
    if (local_err[0]) {
        const struct tern_plan *p = &s->job->plan;
        for (int i = 0; i < p->hl.n; i++)
            if (p->hl.hosts[i].local)
                tern_mpirun_msg("host %s (this host): %s", p->hl.hosts[i].name, local_err);
        bad++;
    }
    for (int i = 0; i < s->n; i++) {
        struct tern_ssh_host *h = &s->hosts[i];
        if (h->note[0])
            tern_mpirun_msg("host %s: %s", h->where, h->note);
        if (!h->ok) {
            tern_mpirun_msg("host %s: %s", h->where, h->err[0] ? h->err : "setup failed");
            bad++;
        }
    }
    if (bad)
        tern_mpirun_msg("%d of %d hosts failed the preflight; no rank was started",
                        bad, s->job->plan.hl.n);
    return bad ? TERN_EIO : 0;
}

int tern_ssh_start(struct tern_job *job)
{
    const struct tern_plan *p = &job->plan;
    if (!p->remote)
        return 0;
    struct tern_ssh *s = calloc(1, sizeof *s);
    if (!s)
        return TERN_ENOMEM;
    job->ssh = s;
    s->job = job;
    s->done_fd = -1;
    read_settings(s, job->cli);
    s->hosts = calloc((size_t)p->hl.n, sizeof *s->hosts);
    if (!s->hosts || libssh2_init(0) != 0) {
        tern_mpirun_msg("cannot initialize libssh2 (out of memory?)");
        return TERN_EIO;
    }
    int stdin_fwd = !p->hl.hosts[p->host_of[0]].local && tern_iof_stdin_inherit() >= 0;
    for (int i = 0; i < p->hl.n; i++) {
        if (p->hl.hosts[i].local || p->hl.hosts[i].nranks == 0)
            continue;
        struct tern_ssh_host *h = &s->hosts[s->n++];
        init_host(s, h, i);
        if (encode_job(job, h, stdin_fwd)) {
            tern_mpirun_msg("out of memory describing the job for host %s", h->label);
            return TERN_ENOMEM;
        }
        if (p->host_of[0] == i && stdin_fwd)
            s->stdin_host = h;
    }
    TERN_LOG(1, "connecting to %d remote host(s), %d at a time; tern-hostd is %s",
             s->n, s->parallel, s->hostd);
    char local_err[1024] = "";
    errno = 0;
    local_preflight(job, local_err, sizeof local_err);
    int rc = run_workers(job, s);
    return rc ? rc : report(s, local_err);
}
