/* classify.c: which failure code a failed build step gets: a table of log signatures, first match wins. */
#include <errno.h>
#include <string.h>

#include "build-internal.h"

/*
 * One signature: the log line holding @match (and @also, when set) names @code. @scope says which steps the
 * row applies to: a dependency step (npm, yarn, pnpm, pod, pub get) or a build step (Gradle, Flutter,
 * xcodebuild). Rows are tried in order, so the more specific come first: Flutter's own errors before
 * Gradle's (a kernel_snapshot failure reaches the log through Gradle), Gradle's before Flutter's generic
 * "Gradle task failed" line, and the tool-missing lines of wrapper scripts before everything.
 */
struct signature {
	const char *scope; /* SW_BUILD_KIND_DEPS or SW_BUILD_KIND_BUILD */
	const char *code;
	const char *tool;
	const char *match;
	const char *also; /* nullable: a second text the same line must hold */
	const char *why;
};

static const struct signature TABLE[] = {
    /* dependency steps: any failure is DEPENDENCY_INSTALL_REQUIRED; the row says what the log showed */
    {SW_BUILD_KIND_DEPS, "DEPENDENCY_INSTALL_REQUIRED", "npm", "ERR_SOCKET_TIMEOUT", NULL, "npm could not reach its registry"},
    {SW_BUILD_KIND_DEPS, "DEPENDENCY_INSTALL_REQUIRED", "npm", "ECONNREFUSED", NULL, "the package registry refused the connection"},
    {SW_BUILD_KIND_DEPS, "DEPENDENCY_INSTALL_REQUIRED", "npm", "ENOTFOUND", NULL, "the package registry's host name does not resolve"},
    {SW_BUILD_KIND_DEPS, "DEPENDENCY_INSTALL_REQUIRED", "npm", "ETIMEDOUT", NULL, "the package registry did not answer in time"},
    {SW_BUILD_KIND_DEPS, "DEPENDENCY_INSTALL_REQUIRED", "npm", "ERESOLVE", NULL, "npm could not resolve the dependency tree"},
    {SW_BUILD_KIND_DEPS, "DEPENDENCY_INSTALL_REQUIRED", "npm", "npm ERR!", NULL, "npm install failed"},
    {SW_BUILD_KIND_DEPS, "DEPENDENCY_INSTALL_REQUIRED", "npm", "npm error", NULL, "npm install failed"},
    {SW_BUILD_KIND_DEPS, "DEPENDENCY_INSTALL_REQUIRED", "yarn", "error An unexpected error occurred", NULL, "yarn install failed"},
    {SW_BUILD_KIND_DEPS, "DEPENDENCY_INSTALL_REQUIRED", "pnpm", "ERR_PNPM_", NULL, "pnpm install failed"},
    {SW_BUILD_KIND_DEPS, "DEPENDENCY_INSTALL_REQUIRED", "pod", "[!] ", NULL, "CocoaPods could not install the pods"},
    {SW_BUILD_KIND_DEPS, "DEPENDENCY_INSTALL_REQUIRED", "flutter", "version solving failed", NULL, "pub could not solve the package versions"},
    {SW_BUILD_KIND_DEPS, "DEPENDENCY_INSTALL_REQUIRED", "flutter", "pub get failed", NULL, "flutter pub get failed"},
    /* build steps: a tool the wrapper script needs is missing */
    {SW_BUILD_KIND_BUILD, "BUILD_COMMAND_UNAVAILABLE", "gradle", "JAVA_HOME is not set and no 'java' command", NULL, "the Gradle wrapper found no JDK"},
    {SW_BUILD_KIND_BUILD, "BUILD_COMMAND_UNAVAILABLE", "gradle", "JAVA_HOME is set to an invalid directory", NULL, "JAVA_HOME does not point to a JDK"},
    {SW_BUILD_KIND_BUILD, "BUILD_COMMAND_UNAVAILABLE", "xcodebuild", "requires Xcode, but active developer directory", NULL, "only the Command Line Tools are selected, not Xcode"},
    /* build steps: Dart and `flutter assemble` (also when Gradle or Xcode ran them) */
    {SW_BUILD_KIND_BUILD, "FLUTTER_BUILD_FAILED", "flutter", "Target kernel_snapshot", "failed", "the Dart compile (kernel_snapshot) failed"},
    {SW_BUILD_KIND_BUILD, "FLUTTER_BUILD_FAILED", "flutter", "Execution failed for task '", ":compileFlutterBuild", "Gradle's Flutter compile task (flutter assemble) failed"},
    {SW_BUILD_KIND_BUILD, "FLUTTER_BUILD_FAILED", "flutter", "Dart compiler exited unexpectedly", NULL, "the Dart compiler crashed"},
    {SW_BUILD_KIND_BUILD, "FLUTTER_BUILD_FAILED", "flutter", ".dart:", "Error:", "a Dart compile error"},
    /* build steps: Gradle's own errors (also under flutter build) */
    {SW_BUILD_KIND_BUILD, "GRADLE_FAILED", "gradle", "SDK location not found", NULL, "Gradle found no Android SDK (ANDROID_HOME or local.properties sdk.dir)"},
    {SW_BUILD_KIND_BUILD, "GRADLE_FAILED", "gradle", "Could not resolve all", NULL, "Gradle could not resolve the dependencies"},
    {SW_BUILD_KIND_BUILD, "GRADLE_FAILED", "gradle", "Could not resolve ", NULL, "Gradle could not resolve a dependency"},
    {SW_BUILD_KIND_BUILD, "GRADLE_FAILED", "gradle", "Could not determine the dependencies of task", NULL, "Gradle could not resolve a task's dependencies"},
    {SW_BUILD_KIND_BUILD, "GRADLE_FAILED", "gradle", "JdkImageTransform", NULL, "the Android Gradle plugin's JDK image transform failed (JDK and AGP versions do not fit)"},
    {SW_BUILD_KIND_BUILD, "GRADLE_FAILED", "gradle", "Failed to transform", NULL, "a Gradle artifact transform failed"},
    {SW_BUILD_KIND_BUILD, "GRADLE_FAILED", "gradle", "Unsupported class file major version", NULL, "the JDK is newer than the Gradle version supports"},
    {SW_BUILD_KIND_BUILD, "GRADLE_FAILED", "gradle", "Android Gradle plugin requires Java", NULL, "the JDK is older than the Android Gradle plugin needs"},
    {SW_BUILD_KIND_BUILD, "GRADLE_FAILED", "gradle", "Execution failed for task '", NULL, "a Gradle task failed"},
    {SW_BUILD_KIND_BUILD, "GRADLE_FAILED", "gradle", "FAILURE: Build failed with an exception", NULL, "the Gradle build failed"},
    {SW_BUILD_KIND_BUILD, "GRADLE_FAILED", "gradle", "BUILD FAILED in ", NULL, "the Gradle build failed"},
    /* build steps: xcodebuild's errors (signing, scheme, compile) */
    {SW_BUILD_KIND_BUILD, "XCODEBUILD_FAILED", "xcodebuild", "requires a development team", NULL, "code signing needs a development team"},
    {SW_BUILD_KIND_BUILD, "XCODEBUILD_FAILED", "xcodebuild", "No profiles for", NULL, "no provisioning profile matches"},
    {SW_BUILD_KIND_BUILD, "XCODEBUILD_FAILED", "xcodebuild", "Code Signing Error", NULL, "code signing failed"},
    {SW_BUILD_KIND_BUILD, "XCODEBUILD_FAILED", "xcodebuild", "does not contain a scheme named", NULL, "the scheme does not exist"},
    {SW_BUILD_KIND_BUILD, "XCODEBUILD_FAILED", "xcodebuild", "xcodebuild: error:", NULL, "xcodebuild refused the command"},
    {SW_BUILD_KIND_BUILD, "XCODEBUILD_FAILED", "xcodebuild", "The following build commands failed:", NULL, "an Xcode build command failed"},
    {SW_BUILD_KIND_BUILD, "XCODEBUILD_FAILED", "xcodebuild", "** BUILD FAILED **", NULL, "the Xcode build failed"},
    /* build steps: Flutter's generic lines, once Gradle's and Xcode's own errors had their turn */
    {SW_BUILD_KIND_BUILD, "FLUTTER_BUILD_FAILED", "flutter", "Failed to build iOS app", NULL, "flutter build ios failed"},
    {SW_BUILD_KIND_BUILD, "FLUTTER_BUILD_FAILED", "flutter", "Gradle task assemble", "failed with exit code", "flutter build apk failed in Gradle"},
};

/* The line of @log around @at, capped at 300 characters. (transfer full) */
static char *line_at(const char *log, size_t len, const char *at)
{
	const char *b = at, *e = at;
	while (b > log && b[-1] != '\n')
		b--;
	while (e < log + len && *e != '\n' && *e != '\r')
		e++;
	while (b < e && (*b == ' ' || *b == '\t'))
		b++;
	return sw_text_cap(b, (size_t)(e - b), 300, SW_CAP_HEAD);
}

/* The first place of @log holding @match on a line that also holds @also (nullable). */
static const char *find_line(const char *log, size_t len, const char *match, const char *also)
{
	size_t ml = strlen(match);
	const char *p = log, *end = log + len;
	while (p < end) {
		const char *hit = memmem(p, (size_t)(end - p), match, ml);
		if (!hit)
			return NULL;
		if (!also)
			return hit;
		const char *b = hit, *e = hit;
		while (b > log && b[-1] != '\n')
			b--;
		while (e < end && *e != '\n')
			e++;
		if (memmem(b, (size_t)(e - b), also, strlen(also)))
			return hit;
		p = e;
	}
	return NULL;
}

static json_t *verdict(const char *code, const char *why, const struct signature *sig, const char *log, size_t len,
                       const char *at)
{
	json_t *v = json_pack("{s:s,s:s}", "failureCode", code, "why", why);
	if (sig) {
		json_object_set_new(v, "signature", json_string(sig->match));
		char *line = line_at(log, len, at);
		if (line)
			json_object_set_new(v, "line", json_string(line));
		sw_free(line);
	}
	return v;
}

json_t *sw__build_classify(const char *kind, const char *tool, int exit_status, int exec_errno, bool timed_out,
                           const char *log, size_t len)
{
	if (!log)
		len = 0;
	bool deps = kind && !strcmp(kind, SW_BUILD_KIND_DEPS);
	if (exec_errno || exit_status == 127) {
		char why[200];
		sw_text_snprintf(why, sizeof(why), "%s could not be started (%s)", tool ? tool : "the program",
		                 exec_errno ? strerror(exec_errno) : "exit status 127: command not found");
		return verdict("BUILD_COMMAND_UNAVAILABLE", why, NULL, NULL, 0, NULL);
	}
	if (timed_out)
		return verdict("BUILD_TIMED_OUT", "the step ran past its time limit and was stopped", NULL, NULL, 0, NULL);
	if (kind && !strcmp(kind, SW_BUILD_KIND_PREBUILD))
		return verdict("EXPO_PREBUILD_REQUIRED", "Expo prebuild could not write the native project", NULL, NULL, 0,
		               NULL);
	const char *scope = deps ? SW_BUILD_KIND_DEPS : SW_BUILD_KIND_BUILD;
	for (size_t i = 0; log && i < SW_ARRAY_SIZE(TABLE); i++) {
		if (strcmp(TABLE[i].scope, scope))
			continue;
		const char *at = find_line(log, len, TABLE[i].match, TABLE[i].also);
		if (at)
			return verdict(TABLE[i].code, TABLE[i].why, &TABLE[i], log, len, at);
	}
	if (deps)
		return verdict("DEPENDENCY_INSTALL_REQUIRED", "the dependency install failed", NULL, NULL, 0, NULL);
	return verdict("BUILD_FAILED", "the build failed and its log shows no error this classifier knows", NULL, NULL, 0,
	               NULL);
}

SW_API int sw_build_classify(const char *step_json, int exit_status, int exec_errno, int timed_out, const char *log,
                             size_t len, char **out_json, sw_error **err)
{
	if (!out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_build_classify: out_json is required");
	json_t *st = step_json ? json_loads(step_json, 0, NULL) : NULL;
	if (step_json && !json_is_object(st)) {
		json_decref(st);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "The step is not a JSON object.");
	}
	json_t *v = sw__build_classify(json_string_value(json_object_get(st, "kind")),
	                               json_string_value(json_object_get(st, "tool")), exit_status, exec_errno,
	                               timed_out != 0, log, len);
	json_decref(st);
	*out_json = v ? sw__json_compact(v) : NULL;
	json_decref(v);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

SW_API int sw_build_signatures_json(char **out_json, sw_error **err)
{
	if (!out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_build_signatures_json: out_json is required");
	json_t *a = json_array();
	for (size_t i = 0; i < SW_ARRAY_SIZE(TABLE); i++) {
		json_t *row = json_pack("{s:s,s:s,s:s,s:s,s:s}", "scope", TABLE[i].scope, "code", TABLE[i].code, "tool",
		                        TABLE[i].tool, "match", TABLE[i].match, "why", TABLE[i].why);
		if (TABLE[i].also)
			json_object_set_new(row, "alsoOnLine", json_string(TABLE[i].also));
		json_array_append_new(a, row);
	}
	*out_json = sw__json_compact(a);
	json_decref(a);
	return *out_json ? SW_OK : sw__error_nomem(err);
}
