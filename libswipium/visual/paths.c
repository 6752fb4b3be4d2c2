/* paths.c: baseline names and image paths confined to the project root (symlinks resolved before the check). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "visual-internal.h"

/* 1 when @path (a real path) is @root or inside it. */
static bool inside(const char *root, const char *path)
{
	size_t n = strlen(root);
	if (n > 1 && root[n - 1] == '/')
		n--;
	return !strncmp(root, path, n) && (path[n] == '\0' || path[n] == '/' || (n == 1 && root[0] == '/'));
}

static int refuse(sw_error **err, const char *what, const char *path)
{
	char *shown = sw__cap(path, 300);
	int rc = sw__error_set(err, SW_EDENIED, "VISUAL_PATH_REFUSED",
	                       "Keep baselines and templates inside the project (symlinks leading out are refused)",
	                       "%s %s resolves outside the project root", what, shown ? shown : "");
	free(shown);
	return rc;
}

/* "The project root … does not exist", the path capped (never cut inside a character). */
static int no_root(sw_error **err, const char *project_root)
{
	char *shown = sw__cap(project_root, 300);
	int rc = sw__error_set(err, SW_ENOTFOUND, "INVALID_ARGUMENT", NULL, "The project root %s does not exist",
	                       shown ? shown : "");
	free(shown);
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
	int rc = SW_OK;
	char *root = realpath(project_root, NULL), *dir = NULL, *rdir = NULL, *file = NULL, *rfile = NULL;
	if (!root) {
		rc = no_root(err, project_root);
		goto out;
	}
	dir = sw__path_join(root, ".swipium/baselines");
	if (!dir) {
		rc = sw__error_nomem(err);
		goto out;
	}
	if (create) {
		/* create step by step so that an existing symlinked .swipium is checked before anything is made in it
		 */
		char *sw = sw__path_join(root, ".swipium");
		char *rsw = sw ? realpath(sw, NULL) : NULL;
		if (rsw && !inside(root, rsw)) {
			rc = refuse(err, "The folder", sw);
			free(sw);
			free(rsw);
			goto out;
		}
		free(sw);
		free(rsw);
		rdir = realpath(dir, NULL);
		if (rdir && !inside(root, rdir)) {
			rc = refuse(err, "The baselines folder", dir);
			goto out;
		}
		free(rdir);
		rdir = NULL;
		if ((rc = sw__mkdirs(dir, 0700, err)) < 0)
			goto out;
	}
	rdir = realpath(dir, NULL);
	if (rdir && !inside(root, rdir)) {
		rc = refuse(err, "The baselines folder", dir);
		goto out;
	}
	file = sw__asprintf("%s/%s.png", rdir ? rdir : dir, name);
	if (!file) {
		rc = sw__error_nomem(err);
		goto out;
	}
	struct stat st;
	if (lstat(file, &st) == 0) {
		rfile = realpath(file, NULL);
		if (!rfile || !inside(root, rfile)) {
			rc = refuse(err, "The baseline", file);
			goto out;
		}
	}
	*out = file;
	file = NULL;
out:
	free(root);
	free(dir);
	free(rdir);
	free(file);
	free(rfile);
	return rc;
}

SW_API int sw_visual_resolve_path(const char *project_root, const char *path, char **out, sw_error **err)
{
	if (!project_root || !path || !*path || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "An image path is required");
	int rc = SW_OK;
	char *root = realpath(project_root, NULL), *abs = NULL, *real = NULL;
	if (!root) {
		rc = no_root(err, project_root);
		goto out;
	}
	abs = path[0] == '/' ? sw__strdup(path) : sw__path_join(root, path);
	if (!abs) {
		rc = sw__error_nomem(err);
		goto out;
	}
	real = realpath(abs, NULL);
	if (!real) {
		int e = errno;
		/* a missing file is only reported when the lexical path stays inside; otherwise it is a refusal */
		char *lex = sw__path_resolve(root, path);
		bool in = lex && inside(root, lex);
		free(lex);
		if (!in)
			rc = refuse(err, "The image", path);
		else
		{
			char *shown = sw__cap(path, 300);
			rc = sw__error_set(err, SW_ENOTFOUND, "INVALID_ARGUMENT",
			                   "Give a PNG path relative to the project root",
			                   "The image %s does not exist (%s)", shown ? shown : "", strerror(e));
			free(shown);
		}
		goto out;
	}
	if (!inside(root, real)) {
		rc = refuse(err, "The image", path);
		goto out;
	}
	*out = real;
	real = NULL;
out:
	free(root);
	free(abs);
	free(real);
	return rc;
}
