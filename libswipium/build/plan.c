/* plan.c: the build plan of a project: exact steps per framework, tools looked up on PATH. Runs nothing. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build-internal.h"

char *sw__build_which(const char *name)
{
	if (!name || !*name)
		return NULL;
	if (strchr(name, '/')) {
		struct stat st;
		return stat(name, &st) == 0 && S_ISREG(st.st_mode) && access(name, X_OK) == 0 ? sw__strdup(name) : NULL;
	}
	const char *path = getenv("PATH");
	if (!path || !*path)
		return NULL;
	const char *p = path;
	while (*p) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n > 0) {
			char *cand = sw__asprintf("%.*s/%s", (int)n, p, name);
			struct stat st;
			if (cand && cand[0] == '/' && stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
				return cand;
			free(cand);
		}
		if (!end)
			break;
		p = end + 1;
	}
	return NULL;
}

/* One argument as a person would type it: bare when it is plain, else single-quoted. */
static void put_word(sw_buf *b, const char *a)
{
	bool plain = *a != '\0';
	for (const char *c = a; *c && plain; c++)
		plain = isalnum((unsigned char)*c) || strchr("-_./=:@+,%", *c);
	if (plain) {
		sw__buf_puts(b, a);
		return;
	}
	sw__buf_putc(b, '\'');
	for (const char *c = a; *c; c++) {
		if (*c == '\'')
			sw__buf_puts(b, "'\\''");
		else
			sw__buf_putc(b, *c);
	}
	sw__buf_putc(b, '\'');
}

typedef struct planner {
	const char *root, *app; /* absolute */
	const char *platform, *variant;
	json_t *facts; /* the detector's build facts (borrowed) */
	json_t *prereq, *build, *globs, *missing, *notes;
} planner;

/* Appends a step {label, kind, command, argv, cwd, tool}; @tool is the program looked up (NULL: none),
 * @will_exist: the program is written by an earlier step (a prebuild's Gradle wrapper). */
static void step(planner *p, json_t *list, const char *label, const char *kind, const char *cwd_rel, bool will_exist,
                 const char *const *argv)
{
	char *cwd = strcmp(cwd_rel, ".") ? sw__path_join(p->app, cwd_rel) : sw__strdup(p->app);
	json_t *av = json_array();
	sw_buf line = SW_BUF_INIT;
	for (size_t i = 0; argv[i]; i++) {
		json_array_append_new(av, json_string(argv[i]));
		if (i)
			sw__buf_putc(&line, ' ');
		put_word(&line, argv[i]);
	}
	const char *prog = argv[0];
	bool found;
	if (strchr(prog, '/')) {
		char *full = cwd ? sw__path_join(cwd, prog) : NULL;
		char *hit = full ? sw__build_which(full) : NULL;
		found = hit != NULL || will_exist;
		free(hit);
		free(full);
	} else {
		char *hit = sw__build_which(prog);
		found = hit != NULL;
		free(hit);
	}
	if (!found) {
		bool dup = false;
		size_t i;
		json_t *v;
		json_array_foreach(p->missing, i, v) dup = dup || !strcmp(json_string_value(v), prog);
		if (!dup)
			json_array_append_new(p->missing, json_string(prog));
	}
	json_array_append_new(list, json_pack("{s:s,s:s,s:s%,s:o,s:s,s:s}", "label", label, "kind", kind, "command",
	                                      line.data ? line.data : "", line.len, "argv", av, "cwd", cwd ? cwd : "",
	                                      "tool", prog));
	sw__buf_free(&line);
	free(cwd);
}

#define STEP(p, list, label, kind, cwd, will, ...)                                                                     \
	step(p, list, label, kind, cwd, will, (const char *const[]){__VA_ARGS__, NULL})

static void note(planner *p, const char *fmt, ...) SW_PRINTF(2, 3);
static void note(planner *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (s)
		json_array_append_new(p->notes, json_string(s));
	free(s);
}

static void glob_add(planner *p, const char *rel_dir, const char *pattern)
{
	const char *app_rel = p->app + strlen(p->root);
	while (*app_rel == '/')
		app_rel++;
	sw_buf b = SW_BUF_INIT;
	if (*app_rel)
		sw__buf_printf(&b, "%s/", app_rel);
	if (rel_dir && strcmp(rel_dir, "."))
		sw__buf_printf(&b, "%s/", rel_dir);
	sw__buf_puts(&b, pattern);
	if (b.data)
		json_array_append_new(p->globs, json_string(b.data));
	sw__buf_free(&b);
}

/* JS dependencies by lockfile; skipped when node_modules exists. */
static void js_deps(planner *p)
{
	if (!json_is_true(json_object_get(p->facts, "packageJson")))
		return;
	const char *lock = json_string_value(json_object_get(p->facts, "lockfile"));
	if (json_is_true(json_object_get(p->facts, "nodeModules"))) {
		note(p, "node_modules exists: the JavaScript dependencies are not installed again");
		return;
	}
	if (lock && !strcmp(lock, "yarn.lock"))
		STEP(p, p->prereq, "install JavaScript dependencies (yarn.lock)", SW_BUILD_KIND_DEPS, ".", false, "yarn",
		     "install");
	else if (lock && !strcmp(lock, "pnpm-lock.yaml"))
		STEP(p, p->prereq, "install JavaScript dependencies (pnpm-lock.yaml)", SW_BUILD_KIND_DEPS, ".", false,
		     "pnpm", "install");
	else {
		STEP(p, p->prereq, lock ? "install JavaScript dependencies (package-lock.json)"
		                        : "install JavaScript dependencies (no lockfile)",
		     SW_BUILD_KIND_DEPS, ".", false, "npm", "install");
		if (!lock)
			note(p, "no lockfile: npm install resolves the newest matching versions");
	}
}

static void gradle_build(planner *p, const char *dir, bool wrapper_later)
{
	bool release = !strcmp(p->variant, "release");
	json_t *a = json_object_get(p->facts, "android");
	bool wrapper = json_is_true(json_object_get(a, "gradlew")) || wrapper_later;
	if (wrapper) {
		STEP(p, p->build, "build the Android app (Gradle wrapper)", SW_BUILD_KIND_BUILD, dir, wrapper_later,
		     "./gradlew", release ? "assembleRelease" : "assembleDebug");
	} else {
		/* no wrapper: the step is planned as the project should have it, and reported missing */
		STEP(p, p->build, "build the Android app (Gradle wrapper)", SW_BUILD_KIND_BUILD, dir, false, "./gradlew",
		     release ? "assembleRelease" : "assembleDebug");
		note(p, "no Gradle wrapper (gradlew) in %s: add one (gradle wrapper) or commit it", dir);
	}
	glob_add(p, dir, release ? "app/build/outputs/apk/release/*.apk" : "app/build/outputs/apk/debug/*.apk");
	char *java = sw__build_which("java");
	const char *jh = getenv("JAVA_HOME");
	if (!java && !(jh && *jh))
		note(p, "no java on PATH and no JAVA_HOME: the Gradle wrapper needs a JDK");
	free(java);
	if (release)
		note(p, "a release build is signed with the project's release signing config, if it has one");
}

/* The Expo/Xcode name of a native iOS project made by prebuild: the app name with only letters and digits. */
static char *expo_ios_name(const char *name)
{
	sw_buf b = SW_BUF_INIT;
	for (const char *c = name ? name : ""; *c; c++)
		if (isalnum((unsigned char)*c))
			sw__buf_putc(&b, *c);
	if (!b.data || !b.len) {
		sw__buf_free(&b);
		return sw__strdup("App");
	}
	return sw__buf_steal(&b, NULL);
}

static void xcode_build(planner *p, const char *dir, const char *prebuilt_name)
{
	json_t *io = json_object_get(p->facts, "ios");
	bool release = !strcmp(p->variant, "release");
	bool podfile = json_is_true(json_object_get(io, "podfile")) || prebuilt_name;
	const char *ws = json_string_value(json_array_get(json_object_get(io, "workspaces"), 0));
	const char *proj = json_string_value(json_array_get(json_object_get(io, "projects"), 0));
	const char *scheme = json_string_value(json_array_get(json_object_get(io, "schemes"), 0));
	char *made_ws = NULL, *stem = NULL;
	if (prebuilt_name) {
		made_ws = sw__asprintf("%s.xcworkspace", prebuilt_name);
		ws = made_ws;
		stem = sw__strdup(prebuilt_name);
		note(p, "the iOS project is written by prebuild: workspace %s and scheme %s follow the app name", made_ws,
		     prebuilt_name);
	}
	if (podfile) {
		STEP(p, p->prereq, "install CocoaPods dependencies (Podfile)", SW_BUILD_KIND_DEPS, dir, false, "pod",
		     "install");
		if (!ws && proj) {
			/* pod install writes <Project>.xcworkspace next to the project */
			stem = sw__strndup(proj, strlen(proj) - strlen(".xcodeproj"));
			made_ws = sw__asprintf("%s.xcworkspace", stem);
			ws = made_ws;
		}
	}
	if (!stem && (ws || proj)) {
		const char *c = ws ? ws : proj;
		stem = sw__strndup(c, strlen(c) - strlen(ws ? ".xcworkspace" : ".xcodeproj"));
	}
	if (!scheme)
		scheme = stem;
	const char *cfg = release ? "Release" : "Debug";
	if (ws)
		STEP(p, p->build, "build the iOS app for the simulator (xcodebuild)", SW_BUILD_KIND_BUILD, dir, false,
		     "xcodebuild", "-workspace", ws, "-scheme", scheme ? scheme : "", "-sdk", "iphonesimulator",
		     "-configuration", cfg, "-derivedDataPath", "build", "build");
	else
		STEP(p, p->build, "build the iOS app for the simulator (xcodebuild)", SW_BUILD_KIND_BUILD, dir, false,
		     "xcodebuild", "-project", proj ? proj : "", "-scheme", scheme ? scheme : "", "-sdk",
		     "iphonesimulator", "-configuration", cfg, "-derivedDataPath", "build", "build");
	if (!json_array_size(json_object_get(io, "schemes")) && scheme)
		note(p, "no shared Xcode scheme found: scheme %s is the project's name", scheme);
	char *g = sw__asprintf("build/Build/Products/%s-iphonesimulator/*.app", cfg);
	if (g)
		glob_add(p, dir, g);
	free(g);
	free(made_ws);
	free(stem);
}

static int plan_error(sw_error **err, int code, const char *failure, json_t *details, const char *hint,
                      const char *what)
{
	sw__error_set(err, code, failure, hint, "%s", what);
	if (err && *err && details)
		sw__error_take_details(*err, details);
	else
		json_decref(details);
	return code;
}

SW_API int sw_build_plan(const char *root, const char *options_json, char **out_json, sw_error **err)
{
	if (!root || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_build_plan: root and out_json are required");
	json_t *opts = options_json ? json_loads(options_json, 0, NULL) : json_object();
	if (!json_is_object(opts)) {
		json_decref(opts);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "The build options are not a JSON object.");
	}
	const char *platform = json_string_value(json_object_get(opts, "platform"));
	const char *variant = json_string_value(json_object_get(opts, "variant"));
	if (!platform || (strcmp(platform, "android") && strcmp(platform, "ios"))) {
		json_decref(opts);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Pass platform: \"android\" or \"ios\".",
		                     "A build needs a platform: android or ios.");
	}
	if (!variant)
		variant = "debug";
	if (strcmp(variant, "debug") && strcmp(variant, "release")) {
		json_decref(opts);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "The variant must be debug or release.");
	}
	char *dj = NULL;
	int rc = sw_project_detect(root, &dj, err);
	if (rc != SW_OK) {
		json_decref(opts);
		return rc;
	}
	json_t *ctx = json_loads(dj, 0, NULL);
	sw_free(dj);
	const char *app_rel = json_string_value(json_object_get(ctx, "appRoot"));
	const char *fw = json_string_value(json_object_get(ctx, app_rel && strcmp(app_rel, ".") ? "appFramework"
	                                                                                            : "framework"));
	json_t *facts = json_object_get(ctx, "build");
	if (!app_rel || !fw || !strcmp(fw, "unknown") || !facts) {
		size_t apps = json_array_size(json_object_get(json_object_get(ctx, "monorepo"), "apps"));
		json_t *d = json_pack("{s:O?}", "reasons", json_object_get(ctx, "reasons"));
		rc = plan_error(err, SW_EUNSUPPORTED, "UNSUPPORTED_FRAMEWORK", d,
		                apps > 1 ? "Pass projectRoot: the folder of the one app to build." :
		                           "qa_build knows Flutter, Expo, React Native, Gradle and Xcode projects.",
		                apps > 1 ? "The project holds several apps; qa_build builds one app folder at a time."
		                         : "No app layout qa_build can build was found in the project (no pubspec.yaml, "
		                           "package.json with react-native or expo, Gradle files or Xcode project).");
		json_decref(ctx);
		json_decref(opts);
		return rc;
	}
	char *app = strcmp(app_rel, ".") ? sw__path_join(root, app_rel) : sw__strdup(root);
	planner p = {.root = root, .app = app, .platform = platform, .variant = variant, .facts = facts,
	             .prereq = json_array(), .build = json_array(), .globs = json_array(), .missing = json_array(),
	             .notes = json_array()};
	bool release = !strcmp(variant, "release");
	json_t *a = json_object_get(facts, "android"), *io = json_object_get(facts, "ios");
	const char *adir = json_string_value(json_object_get(a, "dir"));
	const char *idir = json_string_value(json_object_get(io, "dir"));
	const char *cost = "";
	rc = SW_OK;
	if (!strcmp(fw, "flutter")) {
		STEP(&p, p.prereq, "fetch Dart and Flutter packages (pub get)", SW_BUILD_KIND_DEPS, ".", false, "flutter",
		     "pub", "get");
		if (!strcmp(platform, "android")) {
			STEP(&p, p.build, "build the Android APK (flutter build)", SW_BUILD_KIND_BUILD, ".", false, "flutter",
			     "build", "apk", release ? "--release" : "--debug");
			glob_add(&p, ".", release ? "build/app/outputs/flutter-apk/app-release.apk"
			                          : "build/app/outputs/flutter-apk/app-debug.apk");
		} else {
			STEP(&p, p.build, "build the iOS app for the simulator (flutter build)", SW_BUILD_KIND_BUILD, ".",
			     false, "flutter", "build", "ios", "--simulator", "--debug");
			glob_add(&p, ".", "build/ios/iphonesimulator/*.app");
			if (release)
				note(&p, "a simulator build is always a debug build (Flutter has no release mode for the simulator)");
		}
		cost = "a first Flutter build fetches packages and Gradle or CocoaPods dependencies: several minutes";
	} else if (!strcmp(fw, "expo") || !strcmp(fw, "bare-react-native")) {
		bool expo = !strcmp(fw, "expo");
		js_deps(&p);
		if (!strcmp(platform, "android")) {
			bool native = adir && !strcmp(adir, "android");
			if (expo && native && !json_is_true(json_object_get(a, "gradlew")) &&
			    !json_is_true(json_object_get(a, "settings"))) {
				json_t *d = json_pack("{s:s,s:[s]}", "nativeFolder", "android", "nextSteps",
				                      "npx expo prebuild --platform android --clean (it rewrites android/; "
				                      "commit or back up changes first)");
				rc = plan_error(err, SW_EUNSUPPORTED, "EXPO_PREBUILD_REQUIRED", d,
				                "Run npx expo prebuild --platform android --clean in the app folder.",
				                "The Expo project's android/ folder holds neither a Gradle wrapper nor a "
				                "settings file: the native project is incomplete. Swipium never deletes it.");
			} else if (expo && !native) {
				STEP(&p, p.prereq, "write the native Android project (Expo prebuild)", SW_BUILD_KIND_PREBUILD,
				     ".", false, "npx", "expo", "prebuild", "--platform", "android", "--no-install");
				gradle_build(&p, "android", true);
			} else if (!native) {
				note(&p, "no android/ folder in the React Native project");
				gradle_build(&p, "android", false);
			} else {
				gradle_build(&p, "android", false);
			}
		} else {
			bool native = idir && !strcmp(idir, "ios");
			if (expo && !native) {
				STEP(&p, p.prereq, "write the native iOS project (Expo prebuild)", SW_BUILD_KIND_PREBUILD, ".",
				     false, "npx", "expo", "prebuild", "--platform", "ios", "--no-install");
				char *name = expo_ios_name(json_string_value(json_object_get(facts, "expoName")));
				xcode_build(&p, "ios", name);
				free(name);
			} else if (!native && !idir) {
				rc = plan_error(err, SW_EUNSUPPORTED, "UNSUPPORTED_FRAMEWORK", NULL,
				                "Add the ios/ project (npx react-native init writes one) or build for android.",
				                "The React Native project has no ios/ folder with an Xcode project.");
			} else {
				xcode_build(&p, idir, NULL);
			}
		}
		cost = "a first React Native build installs JavaScript and native dependencies: several minutes";
	} else if (!strcmp(fw, "native-android")) {
		if (strcmp(platform, "android"))
			rc = plan_error(err, SW_EUNSUPPORTED, "UNSUPPORTED_FRAMEWORK", NULL, "Build this project for android.",
			                "The project is a native Android (Gradle) project; it has no iOS app to build.");
		else
			gradle_build(&p, adir ? adir : ".", false);
		cost = "a first Gradle build downloads the Android Gradle plugin and dependencies: several minutes";
	} else if (!strcmp(fw, "native-ios")) {
		if (strcmp(platform, "ios") || !idir)
			rc = plan_error(err, SW_EUNSUPPORTED, "UNSUPPORTED_FRAMEWORK", NULL, "Build this project for ios.",
			                "The project is a native iOS (Xcode) project; it has no Android app to build.");
		else
			xcode_build(&p, idir, NULL);
		cost = "an Xcode build of a simulator app: minutes, more with CocoaPods";
	} else {
		rc = plan_error(err, SW_EUNSUPPORTED, "UNSUPPORTED_FRAMEWORK", NULL, NULL, "Unknown framework.");
	}
	json_t *plan = NULL;
	if (rc == SW_OK) {
		plan = json_pack("{s:s,s:s,s:s,s:s,s:O,s:O,s:O,s:b,s:O,s:O,s:s}", "framework", fw, "platform", platform,
		                 "variant", variant, "appRoot", app, "prerequisites", p.prereq, "build", p.build,
		                 "expectedArtifactGlobs", p.globs, "toolchainOk", json_array_size(p.missing) == 0,
		                 "missingToolchain", p.missing, "notes", p.notes, "costEstimate", cost);
		if (!plan) {
			rc = sw__error_nomem(err);
		} else if (json_array_size(p.missing)) {
			sw_buf names = SW_BUF_INIT;
			size_t i;
			json_t *v;
			json_array_foreach(p.missing, i, v) sw__buf_printf(&names, "%s%s", i ? ", " : "", json_string_value(v));
			char *what = sw__asprintf("The build needs %s, which %s not found (PATH, or the project's Gradle "
			                          "wrapper).",
			                          names.data ? names.data : "", json_array_size(p.missing) > 1 ? "were" : "was");
			sw__buf_free(&names);
			rc = plan_error(err, SW_ENOTFOUND, "BUILD_COMMAND_UNAVAILABLE", json_pack("{s:O,s:O}", "plan", plan,
			                "missingToolchain", p.missing),
			                "Install the missing tools (or put them on the server's PATH), then plan again.",
			                what ? what : "A build tool is missing.");
			free(what);
		} else {
			*out_json = sw__json_compact(plan);
			if (!*out_json)
				rc = sw__error_nomem(err);
		}
	}
	json_decref(plan);
	json_decref(p.prereq);
	json_decref(p.build);
	json_decref(p.globs);
	json_decref(p.missing);
	json_decref(p.notes);
	free(app);
	json_decref(ctx);
	json_decref(opts);
	return rc;
}
