/*
 * Unit tests of hostfiles and -H values (launcher/hostfile.c): every
 * dialect, every error with its file:line:col, and which names denote this
 * machine. Test hostfiles are written into a fresh mkdtemp directory.
 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cunit_main.h"
#include "launcher/plan.h"
#include "tern/err.h"

#define FORMS "accepted forms: host, host:N, host slots=N [max_slots=M] [port=P], " \
              "each host also as user@host"

static char dir[64];
static char path[128];
static char err[1024];

/* Writes text (len bytes) to a new file in the test directory; the path
 * goes into the global path. */
static const char *write_file(const char *name, const char *text, size_t len)
{
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(text, 1, len, f), len);
    fclose(f);
    return path;
}

/* Reads a hostfile with the given text into hl; returns the result. */
static int read_text(const char *text, struct tern_hostlist *hl)
{
    memset(hl, 0, sizeof *hl);
    err[0] = '\0';
    return tern_hostfile_read(write_file("hosts", text, strlen(text)), hl, err,
                              sizeof err);
}

static struct tern_host *find(struct tern_hostlist *hl, const char *name)
{
    for (int i = 0; i < hl->n; i++)
        if (strcmp(hl->hosts[i].name, name) == 0)
            return &hl->hosts[i];
    return NULL;
}

static void test_dialects(void)
{
    struct tern_hostlist hl;
    const char *text =
        "# a cluster\n"
        "\n"
        "node1 slots=4 max_slots=6   # Open MPI\n"
        "node2:2\n"
        "  node3  \n"
        "\tnode4 slots=2 port=2222 max-slots=3\n"
        "node5\n"
        "node5 # repeats add up\n"
        "[fe80::1]:4\n"
        "[::2]\n"
        "[fe80::3%eth0] slots=2\n"
        "last_one";                      /* No final newline. */
    CU_ASSERT_EQUAL_FATAL(read_text(text, &hl), 0);
    CU_ASSERT_EQUAL(hl.n, 9);
    struct tern_host *h;
    CU_ASSERT_PTR_NOT_NULL_FATAL(h = find(&hl, "node1"));
    CU_ASSERT_EQUAL(h->slots, 4);
    CU_ASSERT_EQUAL(h->max_slots, 6);
    CU_ASSERT_EQUAL(h->ssh_port, 0);
    CU_ASSERT_EQUAL(h->local, 0);
    CU_ASSERT_EQUAL(h->nranks, 0);
    CU_ASSERT_PTR_NULL(h->ranks);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h = find(&hl, "node2"));
    CU_ASSERT_EQUAL(h->slots, 2);
    CU_ASSERT_EQUAL(h->max_slots, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h = find(&hl, "node3"));
    CU_ASSERT_EQUAL(h->slots, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h = find(&hl, "node4"));
    CU_ASSERT_EQUAL(h->slots, 2);
    CU_ASSERT_EQUAL(h->max_slots, 3);
    CU_ASSERT_EQUAL(h->ssh_port, 2222);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h = find(&hl, "node5"));
    CU_ASSERT_EQUAL(h->slots, 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h = find(&hl, "fe80::1"));
    CU_ASSERT_EQUAL(h->slots, 4);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h = find(&hl, "::2"));
    CU_ASSERT_EQUAL(h->slots, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h = find(&hl, "fe80::3%eth0"));
    CU_ASSERT_EQUAL(h->slots, 2);
    CU_ASSERT_PTR_NOT_NULL(find(&hl, "last_one"));
    /* Order of first mention. */
    CU_ASSERT_STRING_EQUAL(hl.hosts[0].name, "node1");
    CU_ASSERT_STRING_EQUAL(hl.hosts[4].name, "node5");
    CU_ASSERT_STRING_EQUAL(hl.hosts[8].name, "last_one");
    tern_hostlist_free(&hl);
    CU_ASSERT_EQUAL(hl.n, 0);
}

static void test_crlf_and_repeats(void)
{
    struct tern_hostlist hl;
    CU_ASSERT_EQUAL_FATAL(read_text("a slots=2\r\nb:3\r\n\r\n# c\r\nA\r\nb\r\na max_slots=4", &hl), 0);
    CU_ASSERT_EQUAL_FATAL(hl.n, 2);
    CU_ASSERT_STRING_EQUAL(hl.hosts[0].name, "a");
    /* a slots=2, A (same host, names ignore case), a max_slots=4: 2+1+1;
     * the entries without max_slots leave the host unlimited. */
    CU_ASSERT_EQUAL(hl.hosts[0].slots, 4);
    CU_ASSERT_EQUAL(hl.hosts[0].max_slots, 0);
    CU_ASSERT_EQUAL(hl.hosts[1].slots, 4);
    tern_hostlist_free(&hl);
    /* max_slots add up when every mention gives one. */
    CU_ASSERT_EQUAL_FATAL(read_text("a slots=2 max_slots=2\na max_slots=3\n", &hl), 0);
    CU_ASSERT_EQUAL(hl.hosts[0].slots, 3);
    CU_ASSERT_EQUAL(hl.hosts[0].max_slots, 5);
    tern_hostlist_free(&hl);
    /* The same port again is fine; a port given once applies to the host. */
    CU_ASSERT_EQUAL_FATAL(read_text("a port=22\na port=22\nb\nb port=23", &hl), 0);
    CU_ASSERT_EQUAL(hl.hosts[0].ssh_port, 22);
    CU_ASSERT_EQUAL(hl.hosts[1].ssh_port, 23);
    tern_hostlist_free(&hl);
}

/* Every name for this machine merges into the first one. */
static void test_local_merge(void)
{
    struct tern_hostlist hl;
    char text[600], self[256];
    CU_ASSERT_EQUAL_FATAL(gethostname(self, sizeof self), 0);
    snprintf(text, sizeof text, "localhost slots=2\n127.0.0.1\nremote1\n[::1]:3\n%s\n", self);
    CU_ASSERT_EQUAL_FATAL(read_text(text, &hl), 0);
    CU_ASSERT_EQUAL_FATAL(hl.n, 2);
    CU_ASSERT_STRING_EQUAL(hl.hosts[0].name, "localhost");
    CU_ASSERT_EQUAL(hl.hosts[0].local, 1);
    CU_ASSERT_EQUAL(hl.hosts[0].slots, 7);
    CU_ASSERT_STRING_EQUAL(hl.hosts[1].name, "remote1");
    CU_ASSERT_EQUAL(hl.hosts[1].local, 0);
    tern_hostlist_free(&hl);
}

/* Each bad line gives exactly this message. */
static void expect_error(const char *text, const char *where, const char *problem,
                         const char *token)
{
    struct tern_hostlist hl;
    char want[1024];
    snprintf(want, sizeof want, "%s/hosts:%s: %s near '%s'; " FORMS, dir, where,
             problem, token);
    CU_ASSERT_EQUAL(read_text(text, &hl), TERN_EINVAL);
    CU_ASSERT_STRING_EQUAL(err, want);
    if (strcmp(err, want) != 0)
        fprintf(stderr, "\n  got:  %s\n  want: %s\n", err, want);
    tern_hostlist_free(&hl);
}

static void test_file_errors(void)
{
    const char *num = "slot count is not a number from 1 to 1048576";
    expect_error("good\nnode4:x\n", "2:7", "slot count after ':' is not a number "
                 "from 1 to 1048576", "node4:x");
    expect_error("node4:\n", "1:7", "slot count after ':' is not a number from 1 "
                 "to 1048576", "node4:");
    expect_error("a\r\n  node5 slots=0\r\n", "2:15", num, "slots=0");
    expect_error("node5 slots=\n", "1:13", num, "slots=");
    expect_error("node5 slots=99999999999\n", "1:13", num, "slots=99999999999");
    expect_error("node6 junk\n", "1:7", "unexpected word after the host", "junk");
    expect_error("node6 cpu=2\n", "1:7", "unknown keyword (known: slots=, "
                 "max_slots=, port=)", "cpu=2");
    expect_error("n slots=2 slots=3\n", "1:11", "slots given twice", "slots=3");
    expect_error("n:2 slots=3\n", "1:5", "slots given twice", "slots=3");
    expect_error("n port=1 port=2\n", "1:10", "port given twice", "port=2");
    expect_error("n max_slots=1 max-slots=2\n", "1:15", "max_slots given twice",
                 "max-slots=2");
    expect_error("n port=70000\n", "1:8", "port is not a number from 1 to 65535",
                 "port=70000");
    expect_error("n slots=4 max_slots=2\n", "1:1", "max_slots is smaller than slots",
                 "n");
    expect_error("  bad/name\n", "1:6", "invalid character '/' in host name",
                 "bad/name");
    expect_error("x\xc3\xa9\n", "1:2", "invalid byte 0xc3 in host name", "x??");
    expect_error("-oProxyCommand=x\n", "1:1", "a host name cannot start with '-' "
                 "or '.'", "-oProxyCommand=x");
    expect_error(":4\n", "1:1", "missing host name", ":4");
    expect_error("fe80::1:4\n", "1:1", "an IPv6 address must be written in "
                 "brackets, e.g. [fe80::1]:4", "fe80::1:4");
    expect_error("[fe80::1\n", "1:1", "'[' without a closing ']'", "[fe80::1");
    expect_error("[]\n", "1:1", "empty brackets", "[]");
    expect_error("[nothex::g]\n", "1:2", "brackets hold an IPv6 address, and this "
                 "is not one", "[nothex::g]");
    expect_error("[::1]x\n", "1:6", "unexpected text after the host", "[::1]x");
    expect_error("a\nb\nb port=2\nb port=3\n", "4:3", "this host was given another "
                 "port= before", "port=3");
    expect_error("@b\n", "1:1", "missing user name before '@'", "@b");
    expect_error("me@ slots=2\n", "1:3", "missing host name after '@'", "me@");
    expect_error("-oX@b\n", "1:1", "a user name cannot start with '-'", "-oX@b");
    expect_error("m/e@b\n", "1:2", "invalid character in user name (letters, digits, "
                 "'.', '_' and '-' only)", "m/e@b");
    expect_error("me@x@b\n", "1:5", "invalid character '@' in host name", "me@x@b");
    expect_error("me@b\nyou@b:2\n", "2:1", "this host was given another user before",
                 "you@b:2");
    expect_error("nobody-but-tern-tests@localhost\n", "1:1", "this host is the machine "
                 "mpirun runs on, where ranks run as the user running mpirun, and this "
                 "is another user", "nobody-but-tern-tests@localhost");
}

/* user@host: the user goes with the host, for its ssh login. */
static void test_users(void)
{
    struct tern_hostlist hl;
    const struct passwd *pw = getpwuid(getuid());
    CU_ASSERT_PTR_NOT_NULL_FATAL(pw);
    char text[512];
    snprintf(text, sizeof text, "alice@node1 slots=2\nnode2\nbob.b_1@[fe80::1]:3\n"
             "node1 port=22\nnode2\nALICE@node3\n%s@localhost\n", pw->pw_name);
    CU_ASSERT_EQUAL_FATAL(read_text(text, &hl), 0);
    CU_ASSERT_EQUAL_FATAL(hl.n, 5);
    CU_ASSERT_STRING_EQUAL(hl.hosts[0].name, "node1");
    CU_ASSERT_STRING_EQUAL(hl.hosts[0].ssh_user, "alice");
    CU_ASSERT_EQUAL(hl.hosts[0].slots, 3);
    CU_ASSERT_EQUAL(hl.hosts[0].ssh_port, 22);
    CU_ASSERT_PTR_NULL(hl.hosts[1].ssh_user);
    CU_ASSERT_STRING_EQUAL(hl.hosts[2].name, "fe80::1");
    CU_ASSERT_STRING_EQUAL(hl.hosts[2].ssh_user, "bob.b_1");
    CU_ASSERT_EQUAL(hl.hosts[2].slots, 3);
    /* User names are case-sensitive, unlike host names. */
    CU_ASSERT_STRING_EQUAL(hl.hosts[3].ssh_user, "ALICE");
    /* This machine's own user on a local name: started without ssh. */
    CU_ASSERT_EQUAL(hl.hosts[4].local, 1);
    CU_ASSERT_PTR_NULL(hl.hosts[4].ssh_user);
    tern_hostlist_free(&hl);
    /* A user given on a later mention of the host applies to it. */
    CU_ASSERT_EQUAL_FATAL(read_text("node1\ncarol@node1:2\n", &hl), 0);
    CU_ASSERT_STRING_EQUAL(hl.hosts[0].ssh_user, "carol");
    tern_hostlist_free(&hl);
    memset(&hl, 0, sizeof hl);
    CU_ASSERT_EQUAL(tern_hostlist_add_spec("dave@n1:2,n2,dave@n1", &hl, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(hl.n, 2);
    CU_ASSERT_STRING_EQUAL(hl.hosts[0].ssh_user, "dave");
    CU_ASSERT_EQUAL(hl.hosts[0].slots, 3);
    tern_hostlist_free(&hl);
}

static void test_file_problems(void)
{
    struct tern_hostlist hl = { NULL, 0 };
    char want[512];
    snprintf(want, sizeof want, "cannot read hostfile '%s/nope': No such file or "
             "directory; check the path given to --hostfile", dir);
    snprintf(path, sizeof path, "%s/nope", dir);
    CU_ASSERT_EQUAL(tern_hostfile_read(path, &hl, err, sizeof err), TERN_EINVAL);
    CU_ASSERT_STRING_EQUAL(err, want);
    snprintf(want, sizeof want, "cannot read hostfile '%s': Is a directory; check "
             "the path given to --hostfile", dir);
    CU_ASSERT_EQUAL(tern_hostfile_read(dir, &hl, err, sizeof err), TERN_EINVAL);
    CU_ASSERT_STRING_EQUAL(err, want);
    if (geteuid() != 0) {
        write_file("secret", "a\n", 2);
        chmod(path, 0);
        CU_ASSERT_EQUAL(tern_hostfile_read(path, &hl, err, sizeof err), TERN_EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "Permission denied"));
    }
    CU_ASSERT_EQUAL(read_text("", &hl), TERN_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "names no hosts"));
    CU_ASSERT_EQUAL(read_text("# only\n\n   \r\n#x", &hl), TERN_EINVAL);
    snprintf(want, sizeof want, "hostfile '%s/hosts' names no hosts (it has only "
             "blank or comment lines); add one host per line, " FORMS, dir);
    CU_ASSERT_STRING_EQUAL(err, want);
    CU_ASSERT_EQUAL(hl.n, 0);
}

static void test_spec(void)
{
    struct tern_hostlist hl = { NULL, 0 };
    CU_ASSERT_EQUAL_FATAL(tern_hostlist_add_spec("a,b:2,[::1]:3,[fe80::9]", &hl,
                                                 err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(tern_hostlist_add_spec(" a , c slots=2 port=44", &hl,
                                                 err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(hl.n, 5);
    CU_ASSERT_STRING_EQUAL(hl.hosts[0].name, "a");
    CU_ASSERT_EQUAL(hl.hosts[0].slots, 2);
    CU_ASSERT_EQUAL(hl.hosts[1].slots, 2);
    CU_ASSERT_STRING_EQUAL(hl.hosts[2].name, "::1");
    CU_ASSERT_EQUAL(hl.hosts[2].slots, 3);
    CU_ASSERT_EQUAL(hl.hosts[2].local, 1);
    CU_ASSERT_STRING_EQUAL(hl.hosts[3].name, "fe80::9");
    CU_ASSERT_EQUAL(hl.hosts[4].ssh_port, 44);
    CU_ASSERT_EQUAL(hl.hosts[4].slots, 2);
    tern_hostlist_free(&hl);

    CU_ASSERT_EQUAL(tern_hostlist_add_spec("a,b:x", &hl, err, sizeof err), TERN_EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "-H 'a,b:x', column 5: slot count after ':' is not "
                           "a number from 1 to 1048576 near 'b:x'; " FORMS);
    tern_hostlist_free(&hl);
    CU_ASSERT_EQUAL(tern_hostlist_add_spec("a,,b", &hl, err, sizeof err), TERN_EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "-H 'a,,b', column 3: empty host entry; give hosts "
                           "separated by commas, e.g. -H node1,node2:4");
    tern_hostlist_free(&hl);
    CU_ASSERT_EQUAL(tern_hostlist_add_spec("", &hl, err, sizeof err), TERN_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "empty host entry"));
    CU_ASSERT_EQUAL(tern_hostlist_add_spec("x,fe80::1", &hl, err, sizeof err),
                    TERN_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "-H 'x,fe80::1', column 3: an IPv6 address "
                                  "must be written in brackets"));
    tern_hostlist_free(&hl);
}

/* The first non-loopback IPv4 address of an interface, or "". */
static void own_address(char *buf, size_t len)
{
    struct ifaddrs *list;
    buf[0] = '\0';
    if (getifaddrs(&list) != 0)
        return;
    for (struct ifaddrs *i = list; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
            continue;
        struct in_addr *a = &((struct sockaddr_in *)i->ifa_addr)->sin_addr;
        if ((ntohl(a->s_addr) >> 24) != 127) {
            inet_ntop(AF_INET, a, buf, (socklen_t)len);
            break;
        }
    }
    freeifaddrs(list);
}

static void test_is_local(void)
{
    char self[256], name[300], addr[64];
    CU_ASSERT_TRUE(tern_hostfile_is_local("localhost"));
    CU_ASSERT_TRUE(tern_hostfile_is_local("LocalHost"));
    CU_ASSERT_TRUE(tern_hostfile_is_local("127.0.0.1"));
    CU_ASSERT_TRUE(tern_hostfile_is_local("127.0.1.1"));
    CU_ASSERT_TRUE(tern_hostfile_is_local("::1"));
    CU_ASSERT_TRUE(tern_hostfile_is_local("::ffff:127.0.0.1"));
    CU_ASSERT_FALSE(tern_hostfile_is_local("some-remote-host.invalid"));
    CU_ASSERT_FALSE(tern_hostfile_is_local("192.0.2.254"));
    CU_ASSERT_FALSE(tern_hostfile_is_local("2001:db8::77"));
    CU_ASSERT_EQUAL_FATAL(gethostname(self, sizeof self), 0);
    CU_ASSERT_TRUE(tern_hostfile_is_local(self));
    self[strcspn(self, ".")] = '\0';
    CU_ASSERT_TRUE(tern_hostfile_is_local(self));
    snprintf(name, sizeof name, "%s.some.domain", self);
    CU_ASSERT_TRUE(tern_hostfile_is_local(name));
    snprintf(name, sizeof name, "%sx", self);
    CU_ASSERT_FALSE(tern_hostfile_is_local(name));
    own_address(addr, sizeof addr);
    if (addr[0])
        CU_ASSERT_TRUE(tern_hostfile_is_local(addr));
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s", "/tmp/tern-test-hostfile.XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 99;
    }
    static const struct cunit_test tests[] = {
        { "dialects", test_dialects },
        { "CRLF and repeats", test_crlf_and_repeats },
        { "local names merge", test_local_merge },
        { "errors with file:line:col", test_file_errors },
        { "user@host", test_users },
        { "missing, unreadable, empty", test_file_problems },
        { "-H values", test_spec },
        { "names of this machine", test_is_local },
        { NULL, NULL }
    };
    int rc = cunit_run("hostfile", tests);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return rc;
}
