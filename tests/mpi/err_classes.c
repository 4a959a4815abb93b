/*
 * err_classes: error classes, codes and strings that the program adds.
 *
 *  - MPI_Add_error_class and MPI_Add_error_code give values above
 *    MPI_ERR_LASTCODE, all different, the same on every rank (the ranks
 *    add them in the same order), and no class above MPI_LASTUSEDCODE
 *    (the largest error class, says the standard);
 *    MPI_Error_class maps a code to its class (also a code of a predefined
 *    class); MPI_Error_string gives "" until MPI_Add_error_string gives a
 *    string, then that string, and a second MPI_Add_error_string replaces
 *    it.
 *  - MPI_Comm_call_errhandler hands an added code to a user handler.
 *  - Under MPI_ERRORS_RETURN, MPI_ERR_ARG for: a code added to something
 *    that is not a class (an added code, MPI_SUCCESS, an unknown value); a
 *    string for a predefined class or an unknown value; a string of
 *    MPI_MAX_ERROR_STRING characters; MPI_Error_class of an unknown value.
 *  - MPI 4.1's MPI_Remove_error_*: a class with codes, or a code with a
 *    string, cannot be removed; a string that was never added cannot be;
 *    in the right order everything goes, after which the values are
 *    unknown, and new values are not the removed ones.
 *
 * Uses only the standard MPI API (MPI 4.1 for the Remove functions, which
 * the program leaves out elsewhere).
 */
#include "tt.h"

#define NCLASS 3

static int handled = -1;

static void record(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handled = *code;
}

static void expect_arg(int rc, const char *what)
{
    int cls = -1;
    TT_CHECK(rc != MPI_SUCCESS, "%s succeeded; it should fail with MPI_ERR_ARG", what);
    TT_MPI(MPI_Error_class(rc, &cls));
    TT_EQ(what, MPI_ERR_ARG, cls);
}

static void check_string(int code, const char *want, const char *what)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = -1;
    TT_MPI(MPI_Error_string(code, s, &len));
    TT_CHECK(strcmp(s, want) == 0 && len == (int)strlen(want),
             "%s: MPI_Error_string(%d) gave \"%s\" (length %d), expected \"%s\"", what, code,
             s, len, want);
}

/* Every rank got the same value: each sends its value around the ring. */
static void same_everywhere(int v, const char *what)
{
    int prev = -1;
    TT_MPI(MPI_Sendrecv(&v, 1, MPI_INT, tt_next(), 7, &prev, 1, MPI_INT, tt_prev(), 7,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    TT_CHECK(prev == v, "%s: rank %d got %d, this rank %d", what, tt_prev(), prev, v);
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "err_classes");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    int cls[NCLASS], code[NCLASS], other = -1, cl = -1;
    for (int i = 0; i < NCLASS; i++) {
        TT_MPI(MPI_Add_error_class(&cls[i]));
        TT_MPI(MPI_Add_error_code(cls[i], &code[i]));
    }
    TT_MPI(MPI_Add_error_code(MPI_ERR_OTHER, &other));
    int *last = NULL, flag = 0;
    TT_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    TT_CHECK(flag && last, "MPI_LASTUSEDCODE attribute missing");
    for (int i = 0; i < NCLASS; i++) {
        TT_CHECK(cls[i] > MPI_ERR_LASTCODE && code[i] > MPI_ERR_LASTCODE,
                 "added class %d / code %d not above MPI_ERR_LASTCODE %d", cls[i], code[i],
                 MPI_ERR_LASTCODE);
        TT_CHECK(cls[i] <= *last, "added class %d above MPI_LASTUSEDCODE %d", cls[i], *last);
        for (int j = 0; j < i; j++)
            TT_CHECK(cls[i] != cls[j] && code[i] != code[j] && cls[i] != code[j] &&
                     code[i] != cls[j], "added values %d and %d repeat earlier ones", cls[i],
                     code[i]);
        same_everywhere(cls[i], "MPI_Add_error_class value");
        same_everywhere(code[i], "MPI_Add_error_code value");
        TT_MPI(MPI_Error_class(code[i], &cl));
        TT_EQ("MPI_Error_class of an added code", cls[i], cl);
        TT_MPI(MPI_Error_class(cls[i], &cl));
        TT_EQ("MPI_Error_class of an added class", cls[i], cl);
        check_string(code[i], "", "added code without a string");
    }
    TT_MPI(MPI_Error_class(other, &cl));
    TT_EQ("MPI_Error_class of a code added to MPI_ERR_OTHER", MPI_ERR_OTHER, cl);

    TT_MPI(MPI_Add_error_string(cls[0], "the first class"));
    TT_MPI(MPI_Add_error_string(code[0], "first try"));
    TT_MPI(MPI_Add_error_string(code[0], "the first code"));
    check_string(cls[0], "the first class", "added class");
    check_string(code[0], "the first code", "added code, string replaced");

    MPI_Errhandler eh;
    TT_MPI(MPI_Comm_create_errhandler(record, &eh));
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh));
    TT_MPI(MPI_Comm_call_errhandler(MPI_COMM_SELF, code[1]));
    TT_EQ("code the user handler got", code[1], handled);
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    TT_MPI(MPI_Errhandler_free(&eh));

    int unknown = (other > code[NCLASS - 1] ? other : code[NCLASS - 1]) + 1000, dummy;
    expect_arg(MPI_Add_error_code(code[0], &dummy), "MPI_Add_error_code to an added code");
    expect_arg(MPI_Add_error_code(MPI_SUCCESS, &dummy), "MPI_Add_error_code to MPI_SUCCESS");
    expect_arg(MPI_Add_error_code(unknown, &dummy), "MPI_Add_error_code to an unknown class");
    expect_arg(MPI_Add_error_string(MPI_ERR_COUNT, "mine"),
               "MPI_Add_error_string for a predefined class");
    expect_arg(MPI_Add_error_string(unknown, "mine"), "MPI_Add_error_string for an unknown code");
    char longer[MPI_MAX_ERROR_STRING + 1];
    memset(longer, 'x', MPI_MAX_ERROR_STRING);
    longer[MPI_MAX_ERROR_STRING] = '\0';
    expect_arg(MPI_Add_error_string(code[1], longer), "MPI_Add_error_string too long");
    longer[MPI_MAX_ERROR_STRING - 1] = '\0';
    TT_MPI(MPI_Add_error_string(code[1], longer));
    check_string(code[1], longer, "the longest string");
    expect_arg(MPI_Error_class(unknown, &cl), "MPI_Error_class of an unknown code");

#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
    expect_arg(MPI_Remove_error_class(cls[0]), "MPI_Remove_error_class with codes left");
    expect_arg(MPI_Remove_error_code(code[0]), "MPI_Remove_error_code with its string left");
    expect_arg(MPI_Remove_error_string(code[2]), "MPI_Remove_error_string of none");
    expect_arg(MPI_Remove_error_class(code[2]), "MPI_Remove_error_class of a code");
    expect_arg(MPI_Remove_error_code(MPI_ERR_OTHER), "MPI_Remove_error_code of a predefined");
    TT_MPI(MPI_Remove_error_string(code[0]));
    check_string(code[0], "", "added code after its string was removed");
    TT_MPI(MPI_Remove_error_code(code[0]));
    TT_MPI(MPI_Remove_error_class(cls[0]));
    expect_arg(MPI_Error_class(code[0], &cl), "MPI_Error_class of a removed code");
    expect_arg(MPI_Error_class(cls[0], &cl), "MPI_Error_class of a removed class");
    int again = -1;
    TT_MPI(MPI_Add_error_class(&again));
    TT_CHECK(again != cls[0] && again != code[0],
             "a new class took the value %d of a removed one", again);
    same_everywhere(again, "MPI_Add_error_class value after removals");
#endif
    return tt_finish();
}
