/* sha256.c: SHA-256 through nettle (GnuTLS's crypto library; Debian nettle-dev). */
#include <nettle/sha2.h>

#include "sw-internal.h"

SW_API void sw_sha256_hex(const void *data, size_t len, char hex[65])
{
	static const char digits[] = "0123456789abcdef";
	struct sha256_ctx c;
	uint8_t d[SHA256_DIGEST_SIZE];
	sha256_init(&c);
	sha256_update(&c, len, data);
	sha256_digest(&c, sizeof(d), d);
	for (size_t i = 0; i < sizeof(d); i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[64] = '\0';
}

SW_API const char *sw_version(void)
{
	return SW_VERSION_STRING;
}

SW_API const char *sw_compatible_with(void)
{
	return SW_COMPATIBLE_WITH;
}
