// System library shim: the parts of OpenSSL libcrypto (3.x) that MultiAuthCrypto calls on Linux.
#ifndef CMULTIAUTHCRYPTO_SHIM_H
#define CMULTIAUTHCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/ec.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>

#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

/// `EVP_PKEY_PUBLIC_KEY` is a composite macro that Swift does not import.
static inline int cmultiauth_selection_public_key(void) { return EVP_PKEY_PUBLIC_KEY; }

// HMAC (RFC 2104) from precomputed key states. The key is absorbed once: `inner` is the hash
// state after the block K XOR ipad, `outer` after K XOR opad (a key longer than the block is
// hashed first, RFC 2104 section 2). Each MAC copies the two states into stack contexts and
// absorbs only the message and the inner digest, so the keyed states are never written after
// creation: any number of threads may MAC with one key at once. The digests are libcrypto's own
// SHA1/SHA256/SHA512 primitives (deprecated in OpenSSL 3 in favour of EVP, whose per-call
// dispatch costs more than the two compression-function blocks an HOTP counter needs).
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"

/// The hash of a `cmultiauth_hmac_key`: the digest length in bytes.
enum { CMULTIAUTH_HMAC_SHA1 = 20, CMULTIAUTH_HMAC_SHA256 = 32, CMULTIAUTH_HMAC_SHA512 = 64 };

/// One hash state of any of the three hashes.
typedef union cmultiauth_hmac_state {
    SHA_CTX sha1;
    SHA256_CTX sha256;
    SHA512_CTX sha512;
} cmultiauth_hmac_state;

/// The keyed inner and outer hash states of one HMAC key; immutable once created.
typedef struct cmultiauth_hmac_key {
    int digest_length;
    cmultiauth_hmac_state inner, outer;
} cmultiauth_hmac_key;

/// Starts `state` for the hash whose digest is `digest_length` bytes and absorbs one block of
/// the key (`length` bytes, at most one block) XOR `pad`. Returns 1, or 0 if libcrypto fails.
static inline int cmultiauth_hmac_absorb(int digest_length, cmultiauth_hmac_state *state, const unsigned char *key,
                                         size_t length, unsigned char pad) {
    unsigned char block[SHA512_CBLOCK];
    size_t block_length = digest_length == CMULTIAUTH_HMAC_SHA512 ? SHA512_CBLOCK : SHA_CBLOCK;
    memset(block, pad, block_length);
    for (size_t index = 0; index < length; index++) block[index] ^= key[index];
    int ok;
    switch (digest_length) {
    case CMULTIAUTH_HMAC_SHA1: ok = SHA1_Init(&state->sha1) && SHA1_Update(&state->sha1, block, block_length); break;
    case CMULTIAUTH_HMAC_SHA256:
        ok = SHA256_Init(&state->sha256) && SHA256_Update(&state->sha256, block, block_length);
        break;
    case CMULTIAUTH_HMAC_SHA512:
        ok = SHA512_Init(&state->sha512) && SHA512_Update(&state->sha512, block, block_length);
        break;
    default: ok = 0;
    }
    OPENSSL_cleanse(block, sizeof block);
    return ok;
}

/// Creates the keyed states of `key` (`length` bytes, 0 or more; a NULL `key` only with length 0)
/// for the hash whose digest is `digest_length` bytes (a `CMULTIAUTH_HMAC_*` value). Returns NULL
/// for an unknown digest length or when memory or libcrypto fails. Free with
/// `cmultiauth_hmac_key_free`.
static inline cmultiauth_hmac_key *cmultiauth_hmac_key_new(int digest_length, const unsigned char *key,
                                                           size_t length) {
    if (digest_length != CMULTIAUTH_HMAC_SHA1 && digest_length != CMULTIAUTH_HMAC_SHA256
        && digest_length != CMULTIAUTH_HMAC_SHA512)
        return NULL;
    size_t block_length = digest_length == CMULTIAUTH_HMAC_SHA512 ? SHA512_CBLOCK : SHA_CBLOCK;
    unsigned char hashed[SHA512_DIGEST_LENGTH];
    if (length > block_length) {
        unsigned char *done = NULL;
        switch (digest_length) {
        case CMULTIAUTH_HMAC_SHA1: done = SHA1(key, length, hashed); break;
        case CMULTIAUTH_HMAC_SHA256: done = SHA256(key, length, hashed); break;
        default: done = SHA512(key, length, hashed); break;
        }
        if (done == NULL) return NULL;
        key = hashed;
        length = (size_t)digest_length;
    }
    cmultiauth_hmac_key *state = calloc(1, sizeof *state);
    if (state == NULL) {
        OPENSSL_cleanse(hashed, sizeof hashed);
        return NULL;
    }
    state->digest_length = digest_length;
    int ok = cmultiauth_hmac_absorb(digest_length, &state->inner, key, length, 0x36)
             && cmultiauth_hmac_absorb(digest_length, &state->outer, key, length, 0x5c);
    OPENSSL_cleanse(hashed, sizeof hashed);
    if (!ok) {
        OPENSSL_cleanse(state, sizeof *state);
        free(state);
        return NULL;
    }
    return state;
}

/// Erases and frees the states of `cmultiauth_hmac_key_new` (NULL is allowed).
static inline void cmultiauth_hmac_key_free(cmultiauth_hmac_key *state) {
    if (state == NULL) return;
    OPENSSL_cleanse(state, sizeof *state);
    free(state);
}

/// 8-byte words that may alias any type: the hash contexts are copied as words, which the
/// optimiser turns into one `rep movsq` or a short move sequence instead of a copy 4 bytes at a
/// time (the unions are 8-aligned, SHA512_CTX holding 64-bit words).
typedef unsigned long long __attribute__((may_alias)) cmultiauth_hmac_word;

/// Copies the first `size` bytes of a keyed state into a stack state, rounded up to whole words
/// (the union's size is a multiple of its 8-byte alignment and at least each member's, so the
/// rounding stays inside both).
static inline void cmultiauth_hmac_copy(cmultiauth_hmac_state *to, const cmultiauth_hmac_state *from,
                                        size_t size) {
    cmultiauth_hmac_word *target = (cmultiauth_hmac_word *)to;
    const cmultiauth_hmac_word *source = (const cmultiauth_hmac_word *)from;
    size_t words = (size + sizeof(cmultiauth_hmac_word) - 1) / sizeof(cmultiauth_hmac_word);
    for (size_t index = 0; index < words; index++) target[index] = source[index];
}

/// Writes the HMAC of `message` (`length` bytes) under `state` to `out` (room for
/// `state->digest_length` bytes) and returns that length, or 0 if libcrypto fails. Reads
/// `state` only: safe to call from many threads with one state.
static inline int cmultiauth_hmac_key_mac(const cmultiauth_hmac_key *state, const void *message, size_t length,
                                          unsigned char *out) {
    unsigned char inner[SHA512_DIGEST_LENGTH];
    cmultiauth_hmac_state context;
    int ok;
    switch (state->digest_length) {
    case CMULTIAUTH_HMAC_SHA1:
        cmultiauth_hmac_copy(&context, &state->inner, sizeof(SHA_CTX));
        ok = SHA1_Update(&context.sha1, message, length) && SHA1_Final(inner, &context.sha1);
        cmultiauth_hmac_copy(&context, &state->outer, sizeof(SHA_CTX));
        ok = ok && SHA1_Update(&context.sha1, inner, SHA_DIGEST_LENGTH) && SHA1_Final(out, &context.sha1);
        break;
    case CMULTIAUTH_HMAC_SHA256:
        cmultiauth_hmac_copy(&context, &state->inner, sizeof(SHA256_CTX));
        ok = SHA256_Update(&context.sha256, message, length) && SHA256_Final(inner, &context.sha256);
        cmultiauth_hmac_copy(&context, &state->outer, sizeof(SHA256_CTX));
        ok = ok && SHA256_Update(&context.sha256, inner, SHA256_DIGEST_LENGTH) && SHA256_Final(out, &context.sha256);
        break;
    case CMULTIAUTH_HMAC_SHA512:
        cmultiauth_hmac_copy(&context, &state->inner, sizeof(SHA512_CTX));
        ok = SHA512_Update(&context.sha512, message, length) && SHA512_Final(inner, &context.sha512);
        cmultiauth_hmac_copy(&context, &state->outer, sizeof(SHA512_CTX));
        ok = ok && SHA512_Update(&context.sha512, inner, SHA512_DIGEST_LENGTH) && SHA512_Final(out, &context.sha512);
        break;
    default: ok = 0;
    }
    return ok ? state->digest_length : 0;
}
#pragma clang diagnostic pop
#endif
