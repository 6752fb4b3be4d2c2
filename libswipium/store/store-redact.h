/* store-redact.h: how the store calls the redactor (swipium/redact.h) for the texts it persists. */
#ifndef SW_STORE_REDACT_H
#define SW_STORE_REDACT_H

#include <stdlib.h>
#include <string.h>

#include <swipium/redact.h>

static inline struct sw_redactor *sw__redact_glue_new(void)
{
	sw_redactor *r = NULL;
	return sw_redactor_new(&r, NULL) == SW_OK ? r : NULL;
}

static inline void sw__redact_glue_free(struct sw_redactor *r)
{
	sw_redactor_free(r);
}

/* Non-zero when at least one secret is registered (otherwise redaction is the identity). */
static inline int sw__redact_glue_active(struct sw_redactor *r)
{
	return r && sw_redactor_count(r) > 0;
}

/* A redacted copy of @text; NULL only when out of memory. */
static inline char *sw__redact_glue_text(struct sw_redactor *r, const char *text)
{
	if (!text)
		return NULL;
	if (!sw__redact_glue_active(r))
		return strdup(text);
	char *out = NULL;
	if (sw_redactor_redact_text(r, text, strlen(text), &out, NULL, NULL, NULL) != SW_OK)
		return NULL;
	return out;
}

#endif
