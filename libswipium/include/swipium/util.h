/* swipium/util.h: small public helpers: atomic file writes, SHA-256, clocks, project id, version. */
#ifndef SWIPIUM_UTIL_H
#define SWIPIUM_UTIL_H

#include <stdbool.h>
#include <stdint.h>

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
	/** When the file exists, give the new content the mode of the old file. */
	SW_WRITE_KEEP_MODE = 1u << 2,
};

/**
 * Writes @len bytes to @path atomically: a temporary file in the same
 * directory, fsync, rename, fsync of the directory. Either the old content
 * or the whole new content is there afterwards, never a part. Files are
 * created 0600 unless SW_WRITE_SHARED is given.
 */
SW_API int sw_file_write_atomic(const char *path, const void *data, size_t len, unsigned flags, sw_error **err);

/**
 * Turns off core files for the calling process: RLIMIT_CORE 0 (inherited by
 * the children it starts) and, on Linux, PR_SET_DUMPABLE 0 (which also keeps
 * other processes of the same user from reading its memory through ptrace or
 * /proc/<pid>/mem). A crash then leaves no file holding secrets behind.
 * swipium and swipium-mcp call it first thing. SW_EIO when refused.
 */
SW_API int sw_process_disable_core_dumps(sw_error **err);

/** Writes the lowercase hex SHA-256 of @data into @hex (65 bytes with the NUL). */
SW_API void sw_sha256_hex(const void *data, size_t len, char hex[65]);
/**
 * SHA-256 of the file at @path as 64 lowercase hex digits plus NUL, read in
 * 64 KiB pieces (a file is never held in memory whole); @bytes (nullable)
 * receives its size. Fails with SW_ENOTFOUND / SW_EIO.
 */
SW_API int sw_sha256_file_hex(const char *path, char hex[65], uint64_t *bytes, sw_error **err);

/**
 * The longest wait, in milliseconds, of any long-polling call (qa_job_status
 * waitMs, qa_wait timeoutMs, qa_act timeoutMs): client request timeouts are
 * short, so a wait asked for longer is clamped to this with a note.
 */
#define SW_LONG_POLL_MAX_MS 50000
/** The recommended long-poll wait (what next-step hints suggest). */
#define SW_LONG_POLL_HINT_MS 45000

/** Milliseconds of CLOCK_MONOTONIC. Use it for every interval and timeout: it never steps. */
SW_API int64_t sw_monotonic_ms(void);
/** Milliseconds since the Unix epoch (the wall clock). Use it only for timestamps. */
SW_API int64_t sw_wall_ms(void);

/** Size of the buffer sw_iso_time() writes ("2026-01-31T12:00:00.000Z" and the NUL). */
#define SW_ISO_TIME_SIZE 32
/**
 * Writes @ms (milliseconds since the epoch) as ISO 8601 UTC with milliseconds,
 * the form JavaScript's Date.toISOString() gives, into @out. Returns @out.
 */
SW_API char *sw_iso_time(int64_t ms, char out[SW_ISO_TIME_SIZE]);

/** Size of a project id with its NUL. */
#define SW_PROJECT_ID_SIZE 17
/**
 * Writes the project id of @root (an absolute, already resolved project root):
 * the first 16 lowercase hex digits of its SHA-256. Sessions live under
 * `runs/<project id>/` and resources are named `swipium://project/<project id>/`.
 */
SW_API void sw_project_id(const char *root, char out[SW_PROJECT_ID_SIZE]);
/** Where sw_text_cap() leaves text out (the marker SW_CAP_MARKER goes there). */
enum sw_cap_mode {
	/** Keep the head and the tail around the marker (error texts, TOOLS.md §6.5). */
	SW_CAP_HEAD_TAIL = 0,
	/** Keep the head, the marker ends the text. */
	SW_CAP_HEAD = 1,
	/** Keep the tail, the marker starts the text (logs). */
	SW_CAP_TAIL = 2,
};

/** The marker a capped text carries where it was cut: U+2026 HORIZONTAL ELLIPSIS. */
#define SW_CAP_MARKER "\xE2\x80\xA6"

/**
 * The UTF-8-aware way to shorten text for people and protocols: a copy of
 * s[0..len) (@len (size_t)-1: up to the NUL) in which every invalid UTF-8
 * sequence became U+FFFD and which, when longer than @max_chars UTF-16 units
 * (JavaScript's String.length), is cut to exactly @max_chars units including
 * the marker, placed as @mode says. A character is never split. NULL @s gives
 * "". Returns NULL only when out of memory; free with sw_free().
 */
SW_API char *sw_text_cap(const char *s, size_t len, size_t max_chars, enum sw_cap_mode mode);

/** sw_text_cap() of a printf-style text (never cuts inside a character). Free with sw_free(). */
SW_API char *sw_text_capf(size_t max_chars, enum sw_cap_mode mode, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** True when s[0..len) is valid UTF-8 (no overlong forms, no encoded surrogates). */
SW_API bool sw_text_is_valid(const char *s, size_t len);

/**
 * snprintf() that never leaves a broken character: the text is formatted,
 * invalid UTF-8 becomes U+FFFD, and when it does not fit in @size bytes
 * (with the NUL) it is cut at a character boundary and ends with the marker.
 * Returns the number of bytes written (without the NUL); @size 0 writes nothing.
 */
SW_API size_t sw_text_snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/**
 * Rewrites, in place, every JSON-escaped lone surrogate (\uD800-\uDFFF without
 * its pair) inside the strings of the JSON text s[0..len) as \uFFFD (the same
 * length), so a JSON decoder that refuses them (jansson) reads what JSON.parse
 * reads. Everything else stays byte for byte.
 */
SW_API void sw_json_fix_lone_surrogates(char *s, size_t len);

/** The library's version string, e.g. "0.1.0". (transfer none) */
SW_API const char *sw_version(void);
/** The reference product version whose contract this library keeps ("2.2.0"). (transfer none) */
SW_API const char *sw_compatible_with(void);

#ifdef __cplusplus
}
#endif

#endif
