/*
 * Transport registry: a static table, filtered once by TERN_TRANSPORTS.
 */
#include <stdio.h>
#include <string.h>

#include "tern/log.h"
#include "transports/registry.h"

static const struct tern_tp_ops *const all[] = {
    &tern_self_ops,
    &tern_shm_ops,
};

#define N_ALL (sizeof(all) / sizeof(all[0]))

static const struct tern_tp_ops *allowed[N_ALL];
static int n_allowed = -1;

static int name_in_list(const char *name, const char *list)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return 1;
        p += len + (end ? 1 : 0);
    }
    return 0;
}

int tern_tp_list(const struct tern_tp_ops *const **list)
{
    if (n_allowed < 0) {
        const char *want = tern_env_str("TERN_TRANSPORTS", "self,shm",
            "Comma-separated transports that may be used, in order of preference");
        n_allowed = 0;
        for (size_t i = 0; i < N_ALL; i++)
            if (name_in_list(all[i]->name, want))
                allowed[n_allowed++] = all[i];
    }
    *list = allowed;
    return n_allowed;
}

const struct tern_tp_ops *tern_tp_select(int peer)
{
    const struct tern_tp_ops *const *list;
    int n = tern_tp_list(&list);
    for (int i = 0; i < n; i++)
        if (list[i]->reachable(peer))
            return list[i];
    return NULL;
}
