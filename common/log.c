/*
 * Diagnostics: one line per message on stderr, with a prefix that names the
 * process ("rank 3 (host)" in ranks, "mpirun" in the launcher).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tern/log.h"

int tern_verbose;
static char prefix[320];

__attribute__((constructor)) static void read_verbose(void)
{
    tern_verbose = (int)tern_env_long("TERN_VERBOSE", 0,
        "Diagnostics on stderr: 0 quiet, 1 the paths chosen, 2 per-peer detail");
}

void tern_log_set_prefix(const char *p)
{
    snprintf(prefix, sizeof(prefix), "%s", p);
}

const char *tern_log_prefix(void)
{
    return prefix;
}

void tern_flush_stdio(void)
{
    /* Not fflush(NULL): it locks every stream, input ones too, and a thread
     * blocked in fgets(stdin) holds stdin's lock for as long as it waits. */
    FILE *streams[] = { stdout, stderr };
    for (int i = 0; i < 2; i++) {
        if (ftrylockfile(streams[i]) == 0) {
            fflush_unlocked(streams[i]);
            funlockfile(streams[i]);
        }
    }
}

void tern_log(const char *fmt, ...)
{
    /* Format into one buffer and write it with one call, so that lines from
     * several processes sharing a pipe never interleave. */
    char line[1024];
    int n = prefix[0] ? snprintf(line, sizeof(line), "tern: %s: ", prefix)
                      : snprintf(line, sizeof(line), "tern: ");
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < sizeof(line))
        vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    va_end(ap);
    size_t len = strnlen(line, sizeof(line) - 2);
    line[len++] = '\n';
    fwrite(line, 1, len, stderr);
    fflush(stderr);
}
