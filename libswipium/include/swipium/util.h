/* swipium/util.h: small public helpers: atomic file writes, SHA-256, version. */
#ifndef SWIPIUM_UTIL_H
#define SWIPIUM_UTIL_H

#include <swipium/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Flags of sw_file_write_atomic(). */
enum {
	/** Create missing parent directories (mode 0700). */
	SW_WRITE_MKDIRS = 1u << 0,
	/** Create the file readable by others (0644 less the umask) instead of 0600. */
	SW_WRITE_SHARED = 1u << 1,
};

/**
 * Writes @len bytes to @path atomically: a temporary file in the same
 * directory, fsync, rename, fsync of the directory. Either the old content
 * or the whole new content is there afterwards, never a part. Files are
 * created 0600 unless SW_WRITE_SHARED is given.
 */
SW_API int sw_file_write_atomic(const char *path, const void *data, size_t len, unsigned flags, sw_error **err);

/** Writes the lowercase hex SHA-256 of @data into @hex (65 bytes with the NUL). */
SW_API void sw_sha256_hex(const void *data, size_t len, char hex[65]);

/** The library's version string, e.g. "0.1.0". (transfer none) */
SW_API const char *sw_version(void);
/** The reference product version whose contract this library keeps ("2.2.0"). (transfer none) */
SW_API const char *sw_compatible_with(void);

#ifdef __cplusplus
}
#endif

#endif
