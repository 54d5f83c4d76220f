// The one C header SnapCrypto sees: OpenSSL's libcrypto message digests (libssl-dev).
#include <openssl/evp.h>
