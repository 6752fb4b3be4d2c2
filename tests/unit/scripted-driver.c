/* scripted-driver.c: the scripted test driver (see scripted-driver.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scripted-driver.h"
#include "sw-internal.h"

struct sd_script sd;

static const char login_xml[] =
    "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
    "<node index=\"0\" text=\"\" resource-id=\"\" class=\"android.widget.FrameLayout\" package=\"com.example.app\" "
    "content-desc=\"\" clickable=\"false\" bounds=\"[0,0][1080,2400]\">"
    "<node index=\"0\" text=\"Sign in\" resource-id=\"com.example.app:id/signin\" class=\"android.widget.Button\" "
    "package=\"com.example.app\" content-desc=\"\" clickable=\"true\" bounds=\"[100,1000][980,1150]\" />"
    "</node></hierarchy>";

void sd_reset(void)
{
	memset(&sd, 0, sizeof(sd));
	sd.serial = "emulator-5554";
	sd.emulator = true;
	sd.fg_pkg = "com.example.app";
	sd.fg_act = "com.example.app/.MainActivity";
	sd.xml = login_xml;
	sd.logcat = "--------- beginning of main\n"
	            "11-30 10:00:00.100   512   529 I ActivityManager: Start proc 4242:com.example.app/u0a163\n";
	sd.auto_rotate = 1;
	sd.packages = "[\"com.example.app\",\"com.example.other\"]";
}

static void logcall(const char *fmt, ...) SW_PRINTF(1, 2);
static void logcall(const char *fmt, ...)
{
	size_t n = strlen(sd.calls);
	va_list ap;
	va_start(ap, fmt);
	if (n + 2 < sizeof(sd.calls)) {
		vsnprintf(sd.calls + n, sizeof(sd.calls) - n - 1, fmt, ap);
		strcat(sd.calls, " ");
	}
	va_end(ap);
	sd.ncalls++;
}

/* The scripted failure of @slot, when it is the one to fail (or every slot is). */
static int failing(const char *slot, sw_error **err)
{
	if (!sd.fail_all && !(sd.fail_slot && !strcmp(sd.fail_slot, slot)))
		return SW_OK;
	const char *code = sd.fail_code ? sd.fail_code : "NO_DEVICE";
	return sw__error_set(err, SW_EDEVICE, code, NULL, "scripted failure of %s on %s", slot, sd.serial);
}

#define FAIL(slot)                                                                                                     \
	do {                                                                                                           \
		int frc_ = failing(slot, err);                                                                         \
		if (frc_ != SW_OK)                                                                                     \
			return frc_;                                                                                   \
	} while (0)

static int out_text(const char *text, char **out, sw_error **err)
{
	*out = strdup(text);
	return *out ? SW_OK : sw__error_nomem(err);
}

static int sd_probe(sw_ctx *ctx, const char *options_json, void **state, sw_error **err)
{
	(void)ctx;
	(void)options_json;
	logcall("probe");
	if (sd.fail_slot && !strcmp(sd.fail_slot, "probe"))
		return failing("probe", err);
	*state = &sd;
	return SW_OK;
}

static void sd_release(void *state)
{
	(void)state;
}

static int sd_describe(void *state, char **out_json, sw_error **err)
{
	(void)state;
	json_t *o = json_pack("{s:s,s:s,s:b}", "platform", "scripted", "serial", sd.serial, "emulator", sd.emulator);
	*out_json = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

static int sd_dump_ui(void *state, char **xml, size_t *len, sw_error **err)
{
	(void)state;
	logcall("dump_ui");
	FAIL("dump_ui");
	*len = strlen(sd.xml);
	return out_text(sd.xml, xml, err);
}

static int sd_screencap(void *state, unsigned char **png, size_t *len, sw_error **err)
{
	(void)state;
	logcall("screencap");
	FAIL("screencap");
	static const unsigned char sig[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
	*png = malloc(sizeof(sig));
	if (!*png)
		return sw__error_nomem(err);
	memcpy(*png, sig, sizeof(sig));
	*len = sizeof(sig);
	return SW_OK;
}

static int sd_screen_size(void *state, int *w, int *h, sw_error **err)
{
	(void)state;
	logcall("screen_size");
	FAIL("screen_size");
	*w = 1080;
	*h = 2400;
	return SW_OK;
}

static int sd_tap(void *state, int x, int y, int duration_ms, sw_error **err)
{
	(void)state;
	logcall("tap(%d,%d,%d)", x, y, duration_ms);
	FAIL("tap");
	return SW_OK;
}

static int sd_type_text(void *state, const char *text, sw_error **err)
{
	(void)state;
	logcall("type_text(%zu)", strlen(text));
	FAIL("type_text");
	return SW_OK;
}

static int sd_swipe(void *state, int x1, int y1, int x2, int y2, int d, sw_error **err)
{
	(void)state;
	logcall("swipe(%d,%d,%d,%d,%d)", x1, y1, x2, y2, d);
	FAIL("swipe");
	return SW_OK;
}

static int sd_press_key(void *state, const char *key, sw_error **err)
{
	(void)state;
	logcall("press_key(%s)", key);
	FAIL("press_key");
	if (!strcmp(key, "home"))
		sd.fg_pkg = "com.android.launcher3";
	if (!strcmp(key, "back") || !strcmp(key, "escape"))
		sd.keyboard = false;
	return SW_OK;
}

static int sd_open_url(void *state, const char *url, sw_error **err)
{
	(void)state;
	logcall("open_url(%s)", url);
	FAIL("open_url");
	return SW_OK;
}

static int sd_keyboard(void *state, char **out_json, sw_error **err)
{
	(void)state;
	logcall("keyboard");
	FAIL("keyboard");
	return out_text(sd.keyboard ? "{\"shown\":true,\"frame\":[0,1600,1080,2400]}" : "{\"shown\":false,\"frame\":null}",
	                out_json, err);
}

static int sd_hide_keyboard(void *state, sw_error **err)
{
	(void)state;
	logcall("hide_keyboard");
	FAIL("hide_keyboard");
	sd.keyboard = false;
	return SW_OK;
}

static int sd_foreground(void *state, char **out_json, sw_error **err)
{
	(void)state;
	logcall("foreground");
	FAIL("foreground");
	json_t *o = json_pack("{s:s?,s:s?}", "package", sd.fg_pkg, "activity", sd.fg_act);
	*out_json = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

static int sd_install(void *state, const char *path, sw_error **err)
{
	(void)state;
	logcall("install(%s)", path);
	FAIL("install");
	return SW_OK;
}

static int sd_launch(void *state, const char *app_id, sw_error **err)
{
	(void)state;
	logcall("launch(%s)", app_id);
	FAIL("launch");
	sd.fg_pkg = "com.example.app";
	return SW_OK;
}

static int sd_force_stop(void *state, const char *app_id, sw_error **err)
{
	(void)state;
	logcall("force_stop(%s)", app_id);
	FAIL("force_stop");
	sd.fg_pkg = "com.android.launcher3";
	return SW_OK;
}

static int sd_clear_text(void *state, size_t chars, sw_error **err)
{
	(void)state;
	logcall("clear_text(%zu)", chars);
	FAIL("clear_text");
	return SW_OK;
}

static int sd_properties(void *state, char **out_json, sw_error **err)
{
	(void)state;
	logcall("properties");
	FAIL("properties");
	return out_text(sd.props ? sd.props
	                         : "{\"manufacturer\":\"Google\",\"model\":\"sdk_gphone64_x86_64\",\"sdk\":\"34\","
	                           "\"release\":\"14\",\"abis\":[\"x86_64\"],\"locale\":\"en-US\",\"timezone\":\"UTC\","
	                           "\"emulator\":true,\"screen\":{\"width\":1080,\"height\":2400,\"density\":420}}",
	                out_json, err);
}

static int sd_packages(void *state, char **out_json, sw_error **err)
{
	(void)state;
	logcall("packages");
	FAIL("packages");
	return out_text(sd.packages, out_json, err);
}

static int sd_rotation(void *state, int *rotation, int *auto_rotate, sw_error **err)
{
	(void)state;
	logcall("rotation");
	FAIL("rotation");
	*rotation = sd.rotation;
	*auto_rotate = sd.auto_rotate;
	return SW_OK;
}

static int sd_set_rotation(void *state, int rotation, sw_error **err)
{
	(void)state;
	logcall("set_rotation(%d)", rotation);
	FAIL("set_rotation");
	if (rotation < 0) {
		sd.auto_rotate = 1;
	} else {
		sd.auto_rotate = 0;
		sd.rotation = rotation;
	}
	return SW_OK;
}

static int sd_airplane_mode(void *state, int *on, sw_error **err)
{
	(void)state;
	logcall("airplane_mode");
	FAIL("airplane_mode");
	*on = sd.airplane;
	return SW_OK;
}

static int sd_set_airplane_mode(void *state, int on, sw_error **err)
{
	(void)state;
	logcall("set_airplane_mode(%d)", on);
	FAIL("set_airplane_mode");
	if (sd.airplane_refuse)
		return sw__error_set(err, SW_EDEVICE, "UNKNOWN", NULL, "the device rejected the airplane-mode toggle");
	sd.airplane = on;
	return SW_OK;
}

static int sd_geo_fix(void *state, double lat, double lng, sw_error **err)
{
	(void)state;
	logcall("geo_fix(%.4f,%.4f)", lat, lng);
	FAIL("geo_fix");
	return SW_OK;
}

static int sd_log_read(void *state, const char *since, char **text, size_t *len, sw_error **err)
{
	(void)state;
	logcall("log_read(%s)", since ? since : "-");
	FAIL("log_read");
	*len = strlen(sd.logcat);
	return out_text(sd.logcat, text, err);
}

static int sd_clock_offset(void *state, long *off, sw_error **err)
{
	(void)state;
	logcall("clock_offset");
	FAIL("clock_offset");
	*off = sd.clock_offset_s;
	return SW_OK;
}

static int sd_record_start(void *state, int limit, void **rec, long *pid, sw_error **err)
{
	(void)state;
	logcall("record_start(%d)", limit);
	FAIL("record_start");
	sd.recording = 1;
	*rec = &sd;
	*pid = 0;
	return SW_OK;
}

static int sd_record_poll(void *rec)
{
	(void)rec;
	return sd.recording;
}

static int sd_record_stop(void *rec, const char *local_path, sw_error **err)
{
	(void)rec;
	logcall("record_stop(%s)", local_path ? "save" : "discard");
	sd.recording = 0;
	FAIL("record_stop");
	if (local_path) {
		FILE *f = fopen(local_path, "wb");
		if (!f)
			return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot write %s", local_path);
		fputs("....ftypmp42 scripted video", f);
		fclose(f);
	}
	return SW_OK;
}

static int sd_clear_app_data(void *state, const char *app_id, sw_error **err)
{
	(void)state;
	logcall("clear_app_data(%s)", app_id);
	FAIL("clear_app_data");
	return SW_OK;
}

static int sd_setting_get(void *state, const char *ns, const char *key, char **value, sw_error **err)
{
	(void)state;
	logcall("setting_get(%s,%s)", ns, key);
	FAIL("setting_get");
	*value = NULL;
	return SW_OK;
}

static int sd_setting_put(void *state, const char *ns, const char *key, const char *value, sw_error **err)
{
	(void)state;
	logcall("setting_put(%s,%s,%s)", ns, key, value);
	FAIL("setting_put");
	return SW_OK;
}

static int sd_devices(sw_ctx *ctx, char **out_json, sw_error **err)
{
	(void)ctx;
	logcall("devices");
	FAIL("devices");
	if (sd.devices)
		return out_text(sd.devices, out_json, err);
	json_t *o = json_pack("[{s:s,s:s}]", "serial", sd.serial, "state", "device");
	*out_json = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

static const struct sw_driver_ops scripted_ops = {
    .version = SW_DRIVER_OPS_VERSION,
    .name = "scripted",
    .caps = SW_DRIVER_CAP_DUMP | SW_DRIVER_CAP_SCREENCAP | SW_DRIVER_CAP_INPUT | SW_DRIVER_CAP_OPEN_URL |
            SW_DRIVER_CAP_APP | SW_DRIVER_CAP_KEYBOARD | SW_DRIVER_CAP_FOREGROUND | SW_DRIVER_CAP_PROPS |
            SW_DRIVER_CAP_ROTATION | SW_DRIVER_CAP_NETWORK | SW_DRIVER_CAP_GEO | SW_DRIVER_CAP_LOGS |
            SW_DRIVER_CAP_RECORD | SW_DRIVER_CAP_APP_DATA | SW_DRIVER_CAP_SETTINGS | SW_DRIVER_CAP_DEVICES,
    .probe = sd_probe,
    .release = sd_release,
    .describe = sd_describe,
    .dump_ui = sd_dump_ui,
    .screencap = sd_screencap,
    .screen_size = sd_screen_size,
    .tap = sd_tap,
    .type_text = sd_type_text,
    .swipe = sd_swipe,
    .press_key = sd_press_key,
    .open_url = sd_open_url,
    .keyboard = sd_keyboard,
    .hide_keyboard = sd_hide_keyboard,
    .foreground = sd_foreground,
    .install = sd_install,
    .launch = sd_launch,
    .force_stop = sd_force_stop,
    .clear_text = sd_clear_text,
    .properties = sd_properties,
    .packages = sd_packages,
    .rotation = sd_rotation,
    .set_rotation = sd_set_rotation,
    .airplane_mode = sd_airplane_mode,
    .set_airplane_mode = sd_set_airplane_mode,
    .geo_fix = sd_geo_fix,
    .log_read = sd_log_read,
    .clock_offset = sd_clock_offset,
    .record_start = sd_record_start,
    .record_poll = sd_record_poll,
    .record_stop = sd_record_stop,
    .clear_app_data = sd_clear_app_data,
    .setting_get = sd_setting_get,
    .setting_put = sd_setting_put,
    .devices = sd_devices,
    .shutdown = NULL,
};

const char *const sd_slots[] = {"dump_ui",       "screencap",     "screen_size",    "tap",
                                "type_text",     "swipe",         "press_key",      "open_url",
                                "keyboard",      "hide_keyboard", "foreground",     "install",
                                "launch",        "force_stop",    "clear_text",     "properties",
                                "packages",      "rotation",      "set_rotation",   "airplane_mode",
                                "set_airplane_mode", "geo_fix",   "log_read",       "clock_offset",
                                "record_start",  "record_stop",   "clear_app_data", "setting_get",
                                "setting_put",   "devices",       NULL};

const struct sw_driver_ops *sd_ops(void)
{
	return &scripted_ops;
}

void sd_register(void)
{
	sw__driver_register(&scripted_ops);
}
