/* project.c: the project-root rule (explicit argument, client roots, environment, cwd). */
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sw-internal.h"

SW_API int sw_project_has_marker(const char *dir)
{
	static const char *const files[] = {
		"package.json", "app.json", "pubspec.yaml", "build.gradle", "build.gradle.kts",
		"settings.gradle", "settings.gradle.kts", "Podfile",
	};
	static const char *const dirs[] = {"android", "ios"};
	if (!dir || !sw__is_dir(dir))
		return 0;
	for (size_t i = 0; i < SW_ARRAY_SIZE(files); i++) {
		char *p = sw__path_join(dir, files[i]);
		bool hit = p && sw__is_file(p);
		free(p);
		if (hit)
			return 1;
	}
	for (size_t i = 0; i < SW_ARRAY_SIZE(dirs); i++) {
		char *p = sw__path_join(dir, dirs[i]);
		bool hit = p && sw__is_dir(p);
		free(p);
		if (hit)
			return 1;
	}
	int found = 0;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *e;
	while (!found && (e = readdir(d))) {
		if (sw__str_has_suffix(e->d_name, ".xcodeproj") || sw__str_has_suffix(e->d_name, ".xcworkspace"))
			found = 1;
	}
	closedir(d);
	return found;
}

/* Same directory after resolving symlinks and trailing slashes. */
static bool same_dir(const char *a, const char *b)
{
	if (!a || !b)
		return false;
	char *ra = sw__path_real_or_resolved(a), *rb = sw__path_real_or_resolved(b);
	bool same = ra && rb && strcmp(ra, rb) == 0;
	free(ra);
	free(rb);
	return same;
}

static int done(char **root_out, char **source_out, const char *root, const char *source, sw_error **err)
{
	char *r = sw__path_resolve(NULL, root);
	char *s = sw__strdup(source);
	if (!r || !s) {
		free(r);
		free(s);
		return sw__error_nomem(err);
	}
	*root_out = r;
	if (source_out)
		*source_out = s;
	else
		free(s);
	return SW_OK;
}

SW_API int sw_project_root_resolve(const sw_root_request *req, char **root_out, char **source_out, sw_error **err)
{
	if (!req || !root_out || req->version != SW_ROOT_REQUEST_VERSION)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
				     "sw_project_root_resolve: missing request or unknown request version");
	const char *home = req->home ? req->home : getenv("HOME");

	if (req->project_root) {
		if (req->project_root[0] != '/' || !sw__is_dir(req->project_root))
			return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
					     "Pass the absolute path of the app's repository as projectRoot.",
					     "projectRoot must be an absolute path to an existing directory (got \"%s\")",
					     req->project_root);
		return done(root_out, source_out, req->project_root, "arg", err);
	}

	if (req->mcp_roots) {
		const char *fallback = NULL;
		for (const char *const *r = req->mcp_roots; *r; r++) {
			if (!sw__is_dir(*r))
				continue;
			if (sw_project_has_marker(*r))
				return done(root_out, source_out, *r, "mcp-roots", err);
			if (!fallback && strcmp(*r, "/") != 0 && !same_dir(*r, home))
				fallback = *r;
		}
		if (fallback)
			return done(root_out, source_out, fallback, "mcp-roots", err);
	}

	if (req->use_process_env) {
		const char *v = getenv("SWIPIUM_PROJECT_ROOT");
		if (v && *v)
			return done(root_out, source_out, v, "env:SWIPIUM_PROJECT_ROOT", err);
		v = getenv("CLAUDE_PROJECT_DIR");
		if (v && *v)
			return done(root_out, source_out, v, "env:CLAUDE_PROJECT_DIR", err);
	}

	char cwdbuf[PATH_MAX];
	const char *cwd = req->cwd;
	if (!cwd)
		cwd = getcwd(cwdbuf, sizeof(cwdbuf));
	if (cwd && strcmp(cwd, "/") != 0 && !same_dir(cwd, home) && sw_project_has_marker(cwd))
		return done(root_out, source_out, cwd, "cwd", err);

	return sw__error_set(err, SW_ENOTFOUND, "PROJECT_ROOT_UNRESOLVED",
			     "Pass projectRoot (absolute path of the app repository) or set SWIPIUM_PROJECT_ROOT.",
			     "could not determine the app project root: no projectRoot argument, no client root, "
			     "no SWIPIUM_PROJECT_ROOT or CLAUDE_PROJECT_DIR, and the working directory %s holds no project marker",
			     cwd ? cwd : "(unknown)");
}

/* The variables swipium reads (TOOLS.md §7.7) plus the toolchain and CI ones its tools pass on. */
static const char *const client_env_vars[] = {"SWIPIUM_TEST_EMAIL",
                                             "SWIPIUM_TEST_USERNAME",
                                             "SWIPIUM_TEST_PASSWORD",
                                             "SWIPIUM_TEST_OTP",
                                             "SWIPIUM_TEST_PIN",
                                             "SWIPIUM_TEST_TOKEN",
                                             "SWIPIUM_TEST_DEEP_LINK",
                                             "SWIPIUM_VERIFICATION_CODE",
                                             "SWIPIUM_PROJECT_ROOT",
                                             "SWIPIUM_REQUIRE_ELICITATION",
                                             "SWIPIUM_LOG_LEVEL",
                                             "SWIPIUM_OCR_CMD",
                                             "SWIPIUM_VISUAL_MASK_CMD",
                                             "SWIPIUM_RETENTION_DAYS",
                                             "SWIPIUM_RETENTION_KEEP",
                                             "ANDROID_HOME",
                                             "ANDROID_SDK_ROOT",
                                             "ANDROID_SDK_HOME",
                                             "ANDROID_USER_HOME",
                                             "ANDROID_AVD_HOME",
                                             "ANDROID_EMULATOR_HOME",
                                             "JAVA_HOME",
                                             "JAVA_TOOL_OPTIONS",
                                             "GRADLE_USER_HOME",
                                             "GRADLE_OPTS",
                                             "BUNDLETOOL_JAR",
                                             "APPIUM_HOME",
                                             "DEVELOPER_DIR",
                                             "DEVELOPMENT_TEAM",
                                             "XCODE_DEVELOPMENT_TEAM",
                                             "WDA_PROJECT_PATH",
                                             "WEBDRIVERAGENT_PROJECT",
                                             "HTTP_PROXY",
                                             "HTTPS_PROXY",
                                             "NO_PROXY",
                                             "CI",
                                             "GITHUB_SHA",
                                             "GITHUB_REF_NAME",
                                             "GITHUB_SERVER_URL",
                                             "GITHUB_REPOSITORY",
                                             "GITHUB_RUN_ID",
                                             "CI_COMMIT_SHA",
                                             "CI_COMMIT_REF_NAME",
                                             "CI_PIPELINE_URL",
                                             "BITBUCKET_COMMIT",
                                             "BITBUCKET_BRANCH",
                                             NULL};

SW_API const char *const *sw_client_env_vars(void)
{
	return client_env_vars;
}
