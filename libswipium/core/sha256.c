/* sha256.c: SHA-256 through nettle (GnuTLS's crypto library; Debian nettle-dev). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "sw-internal.h"

static void digest_hex(struct sha256_ctx *c, char hex[65])
{
	static const char digits[] = "0123456789abcdef";
	uint8_t d[SHA256_DIGEST_SIZE];
	sha256_digest(c, sizeof(d), d);
	for (size_t i = 0; i < sizeof(d); i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[64] = '\0';
}

SW_API void sw_sha256_hex(const void *data, size_t len, char hex[65])
{
	struct sha256_ctx c;
	sha256_init(&c);
	sha256_update(&c, len, data);
	digest_hex(&c, hex);
}

SW_API int sw_sha256_file_hex(const char *path, char hex[65], uint64_t *bytes, sw_error **err)
{
	if (!path || !hex)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "path and hex must not be NULL");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (e == ENOENT)
			return sw__error_set(err, SW_ENOTFOUND, "NO_ARTIFACT", NULL, "cannot open %s: %s", path, strerror(e));
		return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot open %s: %s", path, strerror(e));
	}
	struct sha256_ctx c;
	sha256_init(&c);
	uint64_t total = 0;
	uint8_t buf[64 * 1024]; /* streamed: a recording is never read whole into memory */
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot read %s: %s", path, strerror(e));
		}
		if (n == 0)
			break;
		sha256_update(&c, (size_t)n, buf);
		total += (uint64_t)n;
	}
	close(fd);
	digest_hex(&c, hex);
	if (bytes)
		*bytes = total;
	return SW_OK;
}

SW_API const char *sw_version(void)
{
	return SW_VERSION_STRING;
}

SW_API const char *sw_compatible_with(void)
{
	return SW_COMPATIBLE_WITH;
}
