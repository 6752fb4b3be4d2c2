/* swipium/context.h: the library context: logging, the home directory, environment. */
#ifndef SWIPIUM_CONTEXT_H
#define SWIPIUM_CONTEXT_H

#include <swipium/common.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sw_log_level {
	SW_LOG_DEBUG = 0,
	SW_LOG_INFO = 1,
	SW_LOG_WARN = 2,
	SW_LOG_ERROR = 3,
} sw_log_level;

/**
 * Receives one log record. @msg is a short message, @fields_json a JSON
 * object text with structured fields (never NULL, "{}" when empty). The
 * library never prints; the frontend decides where this goes.
 */
typedef void (*sw_log_fn)(sw_log_level level, const char *msg, const char *fields_json, void *userdata);

/** Library context. One per frontend process is typical; not shared between threads without a lock. */
typedef struct sw_ctx sw_ctx;

/**
 * Creates a context. The home directory defaults to $HOME, the log level to
 * the value of SWIPIUM_LOG_LEVEL (debug|info|warn|error, default info) and
 * the log callback to none.
 */
SW_API int sw_ctx_new(sw_ctx **out, sw_error **err);
/** Frees @ctx. NULL is accepted. */
SW_API void sw_ctx_free(sw_ctx *ctx);

/** Sets the log callback (NULL disables logging). */
SW_API void sw_ctx_set_log_fn(sw_ctx *ctx, sw_log_fn fn, void *userdata);
/** Sets the lowest level passed to the log callback. */
SW_API void sw_ctx_set_log_level(sw_ctx *ctx, sw_log_level level);
/** The lowest level passed to the log callback. */
SW_API sw_log_level sw_ctx_get_log_level(const sw_ctx *ctx);
/**
 * Parses a level name (debug|info|warn|error, case-insensitive).
 * Returns SW_EINVAL and leaves @out untouched on an unknown name.
 */
SW_API int sw_log_level_parse(const char *name, sw_log_level *out);

/** Overrides the home directory under which `.swipium/` lives. (copied) */
SW_API int sw_ctx_set_home(sw_ctx *ctx, const char *home, sw_error **err);
/** The home directory in use. (transfer none) */
SW_API const char *sw_ctx_get_home(const sw_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif
