/* error.c: the sw_error object and result-code names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw-internal.h"

struct sw_error {
	int code;
	char *failure_code;
	char *message;
	char *hint;
	json_t *details;
	char *details_text;
};

/* Returned when allocating the error itself fails. */
static struct sw_error nomem_error = {SW_ENOMEM, (char *)"UNKNOWN", (char *)"out of memory", NULL, NULL, NULL};

SW_API const char *sw_strerror(int code)
{
	switch (code) {
	case SW_OK: return "SW_OK";
	case SW_EINVAL: return "SW_EINVAL";
	case SW_ENOMEM: return "SW_ENOMEM";
	case SW_EIO: return "SW_EIO";
	case SW_ENOTFOUND: return "SW_ENOTFOUND";
	case SW_EPARSE: return "SW_EPARSE";
	case SW_EEXISTS: return "SW_EEXISTS";
	case SW_EDENIED: return "SW_EDENIED";
	case SW_EUNSUPPORTED: return "SW_EUNSUPPORTED";
	case SW_ECANCELLED: return "SW_ECANCELLED";
	case SW_ETIMEOUT: return "SW_ETIMEOUT";
	case SW_EDEVICE: return "SW_EDEVICE";
	case SW_ESECRET: return "SW_ESECRET";
	case SW_ESTATE: return "SW_ESTATE";
	case SW_ELIMIT: return "SW_ELIMIT";
	default: return "SW_E?";
	}
}

int sw__error_setv(sw_error **err, int code, const char *failure_code, const char *hint, const char *fmt, va_list ap)
{
	if (!err || *err)
		return code;
	struct sw_error *e = calloc(1, sizeof(*e));
	char *msg = NULL;
	if (e && vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	if (!e || !msg) {
		free(e);
		free(msg);
		*err = &nomem_error;
		return code;
	}
	if (!sw__utf8_valid(msg, strlen(msg))) {
		/* device output or a name cut by a caller: the message stays valid UTF-8 (U+FFFD) */
		char *clean = sw__utf8_sanitize(msg, strlen(msg));
		if (clean) {
			free(msg);
			msg = clean;
		}
	}
	e->code = code;
	e->message = msg;
	e->failure_code = failure_code ? strdup(failure_code) : NULL;
	e->hint = hint ? strdup(hint) : NULL;
	*err = e;
	return code;
}

int sw__error_set(sw_error **err, int code, const char *failure_code, const char *hint, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sw__error_setv(err, code, failure_code, hint, fmt, ap);
	va_end(ap);
	return code;
}

int sw__error_nomem(sw_error **err)
{
	if (err && !*err)
		*err = &nomem_error;
	return SW_ENOMEM;
}

void sw__error_take_details(sw_error *err, json_t *details)
{
	if (!err || err == &nomem_error) {
		json_decref(details);
		return;
	}
	json_decref(err->details);
	err->details = details;
	free(err->details_text);
	err->details_text = NULL;
}

json_t *sw__error_details(const sw_error *err)
{
	return err ? err->details : NULL;
}

void sw__error_propagate(sw_error **dst, sw_error *src)
{
	if (dst && !*dst)
		*dst = src;
	else
		sw_error_free(src);
}

SW_API int sw_error_code(const sw_error *err)
{
	return err ? err->code : SW_OK;
}

SW_API const char *sw_error_failure_code(const sw_error *err)
{
	return err && err->failure_code ? err->failure_code : "UNKNOWN";
}

SW_API const char *sw_error_message(const sw_error *err)
{
	return err && err->message ? err->message : "";
}

SW_API const char *sw_error_hint(const sw_error *err)
{
	return err ? err->hint : NULL;
}

SW_API const char *sw_error_details_json(const sw_error *err)
{
	if (!err || !err->details)
		return NULL;
	if (!err->details_text) {
		/* Lazily rendered; the cast is safe because the text is a cache. */
		((struct sw_error *)err)->details_text = sw__json_compact(err->details);
	}
	return err->details_text;
}

SW_API void sw_error_free(sw_error *err)
{
	if (!err || err == &nomem_error)
		return;
	free(err->failure_code);
	free(err->message);
	free(err->hint);
	json_decref(err->details);
	free(err->details_text);
	free(err);
}

SW_API void sw_free(void *ptr)
{
	free(ptr);
}
