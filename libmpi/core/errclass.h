/*
 * The MPI error classes' names ("MPI_ERR_COUNT") and descriptions, and the
 * classes, codes and strings that the program adds (MPI_Add_error_class,
 * MPI_Add_error_code, MPI_Add_error_string) and removes (MPI 4.1's
 * MPI_Remove_error_*).
 *
 * Added values are numbered from MPI_ERR_LASTCODE + 1 up, classes and
 * codes alike, in the order the program adds them: ranks that add them in
 * the same order get the same values, as the standard asks of a good
 * implementation. A removed value is never given out again.
 */
#ifndef TERN_CORE_ERRCLASS_H
#define TERN_CORE_ERRCLASS_H

/* Whether `code` is a predefined error class or an added class or code
 * that was not removed. Predefined codes are their own classes. */
int tern_errclass_valid(int code);
/* The class of a valid code. */
int tern_errclass_of(int code);
/* "MPI_ERR_COUNT"; "a class the program added" for added values. */
const char *tern_errclass_name(int code);
/* The description of a predefined class; for an added value its string
 * (MPI_Add_error_string), "" if none. */
const char *tern_errclass_text(int code);

/* Whether code is an added class (not removed); an added code (not
 * removed); and for either, whether it has a string. */
int tern_errclass_is_added_class(int code);
int tern_errclass_is_added_code(int code);
int tern_errclass_has_string(int code);
/* How many codes added to class `cls` remain. */
int tern_errclass_codes_of(int cls);

/* Adds a class (cls < 0) or a code of class cls (valid, a class); its
 * value in *value. 0 or TERN_ENOMEM. */
int tern_errclass_add(int cls, int *value);
/* Gives added value `code` the string s (NULL removes it); 0 or TERN_ENOMEM. */
int tern_errclass_set_string(int code, const char *s);
/* Removes added value `code`, and its string. */
void tern_errclass_remove(int code);
/* MPI_LASTUSEDCODE: the largest error class, as the standard defines it:
 * the largest added class not removed, else MPI_ERR_LASTCODE (which is
 * above every predefined class). */
int tern_errclass_last(void);

#endif
