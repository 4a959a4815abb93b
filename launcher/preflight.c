/*
 * The preflight check shared by mpirun (for the ranks of its own host, in
 * a multi-host job) and tern-hostd (for the ranks of its host): can the
 * program be executed the way execvp() will look for it?
 *
 * A program name with a '/' is taken relative to the ranks' working
 * directory; any other name is searched in each entry of PATH (an empty or
 * relative entry counts from the working directory, as it will for the
 * rank). A candidate must be a regular file with execute permission.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/hostd_proto.h"
#include "tern/err.h"

/* 0 if path is an executable regular file, else an errno value. */
static int runnable(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return errno;
    if (!S_ISREG(st.st_mode))
        return EISDIR;
    return access(path, X_OK) == 0 ? 0 : EACCES;
}

/* dir/name, or name alone when it is absolute. */
static void join(char *out, size_t len, const char *dir, const char *name, size_t nlen)
{
    if (name[0] == '/' || !dir || !*dir)
        snprintf(out, len, "%.*s", (int)nlen, name);
    else
        snprintf(out, len, "%s/%.*s", dir, (int)nlen, name);
}

int tern_preflight_program(const char *dir, const char *prog, const char *path,
                           char *err, size_t errlen)
{
    char cand[8400];
    if (strchr(prog, '/')) {
        join(cand, sizeof cand, dir, prog, strlen(prog));
        int e = runnable(cand);
        if (!e)
            return 0;
        snprintf(err, errlen, "cannot run the program '%.300s' (in %.300s): %s; it "
                 "must exist at the same path on every host", prog, dir && *dir ? dir : ".",
                 e == EISDIR ? "not a regular file" : strerror(e));
        return TERN_EINVAL;
    }
    int denied = 0;
    for (const char *p = path; ; ) {
        size_t n = strcspn(p, ":");
        char entry[4200];
        join(entry, sizeof entry, dir, n ? p : ".", n ? n : 1);
        snprintf(cand, sizeof cand, "%s/%s", entry, prog);
        int e = runnable(cand);
        if (!e)
            return 0;
        denied |= e == EACCES;
        if (!p[n])
            break;
        p += n + 1;
    }
    snprintf(err, errlen, "cannot find the program '%.200s'%s in PATH=%.400s; "
             "install it on this host or give its full path", prog,
             denied ? " as an executable file" : "", path);
    return TERN_EINVAL;
}
