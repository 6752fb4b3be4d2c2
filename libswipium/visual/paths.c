/* paths.c: baseline names and image paths confined to the project root (symlinks resolved before the check). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "visual-internal.h"

/* The shared confinement rule (core/confine.c) under qa_visual's own failure code: a refusal becomes
 * VISUAL_PATH_REFUSED, other failures pass unchanged. */
static int confine(int rc, sw_error *e, sw_error **err)
{
	if (rc == SW_EDENIED) {
		rc = sw__error_set(err, SW_EDENIED, "VISUAL_PATH_REFUSED",
		                   "Keep baselines and templates inside the project (symlinks leading out are refused)",
		                   "%s", sw_error_message(e));
		sw_error_free(e);
		return rc;
	}
	sw__error_propagate(err, e);
	return rc;
}

SW_API int sw_visual_baseline_path(const char *project_root, const char *name, int create, char **out, sw_error **err)
{
	if (!project_root || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_visual_baseline_path: no project root");
	size_t len = name ? strlen(name) : 0;
	bool ok = len >= 1 && len <= 64 && name[0] != '.';
	for (size_t i = 0; ok && i < len; i++) {
		char c = name[i];
		ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
		     c == '_' || c == '-';
	}
	if (!ok) {
		char *shown = sw__cap(name, 80);
		int bad = sw__error_set(err, SW_EDENIED, "VISUAL_PATH_REFUSED",
		                        "Use 1 to 64 of A-Z a-z 0-9 . _ - not starting with a dot, e.g. \"home-screen\"",
		                        "The baseline name \"%s\" is not allowed (no paths, no leading dot)",
		                        shown ? shown : "");
		free(shown);
		return bad;
	}
	sw_error *e = NULL;
	char *rel = sw__asprintf(".swipium/baselines/%s.png", name), *real = NULL;
	if (!rel)
		return sw__error_nomem(err);
	int rc = create ? sw__confine_mkdirs(project_root, ".swipium/baselines", 0700, NULL, &e) : SW_OK;
	if (rc == SW_OK)
		rc = sw__confine(project_root, rel, 0, &real, &e);
	free(rel);
	if (rc < 0)
		return confine(rc, e, err);
	*out = real;
	return SW_OK;
}

SW_API int sw_visual_resolve_path(const char *project_root, const char *path, char **out, sw_error **err)
{
	if (!project_root || !path || !*path || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "An image path is required");
	sw_error *e = NULL;
	char *real = NULL;
	int rc = sw__confine(project_root, path, SW__CONFINE_EXISTING, &real, &e);
	if (rc == SW_ENOTFOUND && e && !strcmp(sw_error_failure_code(e), "UNKNOWN")) {
		sw_error_free(e);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Give a PNG path relative to the project root",
		                     "The image %s does not exist", path);
	}
	if (rc < 0) {
		return confine(rc, e, err);
	}
	*out = real;
	return SW_OK;
}
