/*
 * mpirun's command line, parsed into a struct tern_cli.
 *
 * Flags follow Open MPI's spelling (DESIGN.md section 7). Options come
 * first; the first word that is not an option (or the word after "--") is
 * the program, and everything after it belongs to the program. Long options
 * accept "--opt value" and "--opt=value". Parsing is pure: no I/O, no exit,
 * errors come back as one line in a caller's buffer, so it is unit-tested.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/bind.h"
#include "launcher/launcher.h"
#include "tern/err.h"

enum opt_id {
    OPT_NP, OPT_TAG, OPT_TIMEOUT, OPT_ENV, OPT_WDIR, OPT_OVERSUB,
    OPT_HOST, OPT_HOSTFILE, OPT_VERBOSE, OPT_HELP, OPT_VERSION,
    OPT_BIND_TO, OPT_REPORT_BIND, OPT_MAP_BY, OPT_SSH_KEY, OPT_SSH_ACCEPT,
    OPT_IFACE, OPT_PORT_RANGE, OPT_REPORT_TP
};

struct opt {
    const char *name;
    enum opt_id id;
    int has_arg;
};

static const struct opt opts[] = {
    { "-np", OPT_NP, 1 }, { "-n", OPT_NP, 1 }, { "--np", OPT_NP, 1 },
    { "--n", OPT_NP, 1 },
    { "--tag-output", OPT_TAG, 0 }, { "-tag-output", OPT_TAG, 0 },
    { "--timeout", OPT_TIMEOUT, 1 },
    { "-x", OPT_ENV, 1 },
    { "--wdir", OPT_WDIR, 1 }, { "-wdir", OPT_WDIR, 1 }, { "-wd", OPT_WDIR, 1 },
    { "--oversubscribe", OPT_OVERSUB, 0 }, { "-oversubscribe", OPT_OVERSUB, 0 },
    { "-H", OPT_HOST, 1 }, { "--host", OPT_HOST, 1 }, { "-host", OPT_HOST, 1 },
    { "--hostfile", OPT_HOSTFILE, 1 }, { "-hostfile", OPT_HOSTFILE, 1 },
    { "--machinefile", OPT_HOSTFILE, 1 }, { "-machinefile", OPT_HOSTFILE, 1 },
    { "-f", OPT_HOSTFILE, 1 },
    { "-v", OPT_VERBOSE, 0 }, { "--verbose", OPT_VERBOSE, 0 },
    { "-h", OPT_HELP, 0 }, { "--help", OPT_HELP, 0 },
    { "-V", OPT_VERSION, 0 }, { "--version", OPT_VERSION, 0 },
    { "--map-by", OPT_MAP_BY, 1 }, { "-map-by", OPT_MAP_BY, 1 },
    { "--bind-to", OPT_BIND_TO, 1 }, { "-bind-to", OPT_BIND_TO, 1 },
    { "--report-bindings", OPT_REPORT_BIND, 0 },
    { "-report-bindings", OPT_REPORT_BIND, 0 },
    { "-i", OPT_SSH_KEY, 1 },
    { "--ssh-accept-new-hostkey", OPT_SSH_ACCEPT, 0 },
    { "--iface", OPT_IFACE, 1 }, { "--port-range", OPT_PORT_RANGE, 1 },
    { "--report-transports", OPT_REPORT_TP, 0 },
};

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return TERN_EINVAL;
}

/* Finds the option for word; *inline_arg gets the part after '=' if any. */
static const struct opt *find_opt(const char *word, const char **inline_arg)
{
    *inline_arg = NULL;
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        size_t n = strlen(opts[i].name);
        if (strncmp(word, opts[i].name, n) != 0)
            continue;
        if (word[n] == '\0')
            return &opts[i];
        if (word[n] == '=' && opts[i].has_arg && word[1] == '-') {
            *inline_arg = word + n + 1;
            return &opts[i];
        }
    }
    return NULL;
}

/* Parses a positive decimal int no larger than max. */
static int parse_count(const char *s, int max, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v <= 0 || v > max)
        return -1;
    *out = (int)v;
    return 0;
}

static int push(char ***list, int *n, char *item)
{
    char **l = realloc(*list, (size_t)(*n + 1) * sizeof *l);
    if (!l)
        return TERN_ENOMEM;
    l[(*n)++] = item;
    *list = l;
    return 0;
}

/* Keeps a -H value "a,b:2" whole; plan.c parses it (hostfile.c), so its
 * errors can quote the value as the user wrote it. */
static int push_hosts(struct tern_cli *cli, const char *val)
{
    char *h = strdup(val);
    if (!h || push(&cli->hosts, &cli->n_hosts, h)) {
        free(h);
        return TERN_ENOMEM;
    }
    return 0;
}

static int apply(struct tern_cli *cli, const struct opt *o, const char *val,
                 char *err, size_t errlen)
{
    switch (o->id) {
    case OPT_NP:
        if (parse_count(val, 1 << 20, &cli->np))
            return fail(err, errlen, "%s '%s' is not a positive number of ranks; "
                        "use e.g. -np 4", o->name, val);
        return 0;
    case OPT_TIMEOUT:
        if (parse_count(val, 1 << 30, &cli->timeout))
            return fail(err, errlen, "--timeout '%s' is not a positive number of "
                        "seconds; use e.g. --timeout 60", val);
        return 0;
    case OPT_ENV:
        if (!*val || *val == '=')
            return fail(err, errlen, "-x '%s' names no variable; use -x VAR or "
                        "-x VAR=value", val);
        return push(&cli->env, &cli->n_env, (char *)val);
    case OPT_WDIR:
        cli->wdir = val;
        return 0;
    case OPT_HOST:
        return push_hosts(cli, val);
    case OPT_HOSTFILE:
        cli->hostfile = val;
        return 0;
    case OPT_BIND_TO: {
        enum tern_bind_policy p;
        if (tern_bind_policy_parse(val, &p))
            return fail(err, errlen, "--bind-to '%s' is not a binding policy; use "
                        TERN_BIND_NAMES, val);
        cli->bind_to = val;
        return 0;
    }
    case OPT_REPORT_BIND: cli->report_bindings = 1; return 0;
    case OPT_MAP_BY:
        if (strcmp(val, "slot") && strcmp(val, "node"))
            return fail(err, errlen, "--map-by '%s' is not supported; use --map-by "
                        "slot (fill each host's slots in turn) or --map-by node "
                        "(one rank per host in turn)", val);
        cli->map_by_node = val[0] == 'n';
        return 0;
    case OPT_SSH_KEY:
        cli->ssh_key = val;
        return 0;
    case OPT_SSH_ACCEPT: cli->ssh_accept_new = 1; return 0;
    case OPT_IFACE: cli->iface = val; return 0;
    case OPT_PORT_RANGE: cli->port_range = val; return 0;
    case OPT_REPORT_TP: cli->report_transports = 1; return 0;
    case OPT_TAG: cli->tag_output = 1; return 0;
    case OPT_OVERSUB: cli->oversubscribe = 1; return 0;
    case OPT_VERBOSE: cli->verbose++; return 0;
    case OPT_HELP: cli->help = 1; return 0;
    case OPT_VERSION: cli->version = 1; return 0;
    }
    return TERN_EINTERN;
}

int tern_cli_parse(int argc, char **argv, struct tern_cli *cli,
                   char *err, size_t errlen)
{
    memset(cli, 0, sizeof *cli);
    int i = 1;
    while (i < argc) {
        const char *w = argv[i];
        if (strcmp(w, "--") == 0) {
            i++;
            break;
        }
        if (w[0] != '-' || w[1] == '\0')
            break;
        const char *val;
        const struct opt *o = find_opt(w, &val);
        if (!o)
            return fail(err, errlen, "unknown option '%s'; see mpirun --help", w);
        i++;
        if (o->has_arg && !val) {
            if (i >= argc)
                return fail(err, errlen, "option %s needs a value; see mpirun --help", w);
            val = argv[i++];
        }
        int rc = apply(cli, o, val, err, errlen);
        if (rc)
            return rc == TERN_ENOMEM ? fail(err, errlen, "out of memory") : rc;
    }
    cli->argv = argv + i;
    cli->argc = argc - i;
    if (cli->argc == 0 && !cli->help && !cli->version)
        return fail(err, errlen, "no program given; usage: mpirun [options] "
                    "program [args], see mpirun --help");
    return 0;
}

void tern_cli_free(struct tern_cli *cli)
{
    free(cli->env);
    for (int i = 0; i < cli->n_hosts; i++)
        free(cli->hosts[i]);
    free(cli->hosts);
    memset(cli, 0, sizeof *cli);
}

void tern_cli_usage(FILE *out)
{
    fputs(
"Usage: mpirun [options] program [args...]    (mpiexec is the same program)\n"
"\n"
"  -np N, -n N          start N ranks (default: the slots given by -H or\n"
"                       --hostfile, else 1)\n"
"  -H, --host LIST      hosts, comma-separated, each host, host:N or [IPv6]:N\n"
"  --hostfile FILE      hosts, one per line: host, host:N or\n"
"                       host slots=N [max_slots=M] [port=P]; '#' comments;\n"
"                       user@host logs in as that user (other hosts are\n"
"                       reached with ssh: see below)\n"
"  --map-by slot|node   fill each host's slots in turn (slot, the default) or\n"
"                       place one rank per host in turn (node)\n"
"  -x VAR, -x VAR=val   pass VAR (from mpirun's environment, or with this value)\n"
"  --wdir DIR           working directory of the ranks\n"
"  --tag-output         prefix every output line with \"[rank] \"\n"
"  --timeout S          kill the job after S seconds; mpirun then exits 124\n"
"  --oversubscribe      allow more ranks than slots (max_slots still holds),\n"
"                       and more than cores without a notice\n"
"  --bind-to WHAT       bind each rank to a core, socket or numa node, or none\n"
"                       (default: core when a host's ranks fit its cores, else\n"
"                       none; always inside the CPU set mpirun inherited)\n"
"  --report-bindings    print each rank's binding with its OS CPU numbers\n"
"  -i FILE              private key for ssh (default: ssh-agent, then\n"
"                       ~/.ssh/id_ed25519, id_ecdsa, id_rsa)\n"
"  --ssh-accept-new-hostkey  add the host key of a host that is not yet in\n"
"                       ~/.ssh/known_hosts (a changed key is always refused)\n"
"  --iface NAME|CIDR    the network interface for every Tern connection\n"
"                       (default: the one that reaches the other hosts)\n"
"  --port-range LO-HI   ports every Tern listener may use\n"
"  --report-transports  each rank prints the transport it uses per peer\n"
"  -v, --verbose        report what mpirun does (repeat for more)\n"
"  -h, --help           this help;  -V, --version  the version\n"
"\n"
"Remote hosts: mpirun logs in with ssh (libssh2) as the user@ of the\n"
"hostfile, else $USER, on port= of the hostfile, else TERN_SSH_PORT, else\n"
"22, and runs tern-hostd by the same absolute path as its own (TERN_HOSTD\n"
"overrides), so Tern must be installed at the same path on every host, as\n"
"must the program. mpirun's stdin goes to rank 0 wherever it runs; the\n"
"other ranks read /dev/null.\n"
"\n"
"Exit status: 0 when every rank called MPI_Finalize (or never used MPI) and\n"
"exited 0; otherwise the first failing rank's exit code, 128+N for a rank\n"
"killed by signal N, the MPI_Abort code, 124 on --timeout, 130 on Ctrl-C,\n"
"128+N when mpirun gets signal N, 1 for a rank exiting without MPI_Finalize.\n"
"\n"
"Environment: TERN_VERBOSE=N as -v; TERN_KILL_GRACE_MS (default 1000) is how\n"
"long ranks get between SIGTERM and SIGKILL when a job ends abnormally.\n"
"TERN_BIND_TO=WHAT and TERN_REPORT_BINDINGS=1 act as --bind-to and\n"
"--report-bindings; TERN_TCP_IF, TERN_PORT_RANGE and TERN_REPORT_TRANSPORTS=1\n"
"as --iface, --port-range and --report-transports. TERN_TRANSPORTS=self,tcp\n"
"makes ranks on one host talk over TCP.\n",
        out);
}
