/*
 * Host lists from -H and --hostfile.
 *
 * Accepted forms, per entry or hostfile line: "host", "host:N" (MPICH) and
 * "host slots=N" (Open MPI); '#' starts a comment. Launching on other hosts
 * is not implemented yet, so every host must name this machine (localhost,
 * a loopback address, or our hostname, short or full); anything else stops
 * mpirun with one line saying so. The slot total becomes the default -np.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/launcher.h"
#include "tern/err.h"

/* Parses "N" as a slot count; -1 if invalid. */
static int parse_slots(const char *s, size_t n)
{
    if (n == 0 || n > 7)
        return -1;
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v > 0 ? v : -1;
}

int tern_hosts_parse_line(const char *line, char **name, int *slots)
{
    const char *p = line;
    while (isspace((unsigned char)*p))
        p++;
    size_t n = strcspn(p, " \t\r\n#:");
    if (n == 0)
        return (*p == '\0' || *p == '#' || *p == '\r' || *p == '\n') ? 0 : TERN_EINVAL;
    const char *host = p;
    p += n;
    *slots = 0;
    if (*p == ':') {
        size_t m = strcspn(p + 1, " \t\r\n#");
        if ((*slots = parse_slots(p + 1, m)) < 0)
            return TERN_EINVAL;
        p += 1 + m;
    }
    while (isspace((unsigned char)*p))
        p++;
    if (strncmp(p, "slots=", 6) == 0 && *slots == 0) {
        size_t m = strcspn(p + 6, " \t\r\n#");
        if ((*slots = parse_slots(p + 6, m)) < 0)
            return TERN_EINVAL;
        p += 6 + m;
        while (isspace((unsigned char)*p))
            p++;
    }
    if (*p != '\0' && *p != '#')
        return TERN_EINVAL;
    if (!(*name = strndup(host, n)))
        return TERN_ENOMEM;
    return 1;
}

int tern_hosts_is_local(const char *name)
{
    static const char *loop[] = { "localhost", "localhost.localdomain",
                                  "127.0.0.1", "::1", "ip6-localhost" };
    for (size_t i = 0; i < sizeof loop / sizeof loop[0]; i++)
        if (strcmp(name, loop[i]) == 0)
            return 1;
    if (strncmp(name, "127.", 4) == 0)
        return 1;
    char self[256];
    if (gethostname(self, sizeof self) != 0)
        return 0;
    self[sizeof self - 1] = '\0';
    if (strcmp(name, self) == 0)
        return 1;
    /* Short and full names match each other ("vm" and "vm.example.org"). */
    size_t a = strcspn(name, "."), b = strcspn(self, ".");
    return a == b && strncmp(name, self, a) == 0;
}

/* Checks one entry; adds its slots to *total. */
static int check_entry(const char *entry, const char *where, int *total)
{
    char *name = NULL;
    int slots = 0;
    int rc = tern_hosts_parse_line(entry, &name, &slots);
    if (rc == 0)
        return 0;
    if (rc < 0) {
        tern_mpirun_msg("cannot parse host entry '%s' (%s); write host, host:N "
                        "or host slots=N", entry, where);
        return TERN_EINVAL;
    }
    if (!tern_hosts_is_local(name)) {
        tern_mpirun_msg("host '%s' (%s) is not this machine; multi-host launch "
                        "is not yet supported, so run on the local host only",
                        name, where);
        free(name);
        return TERN_ENOTSUP;
    }
    free(name);
    *total += slots ? slots : 1;
    return 0;
}

int tern_hosts_check(const struct tern_cli *cli, int *slots)
{
    *slots = 0;
    for (int i = 0; i < cli->n_hosts; i++)
        if (check_entry(cli->hosts[i], "from -H", slots))
            return TERN_EINVAL;
    if (!cli->hostfile)
        return 0;
    FILE *f = fopen(cli->hostfile, "r");
    if (!f) {
        tern_mpirun_msg("cannot open hostfile '%s': %s; check the path given "
                        "to --hostfile", cli->hostfile, strerror(errno));
        return TERN_EINVAL;
    }
    char line[1024], where[1100];
    int lineno = 0, rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        snprintf(where, sizeof where, "%s line %d", cli->hostfile, lineno);
        rc = check_entry(line, where, slots);
    }
    fclose(f);
    return rc ? TERN_EINVAL : 0;
}
