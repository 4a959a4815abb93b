/*
 * Diagnostics and tunables shared by the library, the launcher and the tools.
 *
 * tern_verbose is read once from TERN_VERBOSE (0 = quiet). TERN_LOG(level,..)
 * prints "tern: <prefix>: message" to stderr when tern_verbose >= level.
 * tern_log_set_prefix() sets the prefix ("rank 3 (host)" in ranks, "mpirun"
 * in the launcher).
 */
#ifndef TERN_LOG_H
#define TERN_LOG_H

extern int tern_verbose;

void tern_log_set_prefix(const char *prefix);
const char *tern_log_prefix(void);
void tern_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Before a process ends with _exit(): writes out what the program left in
 * stdout's and stderr's buffers (a rank's stdout is a pipe, so fully
 * buffered, and its last line often says why it gives up). A stream that
 * another thread holds locked is skipped, never waited for. */
void tern_flush_stdio(void);

#define TERN_LOG(level, ...) \
    do { if (tern_verbose >= (level)) tern_log(__VA_ARGS__); } while (0)

/*
 * Tunables: every module reads its environment variables through
 * tern_env_*(), which records name, value, default and help so that tern-info
 * can list them all.
 */
long tern_env_long(const char *name, long dflt, const char *help);
const char *tern_env_str(const char *name, const char *dflt, const char *help);

#endif
