/* swipium/common.h: export macro, result codes, the error object and memory release. */
#ifndef SWIPIUM_COMMON_H
#define SWIPIUM_COMMON_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && __GNUC__ >= 4
#define SW_API __attribute__((visibility("default")))
#else
#define SW_API
#endif

/**
 * Result codes of every fallible call. 0 is success, failures are negative.
 * This list is only ever appended to; values never change.
 */
typedef enum sw_result {
	SW_OK = 0,
	SW_EINVAL = -1,       /**< an argument was missing or malformed */
	SW_ENOMEM = -2,       /**< an allocation failed */
	SW_EIO = -3,          /**< a file or process operation failed */
	SW_ENOTFOUND = -4,    /**< the named thing does not exist */
	SW_EPARSE = -5,       /**< input could not be parsed */
	SW_EEXISTS = -6,      /**< the thing already exists */
	SW_EDENIED = -7,      /**< refused by consent, policy or a safety rule */
	SW_EUNSUPPORTED = -8, /**< not supported by this backend or platform */
	SW_ECANCELLED = -9,   /**< the operation was cancelled */
	SW_ETIMEOUT = -10,    /**< the operation timed out */
	SW_EDEVICE = -11,     /**< the device or its tools failed */
	SW_ESECRET = -12,     /**< output would have carried a registered secret */
	SW_ESTATE = -13,      /**< the object is in the wrong state for this call */
	SW_ELIMIT = -14,      /**< a size or count limit was exceeded */
} sw_result;

/** Details of a failure. Opaque; read it with the getters below. */
typedef struct sw_error sw_error;

/** The short name of a result code ("SW_EINVAL" ...). (transfer none) */
SW_API const char *sw_strerror(int code);

/** The sw_result code of @err. */
SW_API int sw_error_code(const sw_error *err);
/**
 * The product's failure code carried by @err, for example "INVALID_ARGUMENT"
 * or "NO_DEVICE"; "UNKNOWN" when none was set. (transfer none)
 */
SW_API const char *sw_error_failure_code(const sw_error *err);
/** One sentence saying what went wrong. (transfer none) */
SW_API const char *sw_error_message(const sw_error *err);
/** What to do about it, or NULL. (transfer none) (nullable) */
SW_API const char *sw_error_hint(const sw_error *err);
/**
 * Extra structured fields as a JSON object text, or NULL when there are none.
 * (transfer none) (nullable)
 */
SW_API const char *sw_error_details_json(const sw_error *err);
/** Frees @err. NULL is accepted. */
SW_API void sw_error_free(sw_error *err);

/** Frees memory the library handed out through a `char **out` parameter. NULL is accepted. */
SW_API void sw_free(void *ptr);

#ifdef __cplusplus
}
#endif

#endif
