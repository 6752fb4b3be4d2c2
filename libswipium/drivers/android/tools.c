/* tools.c: Android SDK and tool discovery, and the parsers of adb output (devices, getprop, dumpsys, wm). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "android-internal.h"

/* ---- discovery ---------------------------------------------------------- */

static bool is_exec(const char *p)
{
	return p && sw__is_file(p) && access(p, X_OK) == 0;
}

char *sw__which(const char *name)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		return NULL;
	const char *p = path;
	while (*p) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		if (n > 0) {
			char *dir = sw__strndup(p, n);
			char *cand = dir ? sw__path_join(dir, name) : NULL;
			free(dir);
			if (cand && cand[0] == '/' && is_exec(cand))
				return cand;
			free(cand);
		}
		if (!colon)
			break;
		p = colon + 1;
	}
	return NULL;
}

void sw__android_tools_clear(sw__android_tools *t)
{
	free(t->sdk);
	free(t->sdk_source);
	free(t->adb);
	free(t->adb_source);
	free(t->emulator);
	memset(t, 0, sizeof(*t));
}

void sw__android_tools_find(const char *home, sw__android_tools *t)
{
	memset(t, 0, sizeof(*t));
	const char *envs[] = {"ANDROID_HOME", "ANDROID_SDK_ROOT"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(envs) && !t->sdk; i++) {
		const char *v = getenv(envs[i]);
		if (v && v[0] && sw__is_dir(v)) {
			t->sdk = sw__strdup(v);
			t->sdk_source = sw__asprintf("env:%s", envs[i]);
		}
	}
	if (!t->sdk && home && home[0]) {
#ifdef __APPLE__
		char *cand = sw__path_join(home, "Library/Android/sdk");
#else
		char *cand = sw__path_join(home, "Android/Sdk");
#endif
		if (cand && sw__is_dir(cand)) {
			t->sdk = cand;
			t->sdk_source = sw__strdup("default");
		} else
			free(cand);
	}
	t->adb = sw__which("adb");
	if (t->adb)
		t->adb_source = sw__strdup("PATH");
	else if (t->sdk) {
		char *cand = sw__path_join(t->sdk, "platform-tools/adb");
		if (is_exec(cand)) {
			t->adb = cand;
			t->adb_source = sw__strdup("sdk");
		} else
			free(cand);
	}
	if (t->sdk) {
		char *cand = sw__path_join(t->sdk, "emulator/emulator");
		if (is_exec(cand))
			t->emulator = cand;
		else
			free(cand);
	}
	if (!t->emulator)
		t->emulator = sw__which("emulator");
}

/* ---- parsers ------------------------------------------------------------ */

bool sw__android_serial_is_emulator(const char *serial)
{
	if (!sw__str_has_prefix(serial, "emulator-"))
		return false;
	const char *p = serial + 9;
	if (!*p)
		return false;
	for (; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

json_t *sw__android_parse_devices(const char *out)
{
	json_t *arr = json_array();
	if (!arr)
		return NULL;
	const char *line = out;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		char *l = sw__strndup(line, n);
		line = nl ? nl + 1 : NULL;
		if (!l)
			continue;
		size_t ln = strlen(l);
		while (ln && (l[ln - 1] == '\r' || l[ln - 1] == ' '))
			l[--ln] = '\0';
		if (!ln || l[0] == '*' || sw__str_has_prefix(l, "List of devices") || sw__str_has_prefix(l, "adb ")) {
			free(l);
			continue;
		}
		/* serial, whitespace, state (may be "no permissions (...)"), then key:value pairs */
		char *p = l;
		while (*p && !isspace((unsigned char)*p))
			p++;
		if (!*p) {
			free(l);
			continue;
		}
		*p++ = '\0';
		while (isspace((unsigned char)*p))
			p++;
		json_t *d = json_object();
		json_object_set_new(d, "serial", json_string(l));
		char *state = p;
		if (sw__str_has_prefix(p, "no permissions")) {
			json_object_set_new(d, "state", json_string("no permissions"));
			char *close = strchr(p, ']');
			char *paren = strrchr(p, ')');
			char *end = close ? close + 1 : (paren ? paren + 1 : p + strlen(p));
			p = end;
		} else {
			while (*p && !isspace((unsigned char)*p))
				p++;
			if (*p)
				*p++ = '\0';
			json_object_set_new(d, "state", json_string(state));
		}
		json_object_set_new(d, "product", json_null());
		json_object_set_new(d, "model", json_null());
		json_object_set_new(d, "device", json_null());
		json_object_set_new(d, "transportId", json_null());
		while (*p) {
			while (isspace((unsigned char)*p))
				p++;
			char *tok = p;
			while (*p && !isspace((unsigned char)*p))
				p++;
			if (*p)
				*p++ = '\0';
			char *colon = strchr(tok, ':');
			if (!colon)
				continue;
			*colon = '\0';
			const char *key = !strcmp(tok, "transport_id") ? "transportId" : tok;
			if (!strcmp(key, "product") || !strcmp(key, "model") || !strcmp(key, "device") ||
			    !strcmp(key, "transportId") || !strcmp(key, "usb"))
				json_object_set_new(d, key, json_string(colon + 1));
		}
		json_array_append_new(arr, d);
		free(l);
	}
	return arr;
}

json_t *sw__android_parse_getprop(const char *out)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	const char *p = out;
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);
		if (*p == '[') {
			const char *kend = memchr(p, ']', (size_t)(end - p));
			if (kend && kend + 3 < end && kend[1] == ':' && kend[2] == ' ' && kend[3] == '[') {
				const char *v = kend + 4;
				const char *vend = end;
				while (vend > v && (vend[-1] == '\r' || vend[-1] == ' '))
					vend--;
				if (vend > v && vend[-1] == ']') {
					char *k = sw__strndup(p + 1, (size_t)(kend - p - 1));
					char *val = sw__strndup(v, (size_t)(vend - 1 - v));
					if (k && val && sw__utf8_valid(k, strlen(k)) &&
					    sw__utf8_valid(val, strlen(val)))
						json_object_set_new(o, k, json_string(val));
					free(k);
					free(val);
				}
			}
		}
		p = nl ? nl + 1 : NULL;
	}
	return o;
}

static const char *prop(json_t *props, const char *k)
{
	const char *v = json_string_value(json_object_get(props, k));
	return v ? v : "";
}

int sw__android_props_are_emulator(json_t *props)
{
	if (!strcmp(prop(props, "ro.kernel.qemu"), "1") || !strcmp(prop(props, "ro.boot.qemu"), "1"))
		return 1;
	const char *hw = prop(props, "ro.hardware");
	if (!strcmp(hw, "goldfish") || !strcmp(hw, "ranchu") || strstr(prop(props, "ro.boot.hardware"), "ranchu"))
		return 1;
	if (strcasestr(prop(props, "ro.product.manufacturer"), "Genymotion") ||
	    json_object_get(props, "ro.genymotion.version") || !strcmp(prop(props, "ro.product.device"), "vbox86p"))
		return 1;
	return 0;
}

char *sw__android_shell_quote(const char *s)
{
	sw_buf b = SW_BUF_INIT;
	sw__buf_putc(&b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			sw__buf_puts(&b, "'\\''");
		else
			sw__buf_putc(&b, *s);
	}
	sw__buf_putc(&b, '\'');
	return sw__buf_steal(&b, NULL);
}

void sw__strv_free(char **v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int sw__android_input_text_words(const char *text, char ***words_out, size_t *n_out, sw_error **err)
{
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (*p >= 0x80 || *p < 0x20 || *p == 0x7f)
			return sw__error_set(
			    err, SW_EUNSUPPORTED, "TEXT_INPUT_UNSUPPORTED",
			    "Type ASCII text only, or paste the value another way",
			    "Android's input text only types printable ASCII; the text has a %s character",
			    *p >= 0x80 ? "non-ASCII" : "control");
	}
	/* split before the 's' of every literal "%s" so no word contains one */
	size_t cap = 1;
	for (const char *p = text; (p = strstr(p, "%s")); p += 2)
		cap++;
	char **words = calloc(cap, sizeof(*words));
	if (!words)
		return sw__error_nomem(err);
	size_t n = 0;
	const char *seg = text;
	while (*seg || n == 0) {
		const char *hit = strstr(seg, "%s");
		size_t len = hit ? (size_t)(hit - seg) + 1 : strlen(seg);
		sw_buf b = SW_BUF_INIT;
		for (size_t i = 0; i < len; i++) {
			if (seg[i] == ' ')
				sw__buf_puts(&b, "%s");
			else
				sw__buf_putc(&b, seg[i]);
		}
		char *raw = sw__buf_steal(&b, NULL);
		char *q = raw ? sw__android_shell_quote(raw) : NULL;
		free(raw);
		if (!q) {
			sw__strv_free(words, n);
			return sw__error_nomem(err);
		}
		words[n++] = q;
		seg += len;
		if (!*seg)
			break;
	}
	*words_out = words;
	*n_out = n;
	return (int)n;
}

bool sw__android_parse_wm_size(const char *out, int *w, int *h)
{
	const char *keys[] = {"Override size:", "Physical size:"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(keys); i++) {
		const char *p = strstr(out, keys[i]);
		if (p && sscanf(p + strlen(keys[i]), " %dx%d", w, h) == 2 && *w > 0 && *h > 0)
			return true;
	}
	return false;
}

/* "... u0 com.pkg/com.pkg.Main}" or "... u0 com.pkg/.Main t12}" */
static bool parse_component(const char *p, const char *end, char **pkg, char **activity)
{
	const char *u0 = NULL;
	for (const char *q = p; q + 1 < end; q++)
		if (q[0] == ' ' && q[1] == 'u' && isdigit((unsigned char)q[2]))
			u0 = q;
	const char *start = u0 ? strchr(u0 + 1, ' ') : NULL;
	if (!start || start >= end)
		return false;
	start++;
	const char *stop = start;
	while (stop < end && !isspace((unsigned char)*stop) && *stop != '}')
		stop++;
	const char *slash = memchr(start, '/', (size_t)(stop - start));
	if (!slash || slash == start)
		return false;
	*pkg = sw__strndup(start, (size_t)(slash - start));
	if (slash[1] == '.')
		*activity = sw__asprintf("%s%.*s", *pkg, (int)(stop - slash - 1), slash + 1);
	else
		*activity = sw__strndup(slash + 1, (size_t)(stop - slash - 1));
	return *pkg && *activity;
}

bool sw__android_parse_focus(const char *out, char **pkg, char **activity)
{
	const char *keys[] = {"mCurrentFocus=", "mFocusedApp=", "mResumedActivity:", "topResumedActivity="};
	*pkg = *activity = NULL;
	for (size_t i = 0; i < SW_ARRAY_SIZE(keys); i++) {
		const char *p = strstr(out, keys[i]);
		if (!p)
			continue;
		const char *end = strchr(p, '\n');
		if (!end)
			end = p + strlen(p);
		if (parse_component(p, end, pkg, activity))
			return true;
		free(*pkg);
		free(*activity);
		*pkg = *activity = NULL;
	}
	return false;
}

bool sw__android_parse_ime_shown(const char *out)
{
	return strstr(out, "mInputShown=true") || strstr(out, "mIsInputViewShown=true") ||
	       strstr(out, "mImeWindowVis=3");
}

static bool frame_in(const char *p, const char *end, int f[4])
{
	const char *keys[] = {"mFrame=", " frame=", "mTouchableRegion=", "touchable region=SkRegion(("};
	for (size_t i = 0; i < SW_ARRAY_SIZE(keys); i++) {
		const char *q = p;
		while ((q = strstr(q, keys[i])) && (!end || q < end)) {
			q += strlen(keys[i]);
			if (sscanf(q, "[%d,%d][%d,%d]", &f[0], &f[1], &f[2], &f[3]) == 4 ||
			    sscanf(q, "%d,%d,%d,%d", &f[0], &f[1], &f[2], &f[3]) == 4) {
				if (f[2] > f[0] && f[3] > f[1])
					return true;
			}
		}
	}
	return false;
}

bool sw__android_parse_ime_frame(const char *out, int f[4])
{
	/* the InputMethod window's own block of `dumpsys window windows`, else the whole text */
	const char *blk = strstr(out, " InputMethod}:");
	if (blk) {
		const char *next = strstr(blk + 1, "  Window #");
		if (frame_in(blk, next, f))
			return true;
		return false;
	}
	return frame_in(out, NULL, f);
}

const char *sw__android_failure_code(const char *text)
{
	if (!text)
		return "UNKNOWN";
	if (strstr(text, "not found") && (strstr(text, "device '") || strstr(text, "device ")))
		return "NO_DEVICE";
	if (strstr(text, "no devices/emulators found") || strstr(text, "no devices found") ||
	    strstr(text, "no emulators found"))
		return "NO_DEVICE";
	if (strstr(text, "device offline") || strstr(text, "unauthorized") || strstr(text, "authorizing") ||
	    strstr(text, "device still connecting") || strstr(text, "connecting"))
		return "DEVICE_NOT_READY";
	if (strstr(text, "more than one device") || strstr(text, "more than one emulator"))
		return "MULTIPLE_DEVICES";
	if (strstr(text, "cannot connect to daemon") || strstr(text, "failed to start daemon") ||
	    strstr(text, "Connection refused") || strstr(text, "protocol fault"))
		return "NO_DEVICE";
	if (strstr(text, "closed") || strstr(text, "device not found"))
		return "NO_DEVICE";
	return "UNKNOWN";
}

const char *sw__android_install_failure_code(const char *text)
{
	if (!text)
		return "INSTALL_FAILED";
	if (strstr(text, "INSTALL_FAILED_NO_MATCHING_ABIS") || strstr(text, "INSTALL_FAILED_CPU_ABI_INCOMPATIBLE"))
		return "APK_ARCH_INCOMPATIBLE";
	if (strstr(text, "INSTALL_FAILED_OLDER_SDK"))
		return "ANDROID_MIN_SDK_INCOMPATIBLE";
	if (strstr(text, "INSTALL_FAILED_UPDATE_INCOMPATIBLE") ||
	    strstr(text, "INSTALL_FAILED_SHARED_USER_INCOMPATIBLE") ||
	    strstr(text, "INSTALL_PARSE_FAILED_NO_CERTIFICATES") || strstr(text, "INCONSISTENT_CERTIFICATES") ||
	    strstr(text, "signatures do not match"))
		return "ANDROID_SIGNATURE_CONFLICT";
	return "INSTALL_FAILED";
}
