/*
 * Unit tests of the libfabric provider choice (transports/ofi/provider.c)
 * against the real libfabric of this machine: which providers count as
 * fabric hardware, that shm is never chosen for a job across hosts, that
 * entries with remote reads and tagged messages win (and FI_MSG ones are
 * taken when tagged messages are not wanted), that
 * TERN_OFI_PROVIDER narrows the choice (and an unknown name leaves none),
 * and that the list of offered providers names each one once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>

#include "cunit_main.h"
#include "transports/ofi/ofi.h"

static void test_hardware(void)
{
    CU_ASSERT(tern_ofi_is_hardware("verbs;ofi_rxm"));
    CU_ASSERT(tern_ofi_is_hardware("efa"));
    CU_ASSERT(tern_ofi_is_hardware("cxi"));
    CU_ASSERT(!tern_ofi_is_hardware("tcp;ofi_rxm"));
    CU_ASSERT(!tern_ofi_is_hardware("sockets"));
    CU_ASSERT(!tern_ofi_is_hardware("verbose"));
    CU_ASSERT(!tern_ofi_is_hardware(""));
}

static void test_pick(void)
{
    char found[1024];
    tern_ofi_offered(found, sizeof found);
    if (!strstr(found, "shm") || !strstr(found, "tcp;ofi_rxm")) {
        CU_PASS("libfabric here offers no shm or no tcp provider; choice not tested");
        return;
    }
    unsetenv("TERN_OFI_PROVIDER");
    struct fi_info *i = tern_ofi_pick(0, NULL, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(i);
    CU_ASSERT(strncmp(i->fabric_attr->prov_name, "shm", 3) != 0);
    tern_fi.freeinfo(i);
    /* Within one host shm comes before the socket providers. */
    i = tern_ofi_pick(1, NULL, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(i);
    CU_ASSERT_STRING_EQUAL(i->fabric_attr->prov_name, "shm");
    tern_fi.freeinfo(i);
    /* The interface given wins among the entries of one provider. */
    setenv("TERN_OFI_PROVIDER", "tcp", 1);
    i = tern_ofi_pick(0, "lo", 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(i);
    CU_ASSERT_STRING_EQUAL(i->fabric_attr->prov_name, "tcp;ofi_rxm");
    CU_ASSERT_STRING_EQUAL(i->domain_attr->name, "lo");
    CU_ASSERT(i->caps & FI_RMA);
    CU_ASSERT(i->caps & FI_TAGGED);
    tern_fi.freeinfo(i);
    /* Without tagged messages: an FI_MSG entry, still with remote reads. */
    i = tern_ofi_pick(0, "lo", 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(i);
    CU_ASSERT(i->caps & FI_MSG);
    CU_ASSERT(i->caps & FI_RMA);
    CU_ASSERT(!(i->caps & FI_TAGGED));
    tern_fi.freeinfo(i);
    setenv("TERN_OFI_PROVIDER", "shm", 1);
    CU_ASSERT_PTR_NULL(tern_ofi_pick(0, NULL, 1));
    setenv("TERN_OFI_PROVIDER", "nosuch", 1);
    CU_ASSERT_PTR_NULL(tern_ofi_pick(1, NULL, 1));
    /* The list of offered providers ignores TERN_OFI_PROVIDER. */
    char again[1024];
    tern_ofi_offered(again, sizeof again);
    CU_ASSERT_STRING_EQUAL(again, found);
    unsetenv("TERN_OFI_PROVIDER");
}

static void test_offered_once(void)
{
    char found[1024];
    tern_ofi_offered(found, sizeof found);
    /* Each name appears once, though libfabric lists one entry per domain
     * and address format. */
    for (char *p = found; *p;) {
        size_t n = strcspn(p, ",");
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        int count = 0;
        for (char *q = found; *q;) {
            size_t m = strcspn(q, ",");
            count += m == n && !strncmp(q, name, n);
            q += m;
            q += strspn(q, ", ");
        }
        CU_ASSERT_EQUAL(count, 1);
        p += n;
        p += strspn(p, ", ");
    }
}

int main(void)
{
    char err[300];
    if (tern_ofi_load(err, sizeof err)) {
        printf("SKIP: %s\n", err);
        return 77;
    }
    static const struct cunit_test tests[] = {
        { "hardware providers", test_hardware },
        { "provider choice", test_pick },
        { "offered providers listed once", test_offered_once },
        { NULL, NULL },
    };
    return cunit_run("ofi_provider", tests);
}
