/*
 * The job secret and the handshake that opens every Tern TCP connection.
 *
 * mpirun draws a 256-bit random secret per job and hands it to ranks in the
 * environment as 64 hex digits (TERN_JOB_SECRET), never on a command line.
 * Every connection then starts with a mutual HMAC-SHA256 challenge-response,
 * so each side proves it knows the secret without sending it:
 *
 *   server -> client  CHALLENGE  "TERNAUT1" + nonce_s                 (40 bytes)
 *   client -> server  RESPONSE   nonce_c + HMAC(k, "client" nonce_s nonce_c)  (64)
 *   server -> client  PROOF      HMAC(k, "server" nonce_c nonce_s)   (32 bytes)
 *
 * Distinct labels and nonce order keep a response from being reflected as a
 * proof. MACs are compared in constant time. The blocking helpers bound the
 * whole exchange by a timeout; an event loop uses the step functions and
 * moves the bytes itself. Errors: TERN_EAUTH for a wrong MAC or magic,
 * TERN_ETIMEDOUT, TERN_EPEER, TERN_EIO.
 */
#ifndef TERN_AUTH_H
#define TERN_AUTH_H

#include <stddef.h>

#define TERN_AUTH_SECRET_LEN 32
#define TERN_AUTH_SECRET_HEX (2 * TERN_AUTH_SECRET_LEN + 1)
#define TERN_AUTH_NONCE_LEN 32
#define TERN_AUTH_MAC_LEN 32
#define TERN_AUTH_MAGIC "TERNAUT1"
#define TERN_AUTH_MAGIC_LEN 8
#define TERN_AUTH_CHALLENGE_LEN (TERN_AUTH_MAGIC_LEN + TERN_AUTH_NONCE_LEN)
#define TERN_AUTH_RESPONSE_LEN (TERN_AUTH_NONCE_LEN + TERN_AUTH_MAC_LEN)
#define TERN_AUTH_PROOF_LEN TERN_AUTH_MAC_LEN
/* Default bound on a whole handshake, in milliseconds. */
#define TERN_AUTH_TIMEOUT_MS 10000

/* Fills buf with cryptographically strong random bytes. */
int tern_auth_random(void *buf, size_t len);

/* Creates a new job secret. */
int tern_auth_secret_new(unsigned char secret[TERN_AUTH_SECRET_LEN]);

/* Lower-case hex of len bytes into out (2*len+1 bytes, NUL-terminated). */
void tern_auth_hex(const unsigned char *bytes, size_t len, char *out);

/* Parses a secret from exactly 64 hex digits; TERN_EINVAL otherwise. */
int tern_auth_secret_parse(const char *hex, unsigned char secret[TERN_AUTH_SECRET_LEN]);

/* Server side, step by step. */
struct tern_auth_server {
    unsigned char nonce[TERN_AUTH_NONCE_LEN];
};
int tern_auth_server_challenge(struct tern_auth_server *st,
                               unsigned char out[TERN_AUTH_CHALLENGE_LEN]);
/* Checks the client's response; on success writes the proof to send back. */
int tern_auth_server_check(const struct tern_auth_server *st,
                           const unsigned char secret[TERN_AUTH_SECRET_LEN],
                           const unsigned char resp[TERN_AUTH_RESPONSE_LEN],
                           unsigned char proof[TERN_AUTH_PROOF_LEN]);

/* Client side, step by step: answer a challenge, then check the proof. */
struct tern_auth_client {
    unsigned char expect[TERN_AUTH_PROOF_LEN];
};
int tern_auth_client_respond(struct tern_auth_client *st,
                             const unsigned char secret[TERN_AUTH_SECRET_LEN],
                             const unsigned char chal[TERN_AUTH_CHALLENGE_LEN],
                             unsigned char resp[TERN_AUTH_RESPONSE_LEN]);
int tern_auth_client_check(const struct tern_auth_client *st,
                           const unsigned char proof[TERN_AUTH_PROOF_LEN]);

/* Whole handshakes on a connected socket, bounded by timeout_ms. */
int tern_auth_client(int fd, const unsigned char secret[TERN_AUTH_SECRET_LEN],
                     int timeout_ms);
int tern_auth_server(int fd, const unsigned char secret[TERN_AUTH_SECRET_LEN],
                     int timeout_ms);

#endif
