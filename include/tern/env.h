/*
 * The registry of tunables read so far, for tern-info and verbose output.
 * Each entry records the variable's name, its value, where the value came
 * from (environment or default) and a help line.
 */
#ifndef TERN_ENV_H
#define TERN_ENV_H

struct tern_env_entry {
    const char *name;
    const char *help;
    char value[128];
    char dflt[128];
    int from_env;
};

/* Number of entries recorded, and entry i (0-based). */
int tern_env_count(void);
const struct tern_env_entry *tern_env_get(int i);

#endif
