/*
 * mpirun's user-facing messages and clock: one line per message on stderr,
 * written with one call so it never mixes with forwarded output.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "launcher/launcher.h"
#include "tern/wire.h"

void tern_mpirun_vmsg(const char *fmt, va_list ap)
{
    char line[1200];
    int n = snprintf(line, sizeof line, "mpirun: ");
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    size_t len = strlen(line);
    line[len++] = '\n';
    tern_wire_write_full(2, line, len);
}

void tern_mpirun_msg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tern_mpirun_vmsg(fmt, ap);
    va_end(ap);
}
