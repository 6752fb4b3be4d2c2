/* check-build.c: unit tests of the build concern: the plan per framework (exact steps, PATH lookups, refusals,
 * nothing written), the log classifier on real build logs (tests/data/buildlogs/), and sw_build_run on
 * stand-in steps (the log artifact, the artifact found again, timeouts). */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sw-internal.h"

#include <swipium/build.h>
#include <swipium/session.h>

static char *tmp;      /* the test's folder */
static char *bin;      /* stand-in tools, first on PATH */
static char *old_path; /* PATH before the test */

static void put(const char *rel, const char *text, int mode)
{
	char *p = sw__path_join(tmp, rel);
	char *dir = strdup(p);
	*strrchr(dir, '/') = '\0';
	ck_assert_int_eq(sw__mkdirs(dir, 0755, NULL), SW_OK);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	chmod(p, (mode_t)mode);
	free(dir);
	free(p);
}

static void tool(const char *name)
{
	char *rel = sw__asprintf("bin/%s", name);
	put(rel, "#!/bin/sh\nexit 0\n", 0755);
	free(rel);
}

static void setup(void)
{
	char tmpl[] = "/tmp/sw-build-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	tmp = strdup(tmpl);
	bin = sw__path_join(tmp, "bin");
	ck_assert_int_eq(sw__mkdirs(bin, 0755, NULL), SW_OK);
	const char *p = getenv("PATH");
	old_path = strdup(p ? p : "");
	/* only the stand-ins: the plan must find its tools there, not on the machine */
	setenv("PATH", bin, 1);
}

static void teardown(void)
{
	setenv("PATH", old_path, 1);
	char *cmd = sw__asprintf("/bin/rm -rf '%s'", tmp);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(tmp);
	free(bin);
	free(old_path);
}

static char *app(const char *rel)
{
	return sw__path_join(tmp, rel);
}

/* Plans @root; returns the plan (success) or NULL with *@code set. */
static json_t *plan(const char *root, const char *opts, char **code, json_t **details)
{
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_build_plan(root, opts, &out, &err);
	if (code)
		*code = NULL;
	if (details)
		*details = NULL;
	if (rc != SW_OK) {
		ck_assert_ptr_nonnull(err);
		if (code)
			*code = strdup(sw_error_failure_code(err));
		if (details && sw_error_details_json(err))
			*details = json_loads(sw_error_details_json(err), 0, NULL);
		sw_error_free(err);
		return NULL;
	}
	json_t *j = json_loads(out, 0, NULL);
	sw_free(out);
	ck_assert_ptr_nonnull(j);
	return j;
}

static json_t *step_at(json_t *p, const char *list, size_t i)
{
	return json_array_get(json_object_get(p, list), i);
}

static char *argv_line(json_t *step)
{
	sw_buf b = SW_BUF_INIT;
	size_t i;
	json_t *a;
	json_array_foreach(json_object_get(step, "argv"), i, a) sw__buf_printf(&b, "%s%s", i ? " " : "", json_string_value(a));
	return sw__buf_steal(&b, NULL);
}

static void assert_step(json_t *step, const char *argv, const char *cwd_rel, const char *kind)
{
	ck_assert_ptr_nonnull(step);
	char *line = argv_line(step);
	ck_assert_str_eq(line, argv);
	free(line);
	char *cwd = app(cwd_rel);
	ck_assert_str_eq(json_string_value(json_object_get(step, "cwd")), cwd);
	free(cwd);
	ck_assert_str_eq(json_string_value(json_object_get(step, "kind")), kind);
	ck_assert_ptr_nonnull(json_string_value(json_object_get(step, "label")));
	ck_assert_ptr_nonnull(json_string_value(json_object_get(step, "command")));
}

/* A copy of a real npm template (tests/data/apptrees) at @rel. */
static void copy_tree(const char *name, const char *rel)
{
	const char *src = getenv("SWIPIUM_SOURCE_ROOT");
	ck_assert_ptr_nonnull(src);
	char *cmd = sw__asprintf("/bin/cp -R '%s/tests/data/apptrees/%s' '%s/%s'", src, name, tmp, rel);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

/* Every file name and size under @dir, for "the plan wrote nothing". */
static void listing(const char *dir, sw_buf *b)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *p = sw__path_join(dir, e->d_name);
		struct stat st;
		if (lstat(p, &st) == 0) {
			sw__buf_printf(b, "%s %lld %lld\n", p, (long long)st.st_size, (long long)st.st_mtime);
			if (S_ISDIR(st.st_mode))
				listing(p, b);
		}
		free(p);
	}
	closedir(d);
}

/* ---- plans ------------------------------------------------------------------------------------------- */

START_TEST(plan_bare_react_native_android)
{
	copy_tree("rn-community-template", "rn");
	put("rn/android/gradlew", "#!/bin/sh\nexit 0\n", 0755);
	put("rn/package-lock.json", "{}", 0644);
	tool("npm");
	char *root = app("rn");
	sw_buf before = SW_BUF_INIT, after = SW_BUF_INIT;
	listing(tmp, &before);
	json_t *p = plan(root, "{\"platform\":\"android\"}", NULL, NULL);
	listing(tmp, &after);
	ck_assert_str_eq(before.data, after.data); /* side-effect free */
	ck_assert_str_eq(json_string_value(json_object_get(p, "framework")), "bare-react-native");
	ck_assert_str_eq(json_string_value(json_object_get(p, "variant")), "debug");
	ck_assert_int_eq(json_array_size(json_object_get(p, "prerequisites")), 1);
	assert_step(step_at(p, "prerequisites", 0), "npm install", "rn", "dependencies");
	ck_assert_int_eq(json_array_size(json_object_get(p, "build")), 1);
	assert_step(step_at(p, "build", 0), "./gradlew assembleDebug", "rn/android", "build");
	ck_assert(json_is_true(json_object_get(p, "toolchainOk")));
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(p, "expectedArtifactGlobs"), 0)),
	                 "android/app/build/outputs/apk/debug/*.apk");
	json_decref(p);
	/* release, and node_modules present: no install step */
	put("rn/node_modules/.keep", "", 0644);
	p = plan(root, "{\"platform\":\"android\",\"variant\":\"release\"}", NULL, NULL);
	ck_assert_int_eq(json_array_size(json_object_get(p, "prerequisites")), 0);
	assert_step(step_at(p, "build", 0), "./gradlew assembleRelease", "rn/android", "build");
	json_decref(p);
	sw__buf_free(&before);
	sw__buf_free(&after);
	free(root);
}
END_TEST

START_TEST(plan_lockfiles)
{
	copy_tree("rn-community-template", "y");
	put("y/android/gradlew", "#!/bin/sh\n", 0755);
	put("y/yarn.lock", "", 0644);
	tool("yarn");
	char *root = app("y");
	json_t *p = plan(root, "{\"platform\":\"android\"}", NULL, NULL);
	assert_step(step_at(p, "prerequisites", 0), "yarn install", "y", "dependencies");
	json_decref(p);
	free(root);
	copy_tree("rn-community-template", "pn");
	put("pn/android/gradlew", "#!/bin/sh\n", 0755);
	put("pn/pnpm-lock.yaml", "", 0644);
	root = app("pn");
	char *code = NULL;
	json_t *d = NULL;
	/* pnpm is not on PATH: the plan says so and carries the plan */
	ck_assert_ptr_null(plan(root, "{\"platform\":\"android\"}", &code, &d));
	ck_assert_str_eq(code, "BUILD_COMMAND_UNAVAILABLE");
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(d, "missingToolchain"), 0)), "pnpm");
	ck_assert(json_is_false(json_object_get(json_object_get(d, "plan"), "toolchainOk")));
	json_decref(d);
	free(code);
	free(root);
}
END_TEST

START_TEST(plan_expo_prebuild)
{
	copy_tree("expo-template-tabs", "expo");
	tool("npm");
	tool("npx");
	char *root = app("expo");
	json_t *p = plan(root, "{\"platform\":\"android\"}", NULL, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(p, "framework")), "expo");
	ck_assert_int_eq(json_array_size(json_object_get(p, "prerequisites")), 2);
	assert_step(step_at(p, "prerequisites", 0), "npm install", "expo", "dependencies");
	assert_step(step_at(p, "prerequisites", 1), "npx expo prebuild --platform android --no-install", "expo",
	            "prebuild");
	/* the wrapper does not exist yet: prebuild writes it, so it is not missing */
	assert_step(step_at(p, "build", 0), "./gradlew assembleDebug", "expo/android", "build");
	ck_assert(json_is_true(json_object_get(p, "toolchainOk")));
	json_decref(p);
	/* iOS: prebuild, pods, xcodebuild on the workspace named after the app */
	tool("pod");
	tool("xcodebuild");
	p = plan(root, "{\"platform\":\"ios\"}", NULL, NULL);
	assert_step(step_at(p, "prerequisites", 1), "npx expo prebuild --platform ios --no-install", "expo", "prebuild");
	assert_step(step_at(p, "prerequisites", 2), "pod install", "expo/ios", "dependencies");
	assert_step(step_at(p, "build", 0),
	            "xcodebuild -workspace HelloWorld.xcworkspace -scheme HelloWorld -sdk iphonesimulator "
	            "-configuration Debug -derivedDataPath build build",
	            "expo/ios", "build");
	json_decref(p);
	/* an android/ folder with neither wrapper nor settings: EXPO_PREBUILD_REQUIRED, folder left alone */
	put("expo/android/app/build.gradle", "// half a project\n", 0644);
	char *code = NULL;
	json_t *d = NULL;
	ck_assert_ptr_null(plan(root, "{\"platform\":\"android\"}", &code, &d));
	ck_assert_str_eq(code, "EXPO_PREBUILD_REQUIRED");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_array_get(json_object_get(d, "nextSteps"), 0)),
	                             "npx expo prebuild --platform android --clean"));
	char *left = app("expo/android/app/build.gradle");
	ck_assert(sw__is_file(left));
	free(left);
	json_decref(d);
	free(code);
	free(root);
}
END_TEST

START_TEST(plan_native_android_no_wrapper)
{
	put("na/settings.gradle", "include ':app'\n", 0644);
	put("na/app/build.gradle", "android { defaultConfig { applicationId 'com.example.na' } }\n", 0644);
	char *root = app("na");
	char *code = NULL;
	json_t *d = NULL;
	ck_assert_ptr_null(plan(root, "{\"platform\":\"android\"}", &code, &d));
	ck_assert_str_eq(code, "BUILD_COMMAND_UNAVAILABLE");
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(d, "missingToolchain"), 0)), "./gradlew");
	json_decref(d);
	free(code);
	/* a wrapper that is not executable is no wrapper either */
	put("na/gradlew", "#!/bin/sh\n", 0644);
	ck_assert_ptr_null(plan(root, "{\"platform\":\"android\"}", &code, NULL));
	ck_assert_str_eq(code, "BUILD_COMMAND_UNAVAILABLE");
	free(code);
	put("na/gradlew", "#!/bin/sh\n", 0755);
	json_t *p = plan(root, "{\"platform\":\"android\"}", NULL, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(p, "framework")), "native-android");
	ck_assert_int_eq(json_array_size(json_object_get(p, "prerequisites")), 0);
	assert_step(step_at(p, "build", 0), "./gradlew assembleDebug", "na", "build");
	json_decref(p);
	/* an Android project has no iOS build */
	ck_assert_ptr_null(plan(root, "{\"platform\":\"ios\"}", &code, NULL));
	ck_assert_str_eq(code, "UNSUPPORTED_FRAMEWORK");
	free(code);
	free(root);
}
END_TEST

START_TEST(plan_flutter)
{
	put("fl/pubspec.yaml", "name: demo\ndependencies:\n  flutter:\n    sdk: flutter\n", 0644);
	put("fl/lib/main.dart", "void main() {}\n", 0644);
	char *root = app("fl");
	char *code = NULL;
	ck_assert_ptr_null(plan(root, "{\"platform\":\"android\"}", &code, NULL));
	ck_assert_str_eq(code, "BUILD_COMMAND_UNAVAILABLE"); /* no flutter on PATH */
	free(code);
	tool("flutter");
	json_t *p = plan(root, "{\"platform\":\"android\",\"variant\":\"release\"}", NULL, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(p, "framework")), "flutter");
	assert_step(step_at(p, "prerequisites", 0), "flutter pub get", "fl", "dependencies");
	assert_step(step_at(p, "build", 0), "flutter build apk --release", "fl", "build");
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(p, "expectedArtifactGlobs"), 0)),
	                 "build/app/outputs/flutter-apk/app-release.apk");
	json_decref(p);
	p = plan(root, "{\"platform\":\"ios\"}", NULL, NULL);
	assert_step(step_at(p, "build", 0), "flutter build ios --simulator --debug", "fl", "build");
	json_decref(p);
	free(root);
}
END_TEST

START_TEST(plan_native_ios_pods)
{
	put("ni/Demo.xcodeproj/project.pbxproj", "// !$*UTF8*$!\n{}\n", 0644);
	put("ni/Demo.xcodeproj/xcshareddata/xcschemes/Demo App.xcscheme", "<Scheme/>\n", 0644);
	put("ni/Podfile", "target 'Demo' do\nend\n", 0644);
	tool("pod");
	tool("xcodebuild");
	char *root = app("ni");
	json_t *p = plan(root, "{\"platform\":\"ios\",\"variant\":\"release\"}", NULL, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(p, "framework")), "native-ios");
	assert_step(step_at(p, "prerequisites", 0), "pod install", "ni", "dependencies");
	/* pod install writes Demo.xcworkspace; the shared scheme's name keeps its space (argv, no shell) */
	assert_step(step_at(p, "build", 0),
	            "xcodebuild -workspace Demo.xcworkspace -scheme Demo App -sdk iphonesimulator -configuration Release "
	            "-derivedDataPath build build",
	            "ni", "build");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(step_at(p, "build", 0), "command")),
	                             "'Demo App'"));
	json_decref(p);
	free(root);
}
END_TEST

START_TEST(plan_refusals)
{
	put("web/package.json", "{\"dependencies\":{\"react-dom\":\"18\"}}", 0644);
	char *root = app("web");
	char *code = NULL;
	ck_assert_ptr_null(plan(root, "{\"platform\":\"android\"}", &code, NULL));
	ck_assert_str_eq(code, "UNSUPPORTED_FRAMEWORK");
	free(code);
	ck_assert_ptr_null(plan(root, "{\"platform\":\"windows\"}", &code, NULL));
	ck_assert_str_eq(code, "INVALID_ARGUMENT");
	free(code);
	ck_assert_ptr_null(plan(root, "{\"platform\":\"android\",\"variant\":\"profile\"}", &code, NULL));
	ck_assert_str_eq(code, "INVALID_ARGUMENT");
	free(code);
	ck_assert_ptr_null(plan("relative/path", "{\"platform\":\"android\"}", &code, NULL));
	ck_assert_str_eq(code, "INVALID_ARGUMENT");
	free(code);
	free(root);
}
END_TEST

/* ---- the classifier on real logs ----------------------------------------------------------------------- */

START_TEST(classify_real_logs)
{
	const char *src = getenv("SWIPIUM_SOURCE_ROOT");
	char *dir = sw__asprintf("%s/tests/data/buildlogs", src);
	char *mp = sw__path_join(dir, "expected.json");
	json_t *m = json_load_file(mp, 0, NULL);
	ck_assert_ptr_nonnull(m);
	size_t i, checked = 0;
	json_t *e;
	json_array_foreach(json_object_get(m, "logs"), i, e)
	{
		const char *code = json_string_value(json_object_get(e, "code"));
		if (!code)
			continue; /* a build that went well: nothing to classify */
		char *lp = sw__path_join(dir, json_string_value(json_object_get(e, "log")));
		char *text = NULL;
		size_t len = 0;
		ck_assert_int_eq(sw__read_file(lp, 1 << 20, &text, &len, NULL), SW_OK);
		char *step = sw__asprintf("{\"kind\":\"%s\",\"tool\":\"%s\"}", json_string_value(json_object_get(e, "kind")),
		                          json_string_value(json_object_get(e, "tool")));
		char *out = NULL;
		ck_assert_int_eq(sw_build_classify(step, (int)json_integer_value(json_object_get(e, "exitStatus")), 0, 0,
		                                   text, len, &out, NULL),
		                 SW_OK);
		json_t *v = json_loads(out, 0, NULL);
		ck_assert_msg(!strcmp(json_string_value(json_object_get(v, "failureCode")), code), "%s: got %s, want %s",
		              lp, json_string_value(json_object_get(v, "failureCode")), code);
		if (strcmp(code, "BUILD_FAILED") && strcmp(code, "DEPENDENCY_INSTALL_REQUIRED"))
			ck_assert_msg(json_string_value(json_object_get(v, "line")) != NULL, "%s: no matched line", lp);
		json_decref(v);
		sw_free(out);
		free(step);
		free(text);
		free(lp);
		checked++;
	}
	ck_assert_uint_ge(checked, 9);
	json_decref(m);
	free(mp);
	free(dir);
}
END_TEST

START_TEST(classify_status_rules)
{
	char *out = NULL;
	const char *gradle = "{\"kind\":\"build\",\"tool\":\"./gradlew\"}";
	/* exit 127 and ENOENT: the tool is missing, whatever the log says */
	ck_assert_int_eq(sw_build_classify(gradle, 127, 0, 0, "FAILURE: Build failed with an exception.", 40, &out, NULL),
	                 SW_OK);
	ck_assert_ptr_nonnull(strstr(out, "\"BUILD_COMMAND_UNAVAILABLE\""));
	sw_free(out);
	ck_assert_int_eq(sw_build_classify(gradle, -1, ENOENT, 0, "", 0, &out, NULL), SW_OK);
	ck_assert_ptr_nonnull(strstr(out, "\"BUILD_COMMAND_UNAVAILABLE\""));
	sw_free(out);
	ck_assert_int_eq(sw_build_classify(gradle, -1, 0, 1, "BUILD FAILED in 3s", 18, &out, NULL), SW_OK);
	ck_assert_ptr_nonnull(strstr(out, "\"BUILD_TIMED_OUT\""));
	sw_free(out);
	ck_assert_int_eq(sw_build_classify("{\"kind\":\"prebuild\",\"tool\":\"npx\"}", 1, 0, 0, "x", 1, &out, NULL), SW_OK);
	ck_assert_ptr_nonnull(strstr(out, "\"EXPO_PREBUILD_REQUIRED\""));
	sw_free(out);
	/* the gradlew script's own "no java" line */
	const char *nojava = "\nERROR: JAVA_HOME is not set and no 'java' command could be found in your PATH.\n";
	ck_assert_int_eq(sw_build_classify(gradle, 1, 0, 0, nojava, strlen(nojava), &out, NULL), SW_OK);
	ck_assert_ptr_nonnull(strstr(out, "\"BUILD_COMMAND_UNAVAILABLE\""));
	sw_free(out);
	/* a dependency step's log never turns into a Gradle code */
	const char *mixed = "Could not resolve all files\nnpm ERR! code E404\n";
	ck_assert_int_eq(sw_build_classify("{\"kind\":\"dependencies\",\"tool\":\"npm\"}", 1, 0, 0, mixed, strlen(mixed),
	                                   &out, NULL),
	                 SW_OK);
	ck_assert_ptr_nonnull(strstr(out, "\"DEPENDENCY_INSTALL_REQUIRED\""));
	sw_free(out);
	/* the table is published */
	ck_assert_int_eq(sw_build_signatures_json(&out, NULL), SW_OK);
	json_t *t = json_loads(out, 0, NULL);
	ck_assert_uint_ge(json_array_size(t), 20);
	json_decref(t);
	sw_free(out);
}
END_TEST

/* ---- sw_build_run on hand-made plans ------------------------------------------------------------------ */

typedef struct {
	sw_ctx *ctx;
	sw_store *store;
	sw_session *s;
	char *root;
} run_fx;

static void run_open(run_fx *f, const char *rel)
{
	f->root = app(rel);
	ck_assert_int_eq(sw__mkdirs(f->root, 0755, NULL), SW_OK);
	ck_assert_int_eq(sw_ctx_new(&f->ctx, NULL), SW_OK);
	ck_assert_int_eq(sw_ctx_set_home(f->ctx, tmp, NULL), SW_OK);
	ck_assert_int_eq(sw_store_open(f->ctx, &f->store, NULL), SW_OK);
	ck_assert_int_eq(sw_session_create(f->store, f->root, NULL, NULL, &f->s, NULL), SW_OK);
}

static void run_close(run_fx *f)
{
	sw_store_free(f->store);
	sw_ctx_free(f->ctx);
	free(f->root);
}

/* Runs one build step @argv0 (with one argument) in @cwd; returns the result object. */
static json_t *run_one(run_fx *f, const char *argv0, const char *cwd, long timeout_ms)
{
	json_t *plan = json_pack("{s:s,s:s,s:s,s:s,s:[],s:[{s:s,s:s,s:s,s:[s,s],s:s,s:s}]}", "framework", "native-android",
	                         "platform", "android", "variant", "debug", "appRoot", f->root, "prerequisites", "build",
	                         "label", "build", "kind", "build", "command", argv0, "argv", argv0, "assembleDebug",
	                         "cwd", cwd, "tool", argv0);
	char *pj = sw__json_compact(plan);
	json_decref(plan);
	char *out = NULL;
	sw_error *err = NULL;
	ck_assert_msg(sw_build_run(f->ctx, f->s, pj, timeout_ms, NULL, NULL, &out, &err) == SW_OK, "%s",
	              err ? sw_error_message(err) : "");
	free(pj);
	json_t *r = json_loads(out, 0, NULL);
	sw_free(out);
	ck_assert_ptr_nonnull(r);
	return r;
}

START_TEST(run_refuses_what_leads_out_of_the_project)
{
	run_fx f;
	run_open(&f, "linked");
	char *out = app("outside/gradlew"), *ran = app("ran-marker");
	char *script = sw__asprintf("#!/bin/sh\n/usr/bin/touch '%s'\n", ran);
	put("outside/gradlew", script, 0755);
	free(script);
	char *gw = app("linked/gradlew");
	ck_assert_int_eq(symlink(out, gw), 0);
	json_t *r = run_one(&f, "./gradlew", f.root, 10000);
	ck_assert_str_eq(json_string_value(json_object_get(r, "failureCode")), "BUILD_COMMAND_UNAVAILABLE");
	ck_assert(!sw__is_file(ran)); /* never ran */
	json_decref(r);
	/* a step folder linked out of the project */
	char *dir = app("outside"), *link = app("linked/android");
	ck_assert_int_eq(symlink(dir, link), 0);
	r = run_one(&f, "./gradlew", link, 10000);
	ck_assert_str_eq(json_string_value(json_object_get(r, "failureCode")), "BUILD_COMMAND_UNAVAILABLE");
	ck_assert(!sw__is_file(ran));
	ck_assert_ptr_nonnull(json_string_value(json_object_get(r, "logUri")));
	json_decref(r);
	free(dir);
	free(link);
	free(out);
	free(ran);
	free(gw);
	run_close(&f);
}
END_TEST

START_TEST(run_keeps_a_huge_log_bounded)
{
	run_fx f;
	run_open(&f, "loud");
	/* 12 MiB of output, then an error line: the log keeps its head and tail and says what it left out */
	put("loud/gradlew",
	    "#!/bin/sh\necho FIRST-LINE\n/usr/bin/head -c 12582912 /dev/zero | /usr/bin/tr '\\0' 'x'\necho\n"
	    "echo 'FAILURE: Build failed with an exception.'\nexit 1\n",
	    0755);
	json_t *r = run_one(&f, "./gradlew", f.root, 60000);
	ck_assert_str_eq(json_string_value(json_object_get(r, "failureCode")), "GRADLE_FAILED");
	char *data = NULL, *meta = NULL;
	size_t len = 0;
	char *path = NULL;
	ck_assert_int_eq(sw_artifact_read(f.store, json_string_value(json_object_get(r, "logUri")),
	                                  SW_ARTIFACT_READ_METADATA, &data, &len, &meta, NULL),
	                 SW_OK);
	json_t *m = json_loads(meta, 0, NULL);
	path = strdup(json_string_value(json_object_get(m, "path")));
	json_decref(m);
	sw_free(meta);
	sw_free(data);
	char *text = NULL;
	ck_assert_int_eq(sw__read_file(path, 64 << 20, &text, &len, NULL), SW_OK);
	ck_assert_uint_lt(len, (size_t)9 << 20);
	ck_assert_ptr_nonnull(strstr(text, "FIRST-LINE"));
	ck_assert_ptr_nonnull(strstr(text, "bytes of build output left out here"));
	ck_assert_ptr_nonnull(strstr(text, "FAILURE: Build failed with an exception."));
	free(text);
	free(path);
	json_decref(r);
	run_close(&f);
}
END_TEST

static Suite *build_suite(void)
{
	Suite *s = suite_create("build");
	TCase *tc = tcase_create("plan");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, plan_bare_react_native_android);
	tcase_add_test(tc, plan_lockfiles);
	tcase_add_test(tc, plan_expo_prebuild);
	tcase_add_test(tc, plan_native_android_no_wrapper);
	tcase_add_test(tc, plan_flutter);
	tcase_add_test(tc, plan_native_ios_pods);
	tcase_add_test(tc, plan_refusals);
	suite_add_tcase(s, tc);
	TCase *rn = tcase_create("run");
	tcase_add_checked_fixture(rn, setup, teardown);
	tcase_set_timeout(rn, 120);
	tcase_add_test(rn, run_refuses_what_leads_out_of_the_project);
	tcase_add_test(rn, run_keeps_a_huge_log_bounded);
	suite_add_tcase(s, rn);
	TCase *cl = tcase_create("classify");
	tcase_add_test(cl, classify_real_logs);
	tcase_add_test(cl, classify_status_rules);
	suite_add_tcase(s, cl);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(build_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
