#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

/* EVP_PKEY_PUBLIC_KEY is a macro expression Swift cannot import. */
static inline int hardtack_evp_pkey_public_key_selection(void) { return EVP_PKEY_PUBLIC_KEY; }
