/* context.c: the library context and the logging path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sw-internal.h"

SW_API int sw_log_level_parse(const char *name, sw_log_level *out)
{
	static const struct {
		const char *name;
		sw_log_level level;
	} levels[] = {
		{"debug", SW_LOG_DEBUG}, {"info", SW_LOG_INFO}, {"warn", SW_LOG_WARN},
		{"warning", SW_LOG_WARN}, {"error", SW_LOG_ERROR},
	};
	if (!name || !out)
		return SW_EINVAL;
	for (size_t i = 0; i < SW_ARRAY_SIZE(levels); i++) {
		if (strcasecmp(name, levels[i].name) == 0) {
			*out = levels[i].level;
			return SW_OK;
		}
	}
	return SW_EINVAL;
}

SW_API int sw_ctx_new(sw_ctx **out, sw_error **err)
{
	if (!out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_ctx_new: out is NULL");
	sw_ctx *ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return sw__error_nomem(err);
	ctx->log_level = SW_LOG_INFO;
	const char *lvl = getenv("SWIPIUM_LOG_LEVEL");
	if (lvl && *lvl)
		(void)sw_log_level_parse(lvl, &ctx->log_level);
	const char *home = getenv("HOME");
	ctx->home = sw__strdup(home && *home ? home : "/");
	if (!ctx->home) {
		free(ctx);
		return sw__error_nomem(err);
	}
	*out = ctx;
	return SW_OK;
}

SW_API void sw_ctx_free(sw_ctx *ctx)
{
	if (!ctx)
		return;
	free(ctx->home);
	free(ctx);
}

SW_API void sw_ctx_set_log_fn(sw_ctx *ctx, sw_log_fn fn, void *userdata)
{
	if (!ctx)
		return;
	ctx->log_fn = fn;
	ctx->log_userdata = userdata;
}

SW_API void sw_ctx_set_log_level(sw_ctx *ctx, sw_log_level level)
{
	if (ctx && level >= SW_LOG_DEBUG && level <= SW_LOG_ERROR)
		ctx->log_level = level;
}

SW_API sw_log_level sw_ctx_get_log_level(const sw_ctx *ctx)
{
	return ctx ? ctx->log_level : SW_LOG_INFO;
}

SW_API int sw_ctx_set_home(sw_ctx *ctx, const char *home, sw_error **err)
{
	if (!ctx || !home || !*home)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_ctx_set_home: home must be a non-empty path");
	char *copy = sw__strdup(home);
	if (!copy)
		return sw__error_nomem(err);
	free(ctx->home);
	ctx->home = copy;
	return SW_OK;
}

SW_API const char *sw_ctx_get_home(const sw_ctx *ctx)
{
	return ctx ? ctx->home : NULL;
}

void sw__log(const sw_ctx *ctx, sw_log_level level, json_t *fields, const char *fmt, ...)
{
	if (!ctx || !ctx->log_fn || level < ctx->log_level)
		return;
	char *msg = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	char *fields_text = fields ? sw__json_compact(fields) : NULL;
	ctx->log_fn(level, msg ? msg : "(log message lost: out of memory)", fields_text ? fields_text : "{}",
		    ctx->log_userdata);
	free(fields_text);
	free(msg);
}
