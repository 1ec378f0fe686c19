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

/// `EVP_PKEY_PUBLIC_KEY` is a composite macro that Swift does not import.
static inline int cmultiauth_selection_public_key(void) { return EVP_PKEY_PUBLIC_KEY; }
#endif
