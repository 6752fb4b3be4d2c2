/* resource.c: the canonical suite as an MCP resource (swipium://project/<id>/app-map/test-suite/canonical). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <swipium/appmap.h>
#include <swipium/redact.h>
#include <swipium/suite.h>

#include "suite-internal.h"

#define RESOURCE_TEXT_CAP ((size_t)1024 * 1024) /* the qa_get_artifact text cap */

SW_API int sw_suite_resource_uri(sw_ctx *ctx, const char *project_root, char **uri_out, int *exists_out, sw_error **err)
{
	if (!project_root || !uri_out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_suite_resource_uri: bad arguments");
	*uri_out = NULL;
	if (exists_out)
		*exists_out = 0;
	char pid[SW_PROJECT_ID_SIZE];
	/* recorded in ~/.swipium/projects.json so the URI still resolves in a later server process */
	int rc = sw_appmap_project_register(ctx, project_root, pid, NULL, err);
	if (rc != SW_OK)
		return rc;
	if (exists_out) {
		char *p = NULL;
		*exists_out =
		    sw__confine(project_root, SW_SUITE_FILE, SW__CONFINE_EXISTING, &p, NULL) == SW_OK && sw__is_file(p);
		free(p);
	}
	*uri_out = sw__asprintf("swipium://project/%s/app-map/test-suite/" SW_SUITE_RESOURCE_ID, pid);
	return *uri_out ? SW_OK : sw__error_nomem(err);
}

SW_API int sw_suite_resource_read(const char *project_root, struct sw_redactor *const *redactors, size_t n_redactors,
                                  char **text_out, size_t *len_out, int *truncated_out, sw_error **err)
{
	if (!project_root || !text_out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_suite_resource_read: bad arguments");
	*text_out = NULL;
	if (len_out)
		*len_out = 0;
	if (truncated_out)
		*truncated_out = 0;
	sw__suite_doc d = {.lock_fd = -1};
	/* read-only: a corrupt file is SW_EPARSE (left untouched, never shown as an empty suite) */
	int rc = sw__suite_open(project_root, false, false, &d, NULL, err);
	if (rc < 0)
		return rc;
	if (!d.existed) {
		sw__suite_close(&d);
		return sw__error_set(
		    err, SW_ENOTFOUND, "UNKNOWN",
		    "qa_suite_generate or qa_suite_update creates it; qa_suite_read says what is there.",
		    "the project has no %s yet", SW_SUITE_FILE);
	}
	char *text = sw__json_pretty(d.doc);
	sw__suite_close(&d);
	if (!text)
		return sw__error_nomem(err);
	/* every session's redactor of the caller: a secret written by hand into the file is not echoed */
	for (size_t i = 0; i < n_redactors; i++) {
		if (!redactors[i] || sw_redactor_count(redactors[i]) == 0)
			continue;
		char *clean = NULL;
		rc = sw_redactor_redact_json(redactors[i], text, &clean, err);
		free(text);
		if (rc != SW_OK)
			return rc;
		text = clean;
	}
	size_t len = strlen(text);
	if (len > RESOURCE_TEXT_CAP) {
		/* the head, cut before a lead byte (never inside a character), and a note saying what is left out */
		size_t end = RESOURCE_TEXT_CAP;
		while (end > 0 && ((unsigned char)text[end] & 0xC0) == 0x80)
			end--;
		sw_buf b = SW_BUF_INIT;
		sw__buf_append(&b, text, end);
		sw__buf_printf(
		    &b,
		    "\n[swipium: truncated: showing the first %zu of %zu bytes of the suite JSON; the whole file is "
		    "%s; qa_suite_read {format:\"json\", functionality, status} gives parts of it]\n",
		    end, len, SW_SUITE_FILE);
		sw__buf_putc(&b, '\0');
		free(text);
		text = sw__buf_steal(&b, NULL);
		if (!text)
			return sw__error_nomem(err);
		len = strlen(text);
		if (truncated_out)
			*truncated_out = 1;
	}
	*text_out = text;
	if (len_out)
		*len_out = len;
	return SW_OK;
}
