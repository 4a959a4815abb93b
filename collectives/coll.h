/*
 * Collective operations, as the API layer sees them.
 *
 * Collectives run on the communicator's hidden context (comm->ctx + 1), so
 * their messages never match the user's receives. This issue has only the
 * barrier; the collectives issue brings the rest, each algorithm in its own
 * file as a start/progress schedule and a selection module.
 */
#ifndef TERN_COLLECTIVES_COLL_H
#define TERN_COLLECTIVES_COLL_H

struct tern_comm;

int tern_coll_barrier(struct tern_comm *comm);

#endif
