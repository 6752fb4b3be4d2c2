/* vdevice.h: shared types of the virtual Android device, a test fixture that the real adb sees as an emulator. */
#ifndef VDEVICE_H
#define VDEVICE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#if defined(__GNUC__)
#define VD_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define VD_PRINTF(f, a)
#endif

#define VD_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Screen geometry of the simulated phone (a Pixel-like 1080x2400 at 420 dpi). */
#define VD_SCREEN_W 1080
#define VD_SCREEN_H 2400
#define VD_DENSITY 420

/* ---- growable byte buffer (buf.c) ---------------------------------------- */

struct vd_buf {
	char *data; /* NUL-terminated when non-NULL */
	size_t len;
	size_t cap;
	bool failed; /* an allocation failed; later appends are no-ops */
};

void vd_buf_free(struct vd_buf *b);
void vd_buf_reset(struct vd_buf *b);
bool vd_buf_append(struct vd_buf *b, const void *data, size_t n);
bool vd_buf_puts(struct vd_buf *b, const char *s);
bool vd_buf_printf(struct vd_buf *b, const char *fmt, ...) VD_PRINTF(2, 3);
bool vd_buf_vprintf(struct vd_buf *b, const char *fmt, va_list ap) VD_PRINTF(2, 0);
/* Drops the first @n bytes. */
void vd_buf_consume(struct vd_buf *b, size_t n);
/* Appends @s with XML attribute escaping. */
bool vd_buf_xml(struct vd_buf *b, const char *s);

char *vd_strdup(const char *s);
char *vd_strndup(const char *s, size_t n);
char *vd_strdup_printf(const char *fmt, ...) VD_PRINTF(1, 2);
void vd_log(const char *fmt, ...) VD_PRINTF(1, 2);
extern bool vd_verbose;

/* ---- options -------------------------------------------------------------- */

enum vd_dump_mode {
	VD_DUMP_NORMAL,
	VD_DUMP_GARBAGE, /* uiautomator dump writes bytes that are not XML */
	VD_DUMP_EMPTY,   /* uiautomator dump writes an empty file */
	VD_DUMP_HUGE,    /* uiautomator dump adds thousands of extra nodes */
	VD_DUMP_HUGE_BELOW, /* the same nodes, in a window under the app's (a huge screen, nothing drawn over it) */
	VD_DUMP_FAIL,    /* uiautomator dump fails like on an idle-timeout ("could not get idle state") */
};

struct vd_options {
	int port; /* adb transport port; 0 = pick a free one (console = port - 1) */
	const char *app_path;
	const char *serial_file;
	int ready_fd;
	const char *announce; /* "emulator" (host:emulator), "connect" (host:connect), "none" */
	int adb_server_port;
	bool physical;         /* look like real hardware: no ro.kernel.qemu, ro.hardware=qcom */
	long disconnect_after; /* drop the adb connection after this many shell/exec commands; 0 = never */
	enum vd_dump_mode dump_mode;
	long huge_nodes;
	const char *token_file; /* console auth token file; default $HOME/.emulator_console_auth_token */
	long boot_after;        /* sys.boot_completed is empty for this many reads */
	const char *model;
	const char *avd_name; /* `avd name` on the console and ro.boot.qemu.avd_name */
	bool latency;         /* sleep the modelled cost of every command (--latency emulator) */
	double latency_scale; /* wall time slept = modelled time x this (default 1) */
	const char *stats_path; /* one JSON line per adb invocation (--stats FILE) */
	const char *touch_log;  /* one JSON line per touch and key with the element it landed on (--touch-log FILE) */
	int busy_port;          /* a device port some device process already listens on (--busy-port N) */
};

/* ---- in-memory file system (fs.c) ------------------------------------------- */

struct vd_file {
	char *path;
	char *data;
	size_t len;
	uint32_t mode;
	uint32_t mtime;
};

struct vd_fs {
	struct vd_file *files;
	size_t n;
	size_t total; /* bytes stored, bounded by VD_FS_MAX */
};

#define VD_FS_MAX (256u * 1024u * 1024u)

/* Normalises /storage/emulated/0 and /storage/self/primary to /sdcard; returns a new string or NULL. */
char *vd_fs_normalize(const char *path);
struct vd_file *vd_fs_get(struct vd_fs *fs, const char *path);
/* Stores a copy of @data; returns false when the file system is full or the path is not writable. */
bool vd_fs_put(struct vd_fs *fs, const char *path, const void *data, size_t len, uint32_t mode, uint32_t mtime);
bool vd_fs_remove(struct vd_fs *fs, const char *path);
bool vd_fs_is_dir(struct vd_fs *fs, const char *path);
/* Is @path under a directory the shell user may write (/sdcard, /data/local/tmp)? */
bool vd_fs_writable(const char *path);
void vd_fs_clear(struct vd_fs *fs);

/* ---- the device ------------------------------------------------------------- */

struct vd_app;

/* ---- what the package manager checks in an APK (apk-checks.c) ------------------------------------ */

struct vd_apk_info {
	bool zip;              /* a zip archive at all */
	char abis[8][32];      /* lib/<abi>/ folders */
	int n_abis;
	long min_sdk;          /* numeric minSdkVersion, -1 when absent */
	char min_sdk_code[64]; /* a preview codename given as minSdkVersion ("UpsideDownCake"), else "" */
	bool has_cert;         /* a v1 signature block with a certificate was found */
	uint32_t cert_crc;     /* CRC-32 of that certificate's DER */
};

/* Reads @data (an APK of @len bytes). False when it is not a zip. */
bool vd_apk_read(const char *data, size_t len, struct vd_apk_info *out);

struct vd_device {
	struct vd_options opt;
	struct vd_app *app;
	struct vd_fs fs;
	struct vd_buf logcat;
	long commands; /* shell/exec commands served (for disconnect_after) */
	long boot_reads;
	bool airplane;
	int user_rotation;      /* settings system user_rotation: 0..3 */
	bool auto_rotate;       /* settings system accelerometer_rotation */
	bool geo_set;           /* a console `geo fix` arrived */
	char geo_lon[32], geo_lat[32];
	long recordings;        /* screenrecord runs */
	struct timespec offline_until; /* setprop debug.vdevice.offline_ms: no announcing before this */
	char *serial;
	int console_port;
	int adb_port;
	bool drop_connections; /* set by a command; the transport closes every adb connection */
	bool quit;             /* console "kill" or SIGTERM */
	bool vanished;         /* --disconnect-after fired: the device is gone for good (ports closed) */
	long dump_count;       /* hostile dumps left before dumps turn normal; 0 = no limit */
	bool sticky_keyboard;  /* BACK and ESCAPE do not hide the soft keyboard */
	long frames;           /* frames the app rendered (dumpsys gfxinfo "Total frames rendered") */
	bool animating;        /* the screen never stops animating: every dump and gfxinfo read differs */
	char *dump_file;       /* serve this file of the device's storage as the uiautomator dump */
	int override_w, override_h; /* `wm size WxH` (0: none) */
	size_t logcat_max;     /* the logcat ring buffer's size in bytes */
	/* apk.c / commands.c: the signing certificate each installed package came with (CRC-32 of its DER) */
	struct {
		char pkg[128];
		uint32_t crc;
	} certs[16];
	int n_certs;
	/* ports forwarded back to the host by `adb reverse` (reverse.c): the device-side listener
	 * ("tcp:8081") and the host-side target it leads to ("tcp:8081") */
	struct {
		char device[64], host[64];
	} reverses[8];
	int n_reverses;
	/* latency.c: the invocation being served */
	double inv_model_ms;
	long inv_seq;
	FILE *stats;
};

/* Parses a dump mode name (normal, garbage, empty, fail, huge). */
bool vd_dump_mode_parse(const char *s, enum vd_dump_mode *mode);
/*
 * Test controls, also reachable at run time with `setprop debug.vdevice.<name> <value>`:
 * dump (a mode), dump_count (N), sticky_keyboard (0/1), huge_nodes (N). Returns false on a bad value.
 */
bool vd_device_control(struct vd_device *d, const char *name, const char *value);

/* ---- latency profile and invocation counts (latency.c) ---------------------- */

/* Parses "off", "emulator" or "emulator:SCALE" into the options; false on a bad value. */
bool vd_latency_parse(const char *s, struct vd_options *o);
/* Starts serving one adb invocation (a shell/exec command, a sync session, an interactive line). */
/* ---- adb reverse (reverse.c) ----------------------------------------------------- */

/*
 * Serves one `reverse:` request (the part after "reverse:") the way adbd answers it on the stream:
 * forward:[norebind:]DEV;HOST and killforward:DEV and killforward-all answer OKAY or FAIL<len><message>,
 * list-forward answers <len><lines>. Appends the reply to @out.
 */
void vd_reverse_serve(struct vd_device *d, const char *req, struct vd_buf *out);

void vd_latency_begin(struct vd_device *d);
/* Charges one program of the invocation: @argv as run, @out_bytes it printed. */
void vd_latency_charge(struct vd_device *d, int argc, char **argv, size_t out_bytes);
/* Ends the invocation: logs it to the stats file and sleeps its modelled cost when the profile is on. */
/* Writes @s as a JSON string (at most @max bytes, non-ASCII as \\u00XX bytes). */
void vd_json_str(FILE *f, const char *s, size_t max);
void vd_latency_end(struct vd_device *d, const char *service, const char *cmd, size_t bytes);

/* Appends one threadtime logcat line. */
void vd_device_log(struct vd_device *d, char level, const char *tag, const char *fmt, ...) VD_PRINTF(4, 5);

/* ---- shell (shell.c) ----------------------------------------------------------- */

/* Where a command writes; @v2 frames output as shell protocol packets. */
struct vd_out {
	struct vd_buf *buf;
	bool v2;
	size_t bytes; /* payload bytes written (stdout and stderr, without framing) */
};

void vd_out_write(struct vd_out *o, int fd, const void *data, size_t n);
void vd_out_printf(struct vd_out *o, int fd, const char *fmt, ...) VD_PRINTF(3, 4);

/* Runs a shell command line; returns the exit status. */
int vd_shell_run(struct vd_device *d, const char *cmdline, struct vd_out *out);
/* Same, with @in as the standard input of the first command. */
int vd_shell_run_input(struct vd_device *d, const char *cmdline, const char *in, size_t in_len, struct vd_out *out);
/* Does the command line's first command read its standard input (cat with no file, grep, wc...)? */
bool vd_shell_reads_stdin(const char *cmdline);
/* The package an APK's AndroidManifest.xml declares (a zip, stored or deflated), or NULL (apk.c). */
char *vd_apk_package(const char *data, size_t len);
/* When @cmdline is a streamed install (`cmd package install -S N`), returns true and sets *size. */
bool vd_shell_is_streamed_install(const char *cmdline, uint64_t *size);
/* Finishes a streamed install once all bytes arrived; returns the exit status. */
int vd_shell_finish_install(struct vd_device *d, const char *data, size_t len, struct vd_out *out);

/* ---- sync service (sync.c) ------------------------------------------------------ */

struct vd_sync;
struct vd_sync *vd_sync_new(void);
void vd_sync_free(struct vd_sync *s);
/*
 * Feeds bytes the host wrote; appends replies to @reply. Returns false when the
 * stream must close (QUIT, protocol error).
 */
bool vd_sync_feed(struct vd_sync *s, struct vd_device *d, const char *data, size_t n, struct vd_buf *reply);

/* ---- console (console.c) --------------------------------------------------------- */

struct vd_console;
struct vd_console *vd_console_new(struct vd_device *d);
void vd_console_free(struct vd_console *c);
/* Appends the greeting to @reply. */
void vd_console_greet(struct vd_console *c, struct vd_buf *reply);
/* Feeds input; appends replies. Returns false when the client asked to quit. */
bool vd_console_feed(struct vd_console *c, const char *data, size_t n, struct vd_buf *reply);

/* ---- transport (transport.c) ---------------------------------------------------------- */

struct vd_conn;
struct vd_conn *vd_conn_new(struct vd_device *d, int fd);
void vd_conn_free(struct vd_conn *c);
int vd_conn_fd(const struct vd_conn *c);
bool vd_conn_wants_write(const struct vd_conn *c);
bool vd_conn_connected(const struct vd_conn *c);
/* True for a connection that has not completed the CNXN handshake in time (it holds a slot for nothing). */
bool vd_conn_handshake_expired(const struct vd_conn *c);
/* Returns false when the connection is finished (peer closed, protocol error). */
bool vd_conn_on_readable(struct vd_conn *c);
bool vd_conn_on_writable(struct vd_conn *c);

/* Banner properties (props.c). */
const char *vd_prop_get(struct vd_device *d, const char *key);
void vd_props_print(struct vd_device *d, struct vd_out *o);
void vd_props_set(struct vd_device *d, const char *key, const char *value);
void vd_props_free(void);

#endif
