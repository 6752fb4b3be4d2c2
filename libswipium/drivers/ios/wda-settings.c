/* wda-settings.c: the repository's ios.wda.* settings (startupTimeoutMs, capabilities, url, allowNonLoopbackUrls)
 * from <project>/.swipium/config.json, read through the project confinement. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ios-internal.h"

#define CONFIG_CAP (1024 * 1024)

static json_t *load_config(sw_session *s)
{
	const char *root = s ? sw_session_root(s) : NULL;
	if (!root)
		return NULL;
	int fd = sw__confine_open(root, ".swipium/config.json", O_RDONLY, 0, SW__CONFINE_EXISTING, NULL, NULL);
	if (fd < 0)
		return NULL;
	sw_buf b = SW_BUF_INIT;
	char chunk[8192];
	ssize_t n;
	while (b.len <= CONFIG_CAP && (n = read(fd, chunk, sizeof(chunk))) > 0)
		sw__buf_append(&b, chunk, (size_t)n);
	close(fd);
	json_t *cfg = b.len <= CONFIG_CAP && b.data ? json_loadb(b.data, b.len, 0, NULL) : NULL;
	sw__buf_free(&b);
	if (!json_is_object(cfg)) {
		json_decref(cfg);
		return NULL;
	}
	return cfg;
}

json_t *sw__wda_setting(sw_session *s, const char *key)
{
	json_t *cfg = load_config(s);
	if (!cfg || !key)
		return NULL;
	json_t *v = json_object_get(json_object_get(json_object_get(cfg, "ios"), "wda"), key);
	if (!v) {
		char dotted[128];
		snprintf(dotted, sizeof(dotted), "ios.wda.%s", key);
		v = json_object_get(cfg, dotted);
	}
	json_incref(v);
	json_decref(cfg);
	return v;
}
