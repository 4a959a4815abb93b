/*
 * Choosing the libfabric provider.
 *
 * libfabric lists every provider that can give a reliable datagram
 * endpoint (FI_EP_RDM) with FI_MSG, once per domain (network interface)
 * and address format. We take the first in this order of preference:
 * providers that drive fabric hardware, then the socket-based ones, with
 * sockets last (it is the reference implementation, not a fast one). Among
 * the entries of one provider, the domain of the interface the job uses
 * (TERN_TCP_IF or the one toward the launcher) and IPv4 addresses first.
 * TERN_OFI_PROVIDER, or libfabric's own FI_PROVIDER, narrows the list.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

#include "tern/log.h"
#include "transports/ofi/ofi.h"

/* Order of preference by core provider (the part before ';', as in
 * "tcp;ofi_rxm"). Anything not named here comes after these. */
static const char *const hardware[] = {
    "cxi", "opx", "psm3", "psm2", "efa", "verbs", "usnic", "gni",
};
static const char *const software[] = {
    "shm", "tcp", "net", "udp", "sockets",
};

#define N_HW (sizeof hardware / sizeof hardware[0])
#define N_SW (sizeof software / sizeof software[0])

/* Length of the core provider's name in prov_name. */
static size_t core_len(const char *prov_name)
{
    const char *semi = strchr(prov_name, ';');
    return semi ? (size_t)(semi - prov_name) : strlen(prov_name);
}

static int core_is(const char *prov_name, const char *core)
{
    size_t n = core_len(prov_name);
    return strlen(core) == n && strncmp(prov_name, core, n) == 0;
}

int tern_ofi_is_hardware(const char *prov_name)
{
    for (size_t i = 0; i < N_HW; i++)
        if (core_is(prov_name, hardware[i]))
            return 1;
    return 0;
}

/* Smaller is better. */
static int rank_of(const struct fi_info *i, const char *iface)
{
    const char *prov = i->fabric_attr->prov_name;
    int r = (int)(N_HW + N_SW);
    for (size_t k = 0; k < N_HW; k++)
        if (core_is(prov, hardware[k]))
            r = (int)k;
    for (size_t k = 0; k < N_SW; k++)
        if (core_is(prov, software[k]))
            r = (int)(N_HW + k);
    /* Within one provider: the job's interface, then IPv4. */
    r *= 4;
    if (iface && i->domain_attr->name && strcmp(i->domain_attr->name, iface) != 0)
        r += 2;
    if (i->addr_format != FI_SOCKADDR_IN && i->addr_format != FI_ADDR_STR)
        r += 1;
    return r;
}

static const char *own_choice(void)
{
    return tern_env_str("TERN_OFI_PROVIDER", "",
        "libfabric provider to use, e.g. verbs or tcp;ofi_rxm (default: the best one "
        "found; libfabric's FI_PROVIDER also narrows the choice)");
}

const char *tern_ofi_named(void)
{
    const char *p = own_choice();
    if (*p)
        return p;
    /* FI_PROVIDER also takes lists and exclusions ("^psm3"), which sites
     * set to steer libfabric; only a single name counts as a choice. */
    p = getenv("FI_PROVIDER");
    return p && *p && !strpbrk(p, "^,") ? p : NULL;
}

/* Hints for an FI_EP_RDM endpoint with caps, narrowed to TERN_OFI_PROVIDER
 * when `named`. */
static struct fi_info *hints_for(uint64_t caps, int named)
{
    struct fi_info *h = tern_fi.dupinfo(NULL);
    if (!h)
        return NULL;
    h->ep_attr->type = FI_EP_RDM;
    h->caps = caps;
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
                              FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    const char *p = own_choice();
    if (named && *p)
        h->fabric_attr->prov_name = strdup(p);
    return h;
}

/* What libfabric offers with caps (narrowed to TERN_OFI_PROVIDER when
 * `named`); a list to free, or NULL. */
static struct fi_info *query(uint64_t caps, int named)
{
    struct fi_info *h = hints_for(caps, named), *list = NULL;
    if (!h)
        return NULL;
    if (tern_fi.getinfo(FI_VERSION(1, 9), NULL, NULL, 0, h, &list))
        list = NULL;
    tern_fi.freeinfo(h);
    return list;
}

/* Appends each provider name once. */
static void add_found(char *found, size_t cap, const char *name)
{
    size_t n = strlen(found), k = strlen(name);
    for (const char *p = found; (p = strstr(p, name)); p += k)
        if ((p == found || p[-1] == ' ') && (p[k] == ',' || p[k] == '\0'))
            return;
    snprintf(found + n, cap - n, "%s%s", n ? ", " : "", name);
}

void tern_ofi_offered(char *found, size_t cap)
{
    struct fi_info *all = query(FI_MSG, 0);
    found[0] = '\0';
    for (struct fi_info *i = all; i; i = i->next)
        add_found(found, cap, i->fabric_attr->prov_name);
    tern_fi.freeinfo(all);
}

/* The capability sets asked for, best first: remote reads matter most
 * (large messages without copies), then tagged messages (the native send
 * path of tag-matching hardware such as psm2, psm3, opx and cxi). */
static const uint64_t wanted[] = {
    FI_TAGGED | FI_RMA | FI_READ | FI_REMOTE_READ,
    FI_MSG | FI_RMA | FI_READ | FI_REMOTE_READ,
    FI_TAGGED,
    FI_MSG,
};
#define N_WANTED (sizeof wanted / sizeof wanted[0])

struct fi_info *tern_ofi_pick(int local_only, const char *iface, int tagged)
{
    struct fi_info *lists[N_WANTED] = { NULL };
    struct fi_info *best = NULL;
    int best_rank = 0;
    for (size_t k = 0; k < N_WANTED; k++) {
        if (!tagged && (wanted[k] & FI_TAGGED))
            continue;
        lists[k] = query(wanted[k], 1);
        for (struct fi_info *i = lists[k]; i; i = i->next) {
            if (!local_only && core_is(i->fabric_attr->prov_name, "shm"))
                continue;
            int r = rank_of(i, iface) * (int)N_WANTED + (int)k;
            if (!best || r < best_rank) {
                best = i;
                best_rank = r;
            }
        }
    }
    struct fi_info *copy = best ? tern_fi.dupinfo(best) : NULL;
    for (size_t k = 0; k < N_WANTED; k++)
        if (lists[k])
            tern_fi.freeinfo(lists[k]);
    return copy;
}

/* Where fabric hardware shows itself: RDMA devices (verbs, efa, usnic,
 * psm3) and the character devices of Slingshot (cxi), Omni-Path (hfi1:
 * opx, psm2) and Aries (kgni). */
static const char *const hw_paths[] = {
    "/sys/class/infiniband", "/dev/cxi0", "/dev/hfi1", "/dev/hfi1_0", "/dev/kgni0",
};

int tern_ofi_hardware_visible(void)
{
    for (size_t i = 0; i < sizeof hw_paths / sizeof hw_paths[0]; i++) {
        struct stat sb;
        if (stat(hw_paths[i], &sb) == 0)
            return 1;
    }
    return 0;
}

void tern_ofi_about(void)
{
    char err[300];
    if (tern_ofi_load(err, sizeof err)) {
        printf("\nofi: %s\n", err);
        return;
    }
    struct fi_info *all = query(FI_MSG, 0);
    printf("\nlibfabric %u.%u providers (reliable datagram endpoints with FI_MSG):\n",
           FI_MAJOR(tern_fi.version()), FI_MINOR(tern_fi.version()));
    if (!all)
        printf("  none%s\n", getenv("FI_PROVIDER") ? " (FI_PROVIDER narrows the list)" : "");
    /* One line per provider and domain (libfabric lists each address
     * format and variant apart). */
    for (struct fi_info *i = all; i; i = i->next) {
        const char *dom = i->domain_attr->name ? i->domain_attr->name : "-";
        int seen = 0;
        for (struct fi_info *j = all; j != i && !seen; j = j->next)
            seen = !strcmp(j->fabric_attr->prov_name, i->fabric_attr->prov_name) &&
                   j->domain_attr->name && !strcmp(j->domain_attr->name, dom);
        if (!seen)
            printf("  %-16s domain %-10s %s\n", i->fabric_attr->prov_name, dom,
                   tern_ofi_is_hardware(i->fabric_attr->prov_name) ? "fabric hardware"
                                                                   : "software");
    }
    tern_fi.freeinfo(all);
    const char *named = tern_ofi_named();
    struct fi_info *pick = tern_ofi_pick(0, NULL, 1);
    if (!pick) {
        printf("ofi would not be used: no provider reaches other hosts%s%s.\n",
               named ? "; the name given is " : "", named ? named : "");
    } else if (named || tern_ofi_is_hardware(pick->fabric_attr->prov_name)) {
        printf("ofi would carry traffic between hosts with %s (%s; %s)\n",
               pick->fabric_attr->prov_name,
               named ? "named by TERN_OFI_PROVIDER or FI_PROVIDER" : "fabric hardware",
               pick->caps & FI_RMA ? "remote reads for large messages"
                                   : "no remote reads: large messages pipelined");
    } else {
        printf("ofi would not be used by default: the best provider, %s, drives no "
               "fabric hardware, so the tcp transport carries traffic between hosts "
               "(TERN_TRANSPORTS=self,shm,ofi or TERN_OFI_PROVIDER forces ofi)\n",
               pick->fabric_attr->prov_name);
    }
    tern_fi.freeinfo(pick);
}
