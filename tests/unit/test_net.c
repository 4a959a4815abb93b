/*
 * Unit tests of listener addresses (common/net.c): parsing and formatting
 * host:port, the choice of the address to bind (no target, a loopback
 * target, TERN_TCP_IF by name and by CIDR, a name that matches nothing),
 * and ports from TERN_PORT_RANGE (in range, malformed, exhausted).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cunit_main.h"
#include "tern/err.h"
#include "tern/net.h"

static int port_of(const struct tern_addr *a)
{
    return ntohs(((const struct sockaddr_in *)(const void *)&a->sa)->sin_port);
}

static void test_parse_format(void)
{
    struct tern_addr a;
    char buf[80];
    CU_ASSERT_EQUAL(tern_net_parse("127.0.0.1:4711", &a), 0);
    tern_net_format(&a, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "127.0.0.1:4711");
    CU_ASSERT(tern_net_is_loopback(&a));
    CU_ASSERT_EQUAL(tern_net_parse("[::1]:22", &a), 0);
    tern_net_format(&a, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "[::1]:22");
    CU_ASSERT(tern_net_is_loopback(&a));
    CU_ASSERT_EQUAL(tern_net_parse("10.1.2.3:9", &a), 0);
    CU_ASSERT(!tern_net_is_loopback(&a));
    CU_ASSERT_EQUAL(tern_net_parse("127.0.0.1", &a), TERN_EINVAL);
    CU_ASSERT_EQUAL(tern_net_parse("[::1]22", &a), TERN_EINVAL);
    CU_ASSERT_EQUAL(tern_net_parse("127.0.0.1:", &a), TERN_EINVAL);
}

static void test_pick(void)
{
    struct tern_addr a;
    char err[300], buf[80];
    unsetenv("TERN_TCP_IF");
    CU_ASSERT_EQUAL(tern_net_pick(NULL, &a, err, sizeof err), 0);
    tern_net_format(&a, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "127.0.0.1:0");
    CU_ASSERT_EQUAL(tern_net_pick("127.0.0.1:5000", &a, err, sizeof err), 0);
    CU_ASSERT(tern_net_is_loopback(&a));
    CU_ASSERT_EQUAL(port_of(&a), 0);
    setenv("TERN_TCP_IF", "lo", 1);
    CU_ASSERT_EQUAL(tern_net_pick("198.51.100.1", &a, err, sizeof err), 0);
    tern_net_format(&a, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "127.0.0.1:0");
    setenv("TERN_TCP_IF", "127.0.0.0/8", 1);
    CU_ASSERT_EQUAL(tern_net_pick(NULL, &a, err, sizeof err), 0);
    CU_ASSERT(tern_net_is_loopback(&a));
    setenv("TERN_TCP_IF", "nosuchif0", 1);
    CU_ASSERT_EQUAL(tern_net_pick(NULL, &a, err, sizeof err), TERN_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "nosuchif0"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--iface"));
    setenv("TERN_TCP_IF", "198.51.100.0/24", 1);
    CU_ASSERT_EQUAL(tern_net_pick(NULL, &a, err, sizeof err), TERN_EINVAL);
    unsetenv("TERN_TCP_IF");
}

static void test_port_range(void)
{
    struct tern_addr a;
    char err[300];
    int fds[3];
    unsetenv("TERN_TCP_IF");
    setenv("TERN_PORT_RANGE", "47310-47311", 1);
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(tern_net_pick(NULL, &a, err, sizeof err), 0);
        fds[i] = tern_net_listen(&a, err, sizeof err);
        if (i < 2) {
            CU_ASSERT(fds[i] >= 0);
            CU_ASSERT(port_of(&a) == 47310 || port_of(&a) == 47311);
        } else {
            /* Both ports are taken: the third listener must fail clearly. */
            CU_ASSERT(fds[i] < 0);
            CU_ASSERT_PTR_NOT_NULL(strstr(err, "47310-47311"));
        }
    }
    close(fds[0]);
    close(fds[1]);
    setenv("TERN_PORT_RANGE", "5-2", 1);
    CU_ASSERT_EQUAL(tern_net_listen(&a, err, sizeof err), TERN_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "TERN_PORT_RANGE"));
    setenv("TERN_PORT_RANGE", "abc", 1);
    CU_ASSERT_EQUAL(tern_net_listen(&a, err, sizeof err), TERN_EINVAL);
    unsetenv("TERN_PORT_RANGE");
    CU_ASSERT_EQUAL(tern_net_pick(NULL, &a, err, sizeof err), 0);
    int fd = tern_net_listen(&a, err, sizeof err);
    CU_ASSERT(fd >= 0 && port_of(&a) > 0);
    close(fd);
}

int main(void)
{
    static const struct cunit_test tests[] = {
        { "parse and format", test_parse_format },
        { "pick an address", test_pick },
        { "port range", test_port_range },
        { NULL, NULL },
    };
    return cunit_run("net", tests);
}
