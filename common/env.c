/*
 * Tunables. Every module reads its environment variables through these
 * functions, in one place per module, so that each variable is recorded with
 * its value, its default and a help line, and tern-info can list them all.
 * The registry is a fixed array: tunables are few and read at init.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tern/env.h"
#include "tern/log.h"

#define MAX_ENTRIES 128

static struct tern_env_entry entries[MAX_ENTRIES];
static int n_entries;

static void record(const char *name, const char *value, const char *dflt,
                   int from_env, const char *help)
{
    for (int i = 0; i < n_entries; i++)
        if (strcmp(entries[i].name, name) == 0)
            return;
    if (n_entries == MAX_ENTRIES)
        return;
    struct tern_env_entry *e = &entries[n_entries++];
    e->name = name;
    e->help = help;
    e->from_env = from_env;
    snprintf(e->value, sizeof(e->value), "%s", value ? value : "");
    snprintf(e->dflt, sizeof(e->dflt), "%s", dflt ? dflt : "");
}

long tern_env_long(const char *name, long dflt, const char *help)
{
    char dbuf[32];
    snprintf(dbuf, sizeof(dbuf), "%ld", dflt);
    const char *v = getenv(name);
    long value = dflt;
    if (v && *v) {
        char *end;
        long parsed = strtol(v, &end, 0);
        /* Accept k/m/g suffixes for sizes. */
        if (*end == 'k' || *end == 'K') { parsed <<= 10; end++; }
        else if (*end == 'm' || *end == 'M') { parsed <<= 20; end++; }
        else if (*end == 'g' || *end == 'G') { parsed <<= 30; end++; }
        if (*end == '\0')
            value = parsed;
        else
            tern_log("ignoring %s=%s: not a number; using %ld", name, v, dflt);
    }
    char vbuf[32];
    snprintf(vbuf, sizeof(vbuf), "%ld", value);
    record(name, vbuf, dbuf, v && *v, help);
    return value;
}

const char *tern_env_str(const char *name, const char *dflt, const char *help)
{
    const char *v = getenv(name);
    const char *value = (v && *v) ? v : dflt;
    record(name, value, dflt, v && *v, help);
    return value;
}

int tern_env_count(void)
{
    return n_entries;
}

const struct tern_env_entry *tern_env_get(int i)
{
    return (i >= 0 && i < n_entries) ? &entries[i] : NULL;
}
