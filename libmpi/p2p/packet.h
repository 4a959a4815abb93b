/*
 * The p2p wire header, the same on every transport. Every packet starts
 * with it; EAGER and DATA packets carry payload after it.
 *
 *   EAGER  whole message: envelope + payload. flags SYNC asks for an ACK.
 *   EAGER_SHORT the same without SYNC, whose receiver needs neither the
 *          sender's request nor `aux`: the envelope alone (struct
 *          tern_pkt_short, 24 bytes instead of 40). On shared memory a cell's
 *          first cache line, which the receiver polls, then holds 32 bytes
 *          of payload instead of 16 (transports/shm/ring.h).
 *   RTS    request to send `len` bytes: envelope, the sender's request, and
 *          `aux` = the sender's buffer address when a single-copy read is
 *          possible (0 otherwise); 8 bytes of payload carry the key under
 *          which the transport exposed that buffer (transport.h).
 *   CTS    receiver matched an RTS and wants the bytes pipelined: `sreq` is
 *          the sender's request, `aux` the receiver's.
 *   DATA   a chunk of a pipelined message; `aux` is the receiver's request;
 *          chunks arrive in order.
 *   FIN    receiver finished a single-copy read: `sreq` may complete.
 *   ACK    a synchronous eager send was matched: `sreq` may complete.
 *   RECALL the sender of RTS `sreq` takes back the offer of its buffer (the
 *          call it sent from failed, and its caller gets the buffer back):
 *          a receiver that has not matched the RTS yet answers RECALLED and
 *          asks for the bytes pipelined if it ever matches it; one that has
 *          answers nothing, as the FIN or CTS it owes follows anyway.
 *   RECALLED the receiver will not read the buffer of `sreq`.
 *   CANCEL the sender of `sreq` (a synchronous EAGER or an RTS that no ACK,
 *          CTS or FIN answered yet) asks to withdraw it (MPI_Cancel): a
 *          receiver that has not matched it yet drops it. It follows the
 *          message on the same link, so the message is there by then.
 *   CANCEL_ANSWER `aux` is 1 if the message of `sreq` was withdrawn, 0 if a
 *          receive had matched it (its ACK, CTS or FIN came before).
 *
 * Request ids are the requests' addresses; they never leave the job.
 */
#ifndef TERN_P2P_PACKET_H
#define TERN_P2P_PACKET_H

#include <stdint.h>

enum tern_pkt_type {
    TERN_PKT_EAGER = 1,
    TERN_PKT_RTS,
    TERN_PKT_CTS,
    TERN_PKT_DATA,
    TERN_PKT_FIN,
    TERN_PKT_ACK,
    TERN_PKT_RECALL,
    TERN_PKT_RECALLED,
    TERN_PKT_CANCEL,
    TERN_PKT_CANCEL_ANSWER,
    TERN_PKT_EAGER_SHORT
};

#define TERN_PKT_SYNC 0x1

struct tern_pkt {
    uint8_t type;
    uint8_t flags;
    uint16_t reserved;
    int32_t tag;
    int32_t src;      /* Sender's rank in the communicator. */
    uint32_t ctx;     /* Context id of the communicator. */
    uint64_t len;     /* Message length in bytes. */
    uint64_t sreq;    /* Sender's request. */
    uint64_t aux;     /* Meaning depends on type, see above. */
};

/* The header of EAGER_SHORT: struct tern_pkt's first fields, with the
 * length in 32 bits; a multiple of 8 bytes, so the payload stays aligned. */
struct tern_pkt_short {
    uint8_t type;
    uint8_t flags;
    uint16_t reserved;
    int32_t tag;
    int32_t src;
    uint32_t ctx;
    uint32_t len;
    uint32_t pad;
};

#endif
