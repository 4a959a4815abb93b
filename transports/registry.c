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
    &tern_ofi_ops,
    &tern_tcp_ops,
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
        const char *want = tern_env_str("TERN_TRANSPORTS", "self,shm,ofi,tcp",
            "Comma-separated transports that may be used, in order of preference");
        n_allowed = 0;
        for (size_t i = 0; i < N_ALL; i++)
            if (name_in_list(all[i]->name, want))
                allowed[n_allowed++] = all[i];
    }
    *list = allowed;
    return n_allowed;
}

int tern_tp_allowed(const struct tern_tp_ops *t)
{
    const struct tern_tp_ops *const *list;
    int n = tern_tp_list(&list);
    for (int i = 0; i < n; i++)
        if (list[i] == t)
            return 1;
    return 0;
}

int tern_tp_local(const struct tern_boot_info *b, int r)
{
    for (int i = 0; i < b->local_size; i++)
        if (b->local_ranks[i] == r)
            return 1;
    return 0;
}

int tern_tp_needs_network(const struct tern_boot_info *b, int r)
{
    return r != b->rank && !(tern_tp_allowed(&tern_shm_ops) && tern_tp_local(b, r));
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

/* Appends " a-b" or ",a-b" for one run of ranks to line. */
static void add_run(char *line, size_t cap, int first, int lo, int hi)
{
    size_t n = strlen(line);
    if (lo == hi)
        snprintf(line + n, cap - n, "%s%d", first ? " " : ",", lo);
    else
        snprintf(line + n, cap - n, "%s%d-%d", first ? " " : ",", lo, hi);
}

void tern_tp_report(const struct tern_tp_ops *const *chosen, int n)
{
    const struct tern_tp_ops *const *list;
    int nt = tern_tp_list(&list);
    char line[1024] = "transports:";
    int any = 0;
    for (int t = 0; t < nt; t++) {
        int first = 1, lo = -1;
        for (int r = 0; r <= n; r++) {
            int mine = r < n && chosen[r] == list[t];
            if (mine && lo < 0)
                lo = r;
            if (!mine && lo >= 0) {
                if (first) {
                    size_t len = strlen(line);
                    snprintf(line + len, sizeof line - len, "%s %s", any ? ";" : "",
                             list[t]->name);
                    any = 1;
                }
                add_run(line, sizeof line, first, lo, r - 1);
                first = 0;
                lo = -1;
            }
        }
    }
    tern_log("%s", line);
}
