/* sw-internal.h: helpers shared by every libswipium module; never installed. */
#ifndef SW_INTERNAL_H
#define SW_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/types.h>
#include <time.h>

#include <jansson.h>

#include <swipium/swipium.h>

#define SW_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__GNUC__)
#define SW_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SW_PRINTF(f, a)
#endif

/* ---- errors ------------------------------------------------------------ */

/*
 * Sets *err (when err is non-NULL and *err is NULL) and returns @code, so a
 * failing path reads `return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "...")`.
 * @failure_code and @hint may be NULL.
 */
int sw__error_set(sw_error **err, int code, const char *failure_code, const char *hint, const char *fmt, ...)
	SW_PRINTF(5, 6);
int sw__error_setv(sw_error **err, int code, const char *failure_code, const char *hint, const char *fmt,
		   va_list ap) SW_PRINTF(5, 0);
/* Sets an "out of memory" error and returns SW_ENOMEM. */
int sw__error_nomem(sw_error **err);
/* Attaches structured details to an existing error (takes ownership of @details). */
void sw__error_take_details(sw_error *err, json_t *details);
/* The details object of @err, or NULL. (transfer none) */
json_t *sw__error_details(const sw_error *err);
/* Moves *src into *dst when dst is non-NULL (and empty); frees it otherwise. */
void sw__error_propagate(sw_error **dst, sw_error *src);

/* ---- logging ----------------------------------------------------------- */

/* Logs through the context's callback. @fields may be NULL; it is not stolen. */
void sw__log(const sw_ctx *ctx, sw_log_level level, json_t *fields, const char *fmt, ...) SW_PRINTF(4, 5);
#define sw__log_debug(ctx, ...) sw__log((ctx), SW_LOG_DEBUG, NULL, __VA_ARGS__)
#define sw__log_info(ctx, ...) sw__log((ctx), SW_LOG_INFO, NULL, __VA_ARGS__)
#define sw__log_warn(ctx, ...) sw__log((ctx), SW_LOG_WARN, NULL, __VA_ARGS__)
#define sw__log_error(ctx, ...) sw__log((ctx), SW_LOG_ERROR, NULL, __VA_ARGS__)

/* ---- growable byte buffer --------------------------------------------- */

typedef struct sw_buf {
	char *data; /* always NUL-terminated when non-NULL */
	size_t len;
	size_t cap;
	bool failed; /* an allocation failed; later appends are no-ops */
} sw_buf;

#define SW_BUF_INIT {NULL, 0, 0, false}

bool sw__buf_reserve(sw_buf *b, size_t extra);
void sw__buf_append(sw_buf *b, const void *data, size_t len);
void sw__buf_puts(sw_buf *b, const char *s);
void sw__buf_putc(sw_buf *b, char c);
void sw__buf_printf(sw_buf *b, const char *fmt, ...) SW_PRINTF(2, 3);
/* Hands the data to the caller (never NULL unless failed) and resets @b. */
char *sw__buf_steal(sw_buf *b, size_t *len_out);
void sw__buf_free(sw_buf *b);

/* ---- strings and UTF-8 ------------------------------------------------- */

char *sw__strdup(const char *s);
char *sw__strndup(const char *s, size_t n);
char *sw__asprintf(const char *fmt, ...) SW_PRINTF(1, 2);
bool sw__str_has_prefix(const char *s, const char *prefix);
bool sw__str_has_suffix(const char *s, const char *suffix);
/* Whether @s (nullable: false) equals one of @set, a NULL-terminated list. */
bool sw__str_one_of(const char *s, const char *const *set);
/* The value of the hexadecimal digit @c (0-9, a-f, A-F), or -1. */
int sw__hex_digit(char c);
/* The ASCII letters (lower-cased) and digits of @s; every other byte is dropped. NULL is "". (transfer full) */
char *sw__fold_alnum(const char *s);

/* Decodes one UTF-8 sequence at s[0..len). Returns its length (1..4) and the
 * code point in *cp, or 0 for an invalid or truncated sequence. */
size_t sw__utf8_decode(const unsigned char *s, size_t len, uint32_t *cp);
/* Encodes @cp into out (4 bytes room); returns the number of bytes. */
size_t sw__utf8_encode(uint32_t cp, char out[4]);
bool sw__utf8_valid(const char *s, size_t len);
/* A copy of s[0..len) where every invalid sequence became U+FFFD. */
char *sw__utf8_sanitize(const char *s, size_t len);
/* Number of UTF-16 code units of valid UTF-8 text (JavaScript's String.length). */
size_t sw__utf16_len(const char *s, size_t len);
/* Byte length of the longest prefix of s holding at most @units UTF-16 units
 * without splitting a character. */
size_t sw__utf16_prefix_bytes(const char *s, size_t len, size_t units);
/* Byte offset where the longest suffix of s holding at most @units UTF-16 units
 * starts, without splitting a character. */
size_t sw__utf16_suffix_start(const char *s, size_t len, size_t units);
/*
 * The one way text is shortened (TOOLS.md §6.5): s[0..len) with every invalid
 * sequence as U+FFFD, and when it holds more than @max UTF-16 units, cut to
 * @max units with the marker SW_CAP_MARKER ("…") where text was left out:
 * between head and tail (SW_CAP_HEAD_TAIL), at the end (SW_CAP_HEAD) or at the
 * start (SW_CAP_TAIL). Never splits a character. Appends to @b.
 */
void sw__buf_cap(sw_buf *b, const char *s, size_t len, size_t max, unsigned mode);
/* sw__buf_cap into a new string (NULL only when out of memory; NULL @s is ""). */
char *sw__utf8_cap(const char *s, size_t len, size_t max, unsigned mode);
/* sw__utf8_cap of a NUL-terminated text (NULL is ""), head and tail kept: for message arguments. Free it. */
char *sw__cap(const char *s, size_t max);
/* Escaped lone surrogates (\ud800 without its pair) inside JSON strings become
 * \ufffd in place (same length), so jansson decodes what JSON.parse accepts. */
void sw__json_fix_lone_surrogates(char *s, size_t len);

/* ---- files ------------------------------------------------------------- */

/* mkdir -p with @mode for the directories it creates. */
int sw__mkdirs(const char *path, mode_t mode, sw_error **err);
/* Reads a whole file of at most @max bytes (NUL-terminated). SW_ELIMIT when larger. */
int sw__read_file(const char *path, size_t max, char **out, size_t *len_out, sw_error **err);
/* write(2) all of data, retrying on EINTR and short writes; 0, or -1 with errno set */
int sw__write_all(int fd, const char *data, size_t len);
/*
 * A flag of sw_file_write_atomic() for the library's own files whose loss in a crash is harmless (they
 * are rebuilt or only save work): still a temporary file and a rename, so never torn, but neither the file
 * nor its folder is fsync'ed. The journal's position mark uses it (an old or missing mark replays a few
 * journal lines twice, which the load drops; see store/journal.c).
 */
#define SW__WRITE_NO_SYNC (1u << 30)
bool sw__is_dir(const char *path);
bool sw__is_file(const char *path);
/* Joins two path parts with one '/'. */
char *sw__path_join(const char *a, const char *b);
/* Absolute, lexically normalised form of @path relative to @cwd (or getcwd()). */
char *sw__path_resolve(const char *cwd, const char *path);
/* realpath(), falling back to sw__path_resolve() when it fails. */
char *sw__path_real_or_resolved(const char *path);

/* ---- project confinement (core/confine.c) ------------------------------ */

/* Flags of sw__confine() and sw__confine_open(). */
#define SW__CONFINE_EXISTING 1u /* the path must exist (SW_ENOTFOUND otherwise) */
#define SW__CONFINE_MKDIRS 2u   /* create missing parent folders (0700, 0755 with SW__CONFINE_SHARED) */
#define SW__CONFINE_SHARED 4u

/*
 * The one confinement rule for files inside a project: @path (relative to @root, or absolute) is resolved
 * through every symbolic link (a missing tail is resolved through its nearest existing folder) and must
 * lie inside realpath(@root); otherwise SW_EDENIED / UNSAFE_ACTION_REFUSED. @real_out: (transfer full) the
 * real path, which names the file itself (a final link that stays inside is resolved to its target).
 */
int sw__confine(const char *root, const char *path, unsigned flags, char **real_out, sw_error **err);
/*
 * sw__confine(), then opens the real path by walking its folders from "/" without following any symbolic
 * link and opening the file with O_NOFOLLOW (@oflags | O_NOFOLLOW | O_CLOEXEC, @mode for O_CREAT).
 * The file must be a plain file, and, when opened for writing, have a single name (no hard link).
 * Returns the descriptor (>= 0) or a negative SW_E* code. @real_out may be NULL.
 */
int sw__confine_open(const char *root, const char *path, int oflags, mode_t mode, unsigned flags, char **real_out,
                     sw_error **err);
/* Creates @dir (and its parents) inside @root with @mode, every step confined and without following links. */
int sw__confine_mkdirs(const char *root, const char *dir, mode_t mode, char **real_out, sw_error **err);

/* ---- a set of project files written together (core/writeset.c) ------------ */

/*
 * Many files of one operation written as a set: sw__writeset_add() each (the data is borrowed until the commit),
 * then sw__writeset_commit(): every path confined under @root first (nothing is created when one is refused), each
 * file written to a temporary name in its folder (folders opened from "/" without following links, created with
 * SW_WRITE_MKDIRS), the whole set flushed after it is all written (one fsync per file, never syncfs), renamed
 * over the final names, and each folder flushed once. A failure before the renames removes every temporary:
 * none of the set is there.
 * @flags: SW_WRITE_MKDIRS, SW_WRITE_SHARED (files 0644 and folders 0755 less the umask, else 0600/0700),
 * SW__WRITE_NO_SYNC (no flush: a private staging folder that is removed afterwards).
 */
typedef struct sw__writeset sw__writeset;
sw__writeset *sw__writeset_new(const char *root, unsigned flags);
int sw__writeset_add(sw__writeset *ws, const char *path, const void *data, size_t len, sw_error **err);
size_t sw__writeset_count(const sw__writeset *ws);
int sw__writeset_commit(sw__writeset *ws, sw_error **err);
void sw__writeset_free(sw__writeset *ws);

/* ---- JSON -------------------------------------------------------------- */

/* Pretty JSON the way JavaScript's JSON.stringify(v, null, 2) writes it. */
char *sw__json_pretty(const json_t *v);
/* @v appended to @b as sw__json_pretty writes it when it sits at @depth of a larger document (its inner lines
 * indented by 2 x (@depth + 1) spaces), so that a part can be written or compared on its own. */
void sw__json_pretty_at(sw_buf *b, const json_t *v, int depth);
/* Compact JSON (JSON.stringify(v)). */
char *sw__json_compact(const json_t *v);
/* Writes a JavaScript-style number (shortest round-trip form) for @d. */
void sw__buf_js_number(sw_buf *b, double d);
/* JSON string quoting as JSON.stringify does. */
void sw__buf_json_string(sw_buf *b, const char *s, size_t len);

/* ---- clocks (core/clock.c) ------------------------------------------- */

/* The public sw_monotonic_ms() (intervals, timeouts) and sw_wall_ms() (timestamps) are in swipium/util.h. */
/* sw_iso_time() of @ms, allocated (NULL only when out of memory); sw__iso_now() of the wall clock now. */
char *sw__iso(int64_t ms);
char *sw__iso_now(void);
/* An absolute CLOCK_MONOTONIC deadline @ms from now, for a condition made by sw__cond_init_monotonic(). */
void sw__deadline_in(struct timespec *ts, int64_t ms);
/* pthread_cond_init() with CLOCK_MONOTONIC, so timed waits do not move with wall-clock steps. */
int sw__cond_init_monotonic(pthread_cond_t *cond);
/* Sleeps @ms, resuming after signals. */
void sw__sleep_ms(int64_t ms);

/* ---- sessions inside the library (store/) ------------------------------ */

/*
 * One object another module keeps with a session and frees with it (actions/ keeps the bound drive
 * here). Replacing an attachment frees the old one. Not locked: callers use it from one thread.
 */
void *sw__session_attached(struct sw_session *s);
void sw__session_attach(struct sw_session *s, void *obj, void (*free_fn)(void *));
/* The typed cores of sw_session_get_json / set_json / append_json (same rules; values borrowed, *out full). */
int sw__session_get(struct sw_session *s, const char *key, json_t **out, sw_error **err);
/* The fixtures given inline to the session (qa_start_session), whole (values, fields, seeds), or NULL: memory
 * only, gone after a restart (a deep copy, transfer full). */
json_t *sw__session_fixtures_live(struct sw_session *s);
int sw__session_set(struct sw_session *s, const char *key, json_t *value, sw_error **err);
int sw__session_append(struct sw_session *s, const char *key, json_t *item, sw_error **err);

/* ---- checked options (core/options.c) ---------------------------------- */

/* The JSON type an option must have. SW__OPT_NUMBER takes integers and reals; SW__OPT_ANY takes anything. */
typedef enum sw__opt_type {
	SW__OPT_STRING,
	SW__OPT_BOOL,
	SW__OPT_INTEGER,
	SW__OPT_NUMBER,
	SW__OPT_OBJECT,
	SW__OPT_ARRAY,
	SW__OPT_STRING_ARRAY,
	SW__OPT_ANY,
} sw__opt_type;

/* One accepted option; a table ends with {NULL}. A NULL value is accepted for every type when @nullable. */
typedef struct sw__opt {
	const char *name;
	sw__opt_type type;
	bool nullable;
} sw__opt;

/*
 * The one options loader: parses @text (NULL or "" is {}) into *out (transfer full) and checks it against
 * @spec. Not an object, an unknown key or a wrong type fails with SW_EINVAL / INVALID_ARGUMENT naming
 * every offending key, its expected type and the accepted keys; @what names the options in the message
 * (e.g. "sw_drive_snapshot options").
 */
int sw__options_load(const char *text, const sw__opt *spec, const char *what, json_t **out, sw_error **err);
/* sw__options_load on a parsed value (borrowed); NULL counts as {}. */
int sw__options_check(const json_t *opts, const sw__opt *spec, const char *what, sw_error **err);
/*
 * The whole-number option @key of @opts (absent: @def): a number with no fraction, @min or more, else SW_EINVAL /
 * INVALID_ARGUMENT naming @key. Above @clamp it is clamped, with a note "<key> <value> was clamped to <clamp>"
 * appended to @notes (nullable).
 */
int sw__opt_whole(const json_t *opts, const char *key, long def, long min, long clamp, long *out, json_t *notes,
                  sw_error **err);

/* ---- HTTP (core/http.c) ------------------------------------------------ */

/*
 * GET @url (http:// or https:// only, no redirects followed, no proxy for localhost) within @timeout_ms (> 0).
 * libcurl is loaded with dlopen("libcurl.so.4") on the first call (thread-safe); when it cannot be loaded
 * this returns SW_EUNSUPPORTED saying why, and the process never paid for libcurl at start-up.
 * Any HTTP status is a success: *status_out (nullable) gets it. A transport failure is SW_EIO
 * (SW_ETIMEOUT for a timeout) with curl's reason in the message.
 * @body_out (nullable; transfer full, NUL-terminated, "" when empty) gets at most @max_body bytes: a longer
 * body is capped there, the rest is not downloaded, and the call still succeeds.
 */
int sw__http_get(const char *url, long timeout_ms, long *status_out, char **body_out, size_t max_body, sw_error **err);
/*
 * sw__http_get() with a @method (one upper-case word), @headers (nullable object of one-line strings) and a
 * @body (nullable, sent as is). Same rules: http(s) only, no redirects, no proxy for localhost, any status a
 * success; the message of a failure never holds the URL (it may carry a token).
 */
int sw__http_request(const char *method, const char *url, const json_t *headers, const char *body, long timeout_ms,
                     long *status_out, char **body_out, size_t max_body, sw_error **err);

/* One HTTP request for a client that speaks JSON (the WebDriverAgent client): @method GET, POST or DELETE, an
 * optional JSON @body (sent as application/json), never through a proxy, within @timeout_ms (> 0). */
typedef struct sw__http_req {
	const char *method; /* NULL: GET */
	const char *url;
	const char *body; /* nullable */
	size_t body_len;
	long timeout_ms;
	size_t max_body; /* 0: 64 MiB; a longer body is cut there and resp.capped set */
} sw__http_req;
typedef struct sw__http_resp {
	long status;
	char *body; /* NUL-terminated, "" when empty (transfer full: free()) */
	size_t body_len;
	bool capped, timed_out;
} sw__http_resp;
/* Any HTTP status is a success (read resp->status); a transport failure is SW_EIO (SW_ETIMEOUT with
 * resp->timed_out) with curl's reason, and no failure code: the caller names it. */
int sw__http_exchange(const sw__http_req *req, sw__http_resp *resp, sw_error **err);
/* Asks for transparent huge pages over the 2 MiB-aligned part of a large buffer about to be filled whole
 * (fewer page faults; ignored where the kernel has none). In http.c. */
void sw__hint_huge_pages(void *p, size_t n);

/* ---- metro (metro/metro.c) ------------------------------------------------ */

/* Metro's port: 8081, or SWIPIUM_METRO_PORT (1..65535) from the server's own environment. */
int sw__metro_port(void);

/* ---- drivers (drivers/driver.c) ------------------------------------------ */

struct sw_driver_ops;
/* Makes @ops findable by sw_driver_find() (tests register their scripted driver). At most 8. */
void sw__driver_register(const struct sw_driver_ops *ops);
/* The driver state of a bound device (for the driver's own code). */
struct sw_device;
void *sw__device_state(struct sw_device *dev);

/* ---- context internals ------------------------------------------------- */

struct sw_ctx {
	sw_log_fn log_fn;
	void *log_userdata;
	sw_log_level log_level;
	char *home;
};

#endif
