/* android-cli.c: a test driver for the Android library calls: runs JSON steps, prints one JSON result line each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <swipium/swipium.h>

/*
 * Usage: android-cli STEPS_JSON
 * STEPS_JSON is an array of {op, ...}: tools | devices {probe} | open {serial} | close | describe |
 * snapshot {options} | inspect {ref} | resolve {target} | act {args} | screenshot {force, out} |
 * install {path} | launch {app} | force_stop {app} | foreground | keyboard | boot {avd, options} |
 * pause (waits for one line on stdin, so a test can change the world between steps) | secrets.
 * Each step prints {"op", "ok":true, "result"} or {"op", "ok":false, "failureCode", "message", "details"}.
 */

static json_t *secrets;

static void reg_secret(const char *value, void *ud)
{
	(void)ud;
	json_array_append_new(secrets, json_string(value));
}

static char *redact(const char *text, void *ud)
{
	(void)ud;
	size_t i;
	json_t *v;
	char *cur = NULL;
	json_array_foreach(secrets, i, v)
	{
		const char *s = json_string_value(v);
		const char *src = cur ? cur : text;
		const char *hit = strstr(src, s);
		if (!hit || strlen(s) < 3)
			continue;
		size_t n = strlen(src) + 32;
		char *o = malloc(n);
		snprintf(o, n, "%.*s\xc2\xabredacted\xc2\xbb%s", (int)(hit - src), src, hit + strlen(s));
		free(cur);
		cur = o;
	}
	return cur;
}

static void print_ok(const char *op, json_t *result)
{
	json_t *o = json_pack("{sssbso}", "op", op, "ok", 1, "result", result ? result : json_null());
	char *s = json_dumps(o, JSON_COMPACT);
	printf("%s\n", s);
	fflush(stdout);
	free(s);
	json_decref(o);
}

static void print_err(const char *op, sw_error *err)
{
	const char *dj = sw_error_details_json(err);
	json_t *o = json_pack("{sssbssssso}", "op", op, "ok", 0, "failureCode", sw_error_failure_code(err), "message",
	                      sw_error_message(err), "details", dj ? json_loads(dj, 0, NULL) : json_null());
	char *s = json_dumps(o, JSON_COMPACT);
	printf("%s\n", s);
	fflush(stdout);
	free(s);
	json_decref(o);
	sw_error_free(err);
}

static json_t *parse_or_null(char *txt)
{
	json_t *j = txt ? json_loads(txt, JSON_DECODE_ANY, NULL) : NULL;
	sw_free(txt);
	return j;
}

static char *dumps(json_t *j)
{
	return j ? json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: android-cli STEPS_JSON\n");
		return 2;
	}
	json_t *steps = json_loads(argv[1], 0, NULL);
	if (!json_is_array(steps)) {
		fprintf(stderr, "android-cli: STEPS_JSON must be a JSON array\n");
		return 2;
	}
	secrets = json_array();
	sw_ctx *ctx = NULL;
	if (sw_ctx_new(&ctx, NULL) < 0)
		return 1;
	sw_device *dev = NULL;
	sw_drive *drive = NULL;
	size_t i;
	json_t *step;
	json_array_foreach(steps, i, step)
	{
		const char *op = json_string_value(json_object_get(step, "op"));
		if (!op)
			op = "?";
		sw_error *err = NULL;
		char *out = NULL;
		int rc = 0;
		if (!strcmp(op, "tools")) {
			rc = sw_android_tools(ctx, &out, &err);
		} else if (!strcmp(op, "devices")) {
			rc = sw_android_devices(ctx, json_is_true(json_object_get(step, "probe")), &out, &err);
		} else if (!strcmp(op, "open")) {
			sw_drive_free(drive);
			sw_device_free(dev);
			drive = NULL;
			dev = NULL;
			json_t *o = json_object();
			if (json_object_get(step, "serial"))
				json_object_set(o, "serial", json_object_get(step, "serial"));
			char *oj = dumps(o);
			json_decref(o);
			rc = sw_device_open(ctx, sw_driver_android(), oj, &dev, &err);
			free(oj);
			if (rc == 0)
				rc = sw_drive_new(dev, &drive, &err);
			if (rc == 0) {
				sw_drive_hooks h = {reg_secret, NULL, redact, NULL};
				sw_drive_set_hooks(drive, &h);
				rc = sw_device_describe(dev, &out, &err);
			}
		} else if (!strcmp(op, "pause")) {
			char line[256];
			print_ok(op, json_string("paused"));
			if (!fgets(line, sizeof(line), stdin))
				break;
			continue;
		} else if (!strcmp(op, "secrets")) {
			out = dumps(secrets);
		} else if (!strcmp(op, "boot")) {
			char *oj = dumps(json_object_get(step, "options"));
			rc = sw_android_boot_avd(ctx, json_string_value(json_object_get(step, "avd")), oj, &out, &err);
			free(oj);
		} else if (!dev) {
			fprintf(stderr, "android-cli: step %s needs an open device\n", op);
			return 2;
		} else if (!strcmp(op, "describe")) {
			rc = sw_device_describe(dev, &out, &err);
		} else if (!strcmp(op, "snapshot")) {
			char *oj = dumps(json_object_get(step, "options"));
			rc = sw_drive_snapshot(drive, oj, &out, &err);
			free(oj);
		} else if (!strcmp(op, "inspect")) {
			rc = sw_snapshot_inspect(sw_drive_tracker(drive),
			                         json_string_value(json_object_get(step, "ref")), &out, &err);
		} else if (!strcmp(op, "resolve")) {
			char *tj = dumps(json_object_get(step, "target"));
			rc = sw_snapshot_resolve(sw_drive_tracker(drive), tj ? tj : "{}", &out, &err);
			free(tj);
		} else if (!strcmp(op, "act")) {
			char *aj = dumps(json_object_get(step, "args"));
			rc = sw_drive_act(drive, aj ? aj : "{}", &out, &err);
			free(aj);
		} else if (!strcmp(op, "screenshot")) {
			unsigned char *png = NULL;
			size_t len = 0;
			rc = sw_drive_screenshot(drive, json_is_true(json_object_get(step, "force")), &png, &len, &out,
			                         &err);
			const char *path = json_string_value(json_object_get(step, "out"));
			if (rc == 0 && path) {
				FILE *f = fopen(path, "wb");
				if (f) {
					fwrite(png, 1, len, f);
					fclose(f);
				}
			}
			sw_free(png);
		} else if (!strcmp(op, "install")) {
			rc = sw_device_install(dev, json_string_value(json_object_get(step, "path")), &err);
		} else if (!strcmp(op, "launch")) {
			rc = sw_device_launch(dev, json_string_value(json_object_get(step, "app")), &err);
		} else if (!strcmp(op, "force_stop")) {
			rc = sw_device_force_stop(dev, json_string_value(json_object_get(step, "app")), &err);
		} else if (!strcmp(op, "foreground")) {
			rc = sw_device_foreground(dev, &out, &err);
		} else if (!strcmp(op, "keyboard")) {
			rc = sw_device_keyboard(dev, &out, &err);
		} else if (!strcmp(op, "close")) {
			sw_drive_free(drive);
			sw_device_free(dev);
			drive = NULL;
			dev = NULL;
		} else {
			fprintf(stderr, "android-cli: unknown op %s\n", op);
			return 2;
		}
		if (rc < 0)
			print_err(op, err);
		else
			print_ok(op, parse_or_null(out));
	}
	sw_drive_free(drive);
	sw_device_free(dev);
	sw_ctx_free(ctx);
	json_decref(steps);
	json_decref(secrets);
	return 0;
}
