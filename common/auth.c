/*
 * Job secret and mutual HMAC-SHA256 handshake; see include/tern/auth.h.
 *
 * Randomness comes from getrandom(2), with OpenSSL's RAND_bytes as fallback.
 * The MAC is libcrypto's one-shot HMAC(); nothing here is hand-written
 * cryptography. The blocking helpers keep one deadline for the whole
 * exchange and wait in poll(), so a silent peer costs at most the timeout.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "tern/auth.h"
#include "tern/clock.h"
#include "tern/err.h"

int tern_auth_random(void *buf, size_t len)
{
    unsigned char *p = buf;
    size_t done = 0;
    while (done < len) {
        ssize_t n = getrandom(p + done, len - done, 0);
        if (n > 0) {
            done += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            break;
        }
    }
    if (done == len)
        return 0;
    return RAND_bytes(p + done, (int)(len - done)) == 1 ? 0 : TERN_EIO;
}

int tern_auth_secret_new(unsigned char secret[TERN_AUTH_SECRET_LEN])
{
    return tern_auth_random(secret, TERN_AUTH_SECRET_LEN);
}

void tern_auth_hex(const unsigned char *bytes, size_t len, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * len] = '\0';
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int tern_auth_secret_parse(const char *hex, unsigned char secret[TERN_AUTH_SECRET_LEN])
{
    if (!hex || strlen(hex) != 2 * TERN_AUTH_SECRET_LEN)
        return TERN_EINVAL;
    for (int i = 0; i < TERN_AUTH_SECRET_LEN; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return TERN_EINVAL;
        secret[i] = (unsigned char)(hi << 4 | lo);
    }
    return 0;
}

/* HMAC-SHA256 over label || a || b with the job secret as key. */
static int mac3(const unsigned char *secret, const char *label,
                const unsigned char *a, const unsigned char *b,
                unsigned char out[TERN_AUTH_MAC_LEN])
{
    unsigned char msg[16 + 2 * TERN_AUTH_NONCE_LEN];
    size_t ll = strlen(label);
    memcpy(msg, label, ll);
    memcpy(msg + ll, a, TERN_AUTH_NONCE_LEN);
    memcpy(msg + ll + TERN_AUTH_NONCE_LEN, b, TERN_AUTH_NONCE_LEN);
    unsigned int outlen = 0;
    if (!HMAC(EVP_sha256(), secret, TERN_AUTH_SECRET_LEN, msg,
              ll + 2 * TERN_AUTH_NONCE_LEN, out, &outlen) ||
        outlen != TERN_AUTH_MAC_LEN)
        return TERN_EINTERN;
    return 0;
}

int tern_auth_server_challenge(struct tern_auth_server *st,
                               unsigned char out[TERN_AUTH_CHALLENGE_LEN])
{
    if (tern_auth_random(st->nonce, sizeof st->nonce))
        return TERN_EIO;
    memcpy(out, TERN_AUTH_MAGIC, TERN_AUTH_MAGIC_LEN);
    memcpy(out + TERN_AUTH_MAGIC_LEN, st->nonce, TERN_AUTH_NONCE_LEN);
    return 0;
}

int tern_auth_server_check(const struct tern_auth_server *st,
                           const unsigned char secret[TERN_AUTH_SECRET_LEN],
                           const unsigned char resp[TERN_AUTH_RESPONSE_LEN],
                           unsigned char proof[TERN_AUTH_PROOF_LEN])
{
    unsigned char want[TERN_AUTH_MAC_LEN];
    const unsigned char *nonce_c = resp;
    if (mac3(secret, "tern-client", st->nonce, nonce_c, want))
        return TERN_EINTERN;
    if (CRYPTO_memcmp(want, resp + TERN_AUTH_NONCE_LEN, TERN_AUTH_MAC_LEN) != 0)
        return TERN_EAUTH;
    return mac3(secret, "tern-server", nonce_c, st->nonce, proof);
}

int tern_auth_client_respond(struct tern_auth_client *st,
                             const unsigned char secret[TERN_AUTH_SECRET_LEN],
                             const unsigned char chal[TERN_AUTH_CHALLENGE_LEN],
                             unsigned char resp[TERN_AUTH_RESPONSE_LEN])
{
    const unsigned char *nonce_s = chal + TERN_AUTH_MAGIC_LEN;
    if (memcmp(chal, TERN_AUTH_MAGIC, TERN_AUTH_MAGIC_LEN) != 0)
        return TERN_EAUTH;
    if (tern_auth_random(resp, TERN_AUTH_NONCE_LEN))
        return TERN_EIO;
    if (mac3(secret, "tern-client", nonce_s, resp, resp + TERN_AUTH_NONCE_LEN))
        return TERN_EINTERN;
    return mac3(secret, "tern-server", resp, nonce_s, st->expect);
}

int tern_auth_client_check(const struct tern_auth_client *st,
                           const unsigned char proof[TERN_AUTH_PROOF_LEN])
{
    return CRYPTO_memcmp(st->expect, proof, TERN_AUTH_PROOF_LEN) == 0 ? 0 : TERN_EAUTH;
}

/* Moves exactly len bytes in one direction before the deadline. */
static int xfer(int fd, void *buf, size_t len, int writing, long long deadline)
{
    unsigned char *p = buf;
    while (len > 0) {
        long long left = deadline - tern_clock_ms();
        if (left <= 0)
            return TERN_ETIMEDOUT;
        struct pollfd pf = { .fd = fd, .events = writing ? POLLOUT : POLLIN };
        int r = poll(&pf, 1, (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return TERN_EIO;
        if (r == 0)
            return TERN_ETIMEDOUT;
        ssize_t n = writing ? send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT)
                            : recv(fd, p, len, MSG_DONTWAIT);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
        } else if (n == 0) {
            return TERN_EPEER;
        } else if (errno == EPIPE || errno == ECONNRESET) {
            return TERN_EPEER;
        } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
            return TERN_EIO;
        }
    }
    return 0;
}

int tern_auth_client(int fd, const unsigned char secret[TERN_AUTH_SECRET_LEN],
                     int timeout_ms)
{
    long long deadline = tern_clock_ms() + timeout_ms;
    unsigned char chal[TERN_AUTH_CHALLENGE_LEN], resp[TERN_AUTH_RESPONSE_LEN];
    unsigned char proof[TERN_AUTH_PROOF_LEN];
    struct tern_auth_client st;
    int rc = xfer(fd, chal, sizeof chal, 0, deadline);
    if (!rc)
        rc = tern_auth_client_respond(&st, secret, chal, resp);
    if (!rc)
        rc = xfer(fd, resp, sizeof resp, 1, deadline);
    if (!rc)
        rc = xfer(fd, proof, sizeof proof, 0, deadline);
    if (!rc)
        rc = tern_auth_client_check(&st, proof);
    return rc;
}

int tern_auth_server(int fd, const unsigned char secret[TERN_AUTH_SECRET_LEN],
                     int timeout_ms)
{
    long long deadline = tern_clock_ms() + timeout_ms;
    unsigned char chal[TERN_AUTH_CHALLENGE_LEN], resp[TERN_AUTH_RESPONSE_LEN];
    unsigned char proof[TERN_AUTH_PROOF_LEN];
    struct tern_auth_server st;
    int rc = tern_auth_server_challenge(&st, chal);
    if (!rc)
        rc = xfer(fd, chal, sizeof chal, 1, deadline);
    if (!rc)
        rc = xfer(fd, resp, sizeof resp, 0, deadline);
    if (!rc)
        rc = tern_auth_server_check(&st, secret, resp, proof);
    if (!rc)
        rc = xfer(fd, proof, sizeof proof, 1, deadline);
    return rc;
}
