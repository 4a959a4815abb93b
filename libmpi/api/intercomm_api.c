/*
 * MPI_Intercomm_create and MPI_Intercomm_merge (the work is in
 * libmpi/core/intercomm.c).
 */
#include "libmpi/api/api.h"
#include "tern/err.h"

/* The leader's own arguments: peer_comm (an intercommunicator too, whose
 * ranks name its remote group), remote_leader, tag. */
static int check_leader(MPI_Comm peer_comm, int remote_leader, int tag,
                        struct tern_comm **peer)
{
    int rc = tern_check_comm(peer_comm, peer);
    if (!rc && (remote_leader < 0 || remote_leader >= tern_comm_peers(*peer))) {
        tern_api_detail("invalid remote_leader %d: peer_comm has ranks 0 to %d%s",
                        remote_leader, tern_comm_peers(*peer) - 1,
                        (*peer)->remote ? " in its remote group" : "");
        rc = TERN_ERANK;
    }
    if (!rc && !(*peer)->remote && remote_leader == (*peer)->rank) {
        tern_api_detail("invalid remote_leader %d: that is this process, the local leader; "
                        "the two groups must not share a process", remote_leader);
        rc = TERN_ERANK;
    }
    return rc ? rc : tern_check_send_tag(tag);
}

#pragma weak MPI_Intercomm_create = PMPI_Intercomm_create
int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm)
{
    struct tern_comm *c = NULL, *peer = NULL, *nc = NULL;
    int rc = tern_check_comm_ctor(local_comm, &c, newintercomm);
    if (!rc && (local_leader < 0 || local_leader >= c->size)) {
        tern_api_detail("invalid local_leader %d: local_comm has ranks 0 to %d", local_leader,
                        c->size - 1);
        rc = TERN_ERANK;
    }
    if (rc)
        return tern_api_error(c, "MPI_Intercomm_create", rc);
    /* An error in the leader's own arguments fails the call on every
     * member of local_comm, which wait for the leader. */
    int leader_rc = c->rank == local_leader
                        ? check_leader(peer_comm, remote_leader, tag, &peer) : 0;
    rc = tern_intercomm_create(c, local_leader, peer, remote_leader, tag, leader_rc, &nc);
    if (rc == TERN_ECOMM && !leader_rc)
        tern_api_detail("the local and the remote group share a process; an "
                        "intercommunicator needs two disjoint groups");
    else if (rc && !leader_rc && c->rank != local_leader)
        tern_api_detail("the local leader (rank %d of local_comm) failed: %s", local_leader,
                        tern_err_message(rc));
    if (rc) {
        *newintercomm = MPI_COMM_NULL;
        return tern_api_error(c, "MPI_Intercomm_create", rc);
    }
    *newintercomm = nc->handle;
    return MPI_SUCCESS;
}

#pragma weak MPI_Intercomm_merge = PMPI_Intercomm_merge
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    struct tern_comm *c = NULL, *nc = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(intercomm, &c);
    if (!rc && !c->remote) {
        tern_api_detail("invalid communicator: %s is an intracommunicator; "
                        "MPI_Intercomm_merge takes an intercommunicator", tern_comm_label(c));
        rc = TERN_ECOMM;
    }
    if (!rc)
        rc = tern_check_ptr(newintracomm, "newintracomm");
    if (!rc)
        rc = tern_intercomm_merge(c, high, &nc);
    if (rc)
        return tern_api_error(c, "MPI_Intercomm_merge", rc);
    *newintracomm = nc->handle;
    return MPI_SUCCESS;
}
