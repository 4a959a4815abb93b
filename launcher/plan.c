/*
 * Mapping the ranks onto the hosts.
 *
 * The hosts come from -H (first) and --hostfile, in order of first
 * mention; without either, the job runs on this machine alone with as many
 * slots as ranks. -np defaults to the slot total.
 *
 * --map-by slot (the default) gives each host as many ranks as it has
 * slots, in host order, and numbers them consecutively: with "a slots=2"
 * and "b slots=2", ranks 0,1 run on a and 2,3 on b. --map-by node deals the
 * ranks out one per host in turn, skipping hosts whose slots are full:
 * ranks 0,2 on a and 1,3 on b. More ranks than slots is refused unless
 * --oversubscribe; then the ranks beyond the slots go round-robin, one per
 * host in turn (with slot mapping each host's ranks still stay
 * consecutive). max_slots is a hard limit even then. Hosts that get no rank
 * are dropped, so node ranks count only hosts that run something.
 *
 * Cost: O(np * hosts) at worst, once at start-up.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/launcher.h"
#include "tern/err.h"

#define LIST_MAX 8   /* Hosts named in a capacity message before "...". */

/* Reads -H values, then the hostfile, or makes the single local host. */
static int gather(const struct tern_cli *cli, struct tern_hostlist *hl,
                  char *err, size_t errlen)
{
    for (int i = 0; i < cli->n_hosts; i++) {
        int rc = tern_hostlist_add_spec(cli->hosts[i], hl, err, errlen);
        if (rc)
            return rc;
    }
    if (cli->hostfile)
        return tern_hostfile_read(cli->hostfile, hl, err, errlen);
    if (hl->n > 0)
        return 0;
    char self[256];
    if (gethostname(self, sizeof self) != 0)
        strcpy(self, "localhost");
    self[sizeof self - 1] = '\0';
    hl->hosts = calloc(1, sizeof *hl->hosts);
    if (!hl->hosts || !(hl->hosts[0].name = strdup(self))) {
        snprintf(err, errlen, "out of memory making the host list");
        return TERN_ENOMEM;
    }
    hl->n = 1;
    hl->hosts[0].slots = cli->np ? cli->np : 1;
    hl->hosts[0].local = 1;
    return 0;
}

/* Appends "h1: 2, h2: 2" (slots, or max_slots when use_max) to buf. */
static void host_counts(const struct tern_hostlist *hl, int use_max, char *buf,
                        size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < hl->n && n < len; i++) {
        if (i == LIST_MAX) {
            snprintf(buf + n, len - n, ", ...");
            return;
        }
        n += (size_t)snprintf(buf + n, len - n, "%s%s: %d", i ? ", " : "",
                              hl->hosts[i].name,
                              use_max ? hl->hosts[i].max_slots : hl->hosts[i].slots);
    }
}

/* Refuses more ranks than slots (without --oversubscribe) or than the
 * max_slots of all hosts. */
static int check_capacity(const struct tern_cli *cli, const struct tern_hostlist *hl,
                          int np, char *err, size_t errlen)
{
    long long slots = 0, hard = 0;
    int limited = 1;
    char list[256];
    for (int i = 0; i < hl->n; i++) {
        slots += hl->hosts[i].slots;
        hard += hl->hosts[i].max_slots;
        limited &= hl->hosts[i].max_slots > 0;
    }
    if (np > slots && !cli->oversubscribe) {
        host_counts(hl, 0, list, sizeof list);
        snprintf(err, errlen, "-np %d asks for %d ranks but the hosts give %lld "
                 "slots (%s); use --oversubscribe to run more ranks than slots, "
                 "or add slots %s", np, np, slots, list,
                 cli->hostfile ? "in the hostfile" : "with -H host:N");
        return TERN_EINVAL;
    }
    if (limited && np > hard) {
        host_counts(hl, 1, list, sizeof list);
        snprintf(err, errlen, "-np %d asks for %d ranks but max_slots allows at "
                 "most %lld (%s), even with --oversubscribe; raise max_slots in "
                 "the hostfile or run fewer ranks", np, np, hard, list);
        return TERN_EINVAL;
    }
    return 0;
}

/* 1 if host h can take one more rank: within its slots in the first
 * phase, within max_slots (if any) once every slot is taken. */
static int has_room(const struct tern_host *h, int count, int over)
{
    if (!over)
        return count < h->slots;
    return h->max_slots == 0 || count < h->max_slots;
}

/* --map-by slot: counts per host; ranks are numbered host by host. */
static void map_slot(const struct tern_hostlist *hl, int np, int *count)
{
    int left = np;
    for (int i = 0; i < hl->n && left > 0; i++) {
        count[i] = hl->hosts[i].slots < left ? hl->hosts[i].slots : left;
        left -= count[i];
    }
    while (left > 0) {
        for (int i = 0; i < hl->n && left > 0; i++) {
            if (has_room(&hl->hosts[i], count[i], 1)) {
                count[i]++;
                left--;
            }
        }
    }
}

/* --map-by node: owner[r] is the host of rank r, dealt round-robin. */
static void map_node(const struct tern_hostlist *hl, int np, int *count, int *owner)
{
    long long slots = 0;
    for (int i = 0; i < hl->n; i++)
        slots += hl->hosts[i].slots;
    int next = 0;
    for (int r = 0; r < np; r++) {
        int over = r >= slots;
        while (!has_room(&hl->hosts[next], count[next], over))
            next = (next + 1) % hl->n;
        owner[r] = next;
        count[next]++;
        next = (next + 1) % hl->n;
    }
}

/* Fills the plan from owner[] (host index of each rank), keeping only the
 * hosts with ranks; takes over their names and users from hl. */
static int build(struct tern_plan *plan, struct tern_hostlist *hl, const int *count,
                 const int *owner, int np)
{
    int *newidx = calloc((size_t)hl->n, sizeof *newidx);
    int kept = 0;
    plan->np = np;
    plan->host_of = calloc((size_t)np, sizeof *plan->host_of);
    plan->local_rank = calloc((size_t)np, sizeof *plan->local_rank);
    plan->hl.hosts = calloc((size_t)hl->n, sizeof *plan->hl.hosts);
    if (!newidx || !plan->host_of || !plan->local_rank || !plan->hl.hosts) {
        free(newidx);
        return TERN_ENOMEM;
    }
    for (int i = 0; i < hl->n; i++) {
        newidx[i] = -1;
        if (count[i] == 0)
            continue;
        struct tern_host *h = &plan->hl.hosts[kept];
        *h = hl->hosts[i];
        hl->hosts[i].name = NULL;
        hl->hosts[i].ssh_user = NULL;
        h->nranks = 0;
        h->ranks = malloc((size_t)count[i] * sizeof *h->ranks);
        newidx[i] = kept++;
        plan->hl.n = kept;
        if (!h->ranks) {
            free(newidx);
            return TERN_ENOMEM;
        }
        plan->remote |= !h->local;
    }
    for (int r = 0; r < np; r++) {
        struct tern_host *h = &plan->hl.hosts[newidx[owner[r]]];
        plan->host_of[r] = newidx[owner[r]];
        plan->local_rank[r] = h->nranks;
        h->ranks[h->nranks++] = r;
    }
    free(newidx);
    return 0;
}

int tern_plan_make(const struct tern_cli *cli, struct tern_plan *plan,
                   char *err, size_t errlen)
{
    struct tern_hostlist hl = { NULL, 0 };
    memset(plan, 0, sizeof *plan);
    int rc = gather(cli, &hl, err, errlen);
    long long total = 0;
    for (int i = 0; i < hl.n; i++)
        total += hl.hosts[i].slots;
    int np = cli->np ? cli->np : (int)(total < (1 << 20) ? total : (1 << 20));
    if (!rc)
        rc = check_capacity(cli, &hl, np, err, errlen);
    int *count = NULL, *owner = NULL;
    if (!rc) {
        count = calloc((size_t)hl.n, sizeof *count);
        owner = malloc((size_t)np * sizeof *owner);
        rc = count && owner ? 0 : TERN_ENOMEM;
    }
    if (!rc) {
        if (cli->map_by_node) {
            map_node(&hl, np, count, owner);
        } else {
            map_slot(&hl, np, count);
            for (int i = 0, r = 0; i < hl.n; i++)
                for (int k = 0; k < count[i]; k++)
                    owner[r++] = i;
        }
        rc = build(plan, &hl, count, owner, np);
    }
    if (rc == TERN_ENOMEM)
        snprintf(err, errlen, "out of memory mapping %d ranks onto the hosts", np);
    free(count);
    free(owner);
    tern_hostlist_free(&hl);
    if (rc)
        tern_plan_free(plan);
    return rc;
}

void tern_plan_free(struct tern_plan *plan)
{
    tern_hostlist_free(&plan->hl);
    free(plan->host_of);
    free(plan->local_rank);
    memset(plan, 0, sizeof *plan);
}
