/*
 * The MPI error classes' names ("MPI_ERR_COUNT") and descriptions.
 */
#ifndef TERN_CORE_ERRCLASS_H
#define TERN_CORE_ERRCLASS_H

int tern_errclass_valid(int cls);
const char *tern_errclass_name(int cls);
const char *tern_errclass_text(int cls);

#endif
