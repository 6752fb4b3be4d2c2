/*
 * bundletool.c: an Android App Bundle (.aab) turned into one installable APK. bundletool (BUNDLETOOL_JAR through
 * `java -jar`, else `bundletool` on PATH) writes a universal APK set into <root>/.swipium/artifacts/; the
 * universal.apk inside it is copied out with libzip, 64 KiB at a time and bounded, next to it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include "artifacts-internal.h"
#include "sw-proc.h"

#include <swipium/artifacts.h>
#include <swipium/driver.h>
#include <swipium/job.h>
#include <swipium/session.h>
#include <swipium/util.h>

#define BUNDLETOOL_TIMEOUT_MS (10 * 60 * 1000)
#define MAX_UNIVERSAL_APK ((zip_uint64_t)2 << 30) /* 2 GiB inflated */
#define COPY_CHUNK ((size_t)64 << 10)
#define LOG_CAP ((size_t)4 << 20)

/* An executable file named @name in a folder of $PATH. (transfer full, nullable) */
static char *on_path(const char *name)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		return NULL;
	char *copy = sw__strdup(path), *save = NULL, *found = NULL;
	for (char *dir = copy ? strtok_r(copy, ":", &save) : NULL; dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char *cand = sw__asprintf("%s/%s", *dir ? dir : ".", name);
		struct stat st;
		if (cand && stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
			found = cand;
		else
			free(cand);
	}
	free(copy);
	return found;
}

/* The argv prefix that runs bundletool, as JSON ["java","-jar",JAR] or ["/path/bundletool"]; NULL when neither. */
static json_t *find_bundletool(json_t *tried)
{
	const char *jar = getenv("BUNDLETOOL_JAR");
	if (jar && *jar) {
		char *java = on_path("java");
		bool ok = sw__is_file(jar) && java;
		json_array_append_new(tried, json_sprintf("BUNDLETOOL_JAR=%s%s", jar,
		                                          !sw__is_file(jar) ? " (no such file)"
		                                          : !java           ? " (no java on PATH)"
		                                                            : ""));
		free(java);
		if (ok)
			return json_pack("{s:s,s:[s,s,s]}", "source", "BUNDLETOOL_JAR", "argv", "java", "-jar", jar);
	} else {
		json_array_append_new(tried, json_string("BUNDLETOOL_JAR (not set)"));
	}
	char *bt = on_path("bundletool");
	json_array_append_new(tried, json_sprintf("bundletool on PATH%s", bt ? "" : " (not found)"));
	if (!bt)
		return NULL;
	json_t *o = json_pack("{s:s,s:[s]}", "source", "PATH", "argv", bt);
	free(bt);
	return o;
}

static bool newer_than(const char *a, const char *b)
{
	struct stat sa, sb;
	if (stat(a, &sa) != 0 || stat(b, &sb) != 0 || !S_ISREG(sa.st_mode))
		return false;
	return sa.st_mtim.tv_sec > sb.st_mtim.tv_sec ||
	       (sa.st_mtim.tv_sec == sb.st_mtim.tv_sec && sa.st_mtim.tv_nsec > sb.st_mtim.tv_nsec);
}

/* The argv as one line for people: words with spaces or quotes are single-quoted. (transfer full) */
static char *command_text(json_t *argv)
{
	sw_buf b = SW_BUF_INIT;
	size_t i;
	json_t *v;
	json_array_foreach(argv, i, v)
	{
		const char *w = json_string_value(v);
		if (i)
			sw__buf_append(&b, " ", 1);
		if (w && *w && !strpbrk(w, " \t'\"\\$`"))
			sw__buf_append(&b, w, strlen(w));
		else {
			sw__buf_append(&b, "'", 1);
			for (const char *c = w ? w : ""; *c; c++)
				if (*c == '\'')
					sw__buf_append(&b, "'\\''", 4);
				else
					sw__buf_append(&b, c, 1);
			sw__buf_append(&b, "'", 1);
		}
	}
	return sw__buf_steal(&b, NULL);
}

/* The default bundle: the best-ranked .aab of the project. */
static int best_aab(const char *root, char **out, sw_error **err)
{
	json_t *opts = json_pack("{s:s,s:s}", "platform", "android", "type", "aab");
	json_t *res = NULL;
	int rc = sw__artifact_resolve_json(root, opts, NULL, &res, err);
	json_decref(opts);
	if (rc != SW_OK)
		return rc;
	const char *p = json_string_value(json_object_get(json_object_get(res, "best"), "path"));
	*out = p ? sw__strdup(p) : NULL;
	json_decref(res);
	if (!*out)
		return sw__error_set(err, SW_ENOTFOUND, "NO_BUILD_ARTIFACT", "Build the bundle first (./gradlew bundleDebug)",
		                     "No Android App Bundle (.aab) was found under %s", root);
	return SW_OK;
}

SW_API int sw_bundletool_plan(const char *root, const char *options_json, char **out_json, sw_error **err)
{
	if (!root || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_bundletool_plan: root and out_json are required");
	*out_json = NULL;
	json_t *opts = options_json && *options_json ? json_loads(options_json, 0, NULL) : json_object();
	if (!json_is_object(opts)) {
		json_decref(opts);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "options must be a JSON object");
	}
	int rc = SW_OK;
	char *aab = NULL, *aab_real = NULL, *dir_real = NULL, *root_real = realpath(root, NULL);
	json_t *res = NULL, *tried = json_array(), *bt = NULL;
	if (!root_real) {
		rc = sw__error_set(err, SW_ENOTFOUND, "PROJECT_ROOT_UNRESOLVED", NULL, "The project root %s does not exist",
		                   root);
		goto out;
	}
	const char *given = json_string_value(json_object_get(opts, "aab"));
	if (given) {
		aab = given[0] == '/' ? sw__strdup(given) : sw__asprintf("%s/%s", root_real, given);
		if (!aab || !sw__is_file(aab)) {
			rc = sw__error_set(err, SW_ENOTFOUND, "NO_BUILD_ARTIFACT",
			                   "Pass the path of an .aab (relative to the project root), or leave aab out to use "
			                   "the project's best bundle",
			                   "The bundle %s does not exist", given);
			goto out;
		}
		size_t n = strlen(aab);
		if (n < 4 || strcmp(aab + n - 4, ".aab") != 0) {
			rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Pass an Android App Bundle (.aab)",
			                   "%s is not an .aab file", given);
			goto out;
		}
	} else if ((rc = best_aab(root_real, &aab, err)) != SW_OK) {
		goto out;
	}
	/* the bundle must lie inside the project (realpath of both) */
	rc = sw__confine(root_real, aab, SW__CONFINE_EXISTING, &aab_real, NULL);
	if (rc != SW_OK) {
		rc = sw__error_set(err, SW_EDENIED, "ARTIFACT_OUTSIDE_ROOT_REQUIRES_APPROVAL",
		                   "Copy the bundle into the project and pass that path",
		                   "The bundle %s resolves outside the project root %s", aab, root_real);
		goto out;
	}
	rc = sw__confine_mkdirs(root_real, ".swipium/artifacts", 0755, &dir_real, err);
	if (rc != SW_OK)
		goto out;
	const char *base = strrchr(aab_real, '/') ? strrchr(aab_real, '/') + 1 : aab_real;
	char *name = sw__strndup(base, strlen(base) - 4);
	char *apks = name ? sw__asprintf("%s/%s.apks", dir_real, name) : NULL;
	char *apk = name ? sw__asprintf("%s/%s-universal.apk", dir_real, name) : NULL;
	bool force = json_is_true(json_object_get(opts, "force"));
	bool cached = apk && !force && newer_than(apk, aab_real);
	bt = find_bundletool(tried);
	json_t *argv = json_array();
	size_t i;
	json_t *v;
	json_array_foreach(bt ? json_object_get(bt, "argv") : NULL, i, v) json_array_append(argv, v);
	if (!bt)
		json_array_append_new(argv, json_string("bundletool"));
	json_t *rest = json_pack("[s,s,s,s,s,s,s,s]", "build-apks", "--bundle", aab_real, "--output", apks ? apks : "",
	                         "--overwrite", "--mode", "universal");
	json_array_extend(argv, rest);
	json_decref(rest);
	char *text = command_text(argv);
	res = json_pack("{s:s,s:s,s:s,s:s,s:s,s:b,s:b,s:o,s:o,s:O}", "command", text ? text : "", "aab", aab_real, "name", name ? name : "", "apksPath",
	                apks ? apks : "", "generatedApk", apk ? apk : "", "fromCache", cached, "force", force, "argv", argv,
	                "bundletool", bt ? json_incref(bt) : json_null(), "looked", tried);
	free(text);
	free(name);
	free(apks);
	free(apk);
	if (!res) {
		rc = sw__error_nomem(err);
		goto out;
	}
	if (!cached && !bt) {
		rc = sw__error_set(err, SW_EUNSUPPORTED, "AAB_NEEDS_BUNDLETOOL",
		                   "Install bundletool (https://github.com/google/bundletool/releases) and set BUNDLETOOL_JAR "
		                   "to the jar, or put a `bundletool` launcher on PATH",
		                   "bundletool was not found, so %s cannot be turned into an APK", aab_real);
		if (err && *err)
			sw__error_take_details(*err, json_pack("{s:s,s:O}", "aab", aab_real, "looked", tried));
		goto out;
	}
	*out_json = sw__json_compact(res);
	if (!*out_json)
		rc = sw__error_nomem(err);
out:
	json_decref(opts);
	json_decref(res);
	json_decref(tried);
	json_decref(bt);
	free(aab);
	free(aab_real);
	free(dir_real);
	free(root_real);
	return rc;
}

/* Copies universal.apk out of the APK set @apks into @dest (through a temporary name, then renamed). */
static int extract_universal(const char *root, const char *apks, const char *dest, sw_error **err)
{
	int zerr = 0;
	zip_t *z = zip_open(apks, ZIP_RDONLY, &zerr);
	if (!z)
		return sw__error_set(err, SW_EIO, "AAB_BUILD_APKS_FAILED", "Run qa_bundletool again with force:true",
		                     "bundletool's output %s is not a readable APK set (zip error %d)", apks, zerr);
	int rc = SW_OK, fd = -1;
	char *tmp = NULL;
	zip_file_t *f = NULL;
	zip_int64_t idx = zip_name_locate(z, "universal.apk", 0);
	zip_stat_t st;
	zip_stat_init(&st);
	if (idx < 0 || zip_stat_index(z, (zip_uint64_t)idx, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE)) {
		rc = sw__error_set(err, SW_EIO, "AAB_BUILD_APKS_FAILED",
		                   "Check the bundletool version (build-apks --mode universal writes universal.apk)",
		                   "The APK set %s holds no universal.apk", apks);
		goto out;
	}
	if (st.size > MAX_UNIVERSAL_APK ||
	    ((st.valid & ZIP_STAT_COMP_SIZE) && st.size > ((zip_uint64_t)1 << 20) &&
	     st.size / (st.comp_size ? st.comp_size : 1) > SW__ART_MAX_RATIO)) {
		rc = sw__error_set(err, SW_EIO, "AAB_BUILD_APKS_FAILED", NULL,
		                   "universal.apk in %s declares %llu bytes (%llu compressed): refused as too large or a "
		                   "compression bomb",
		                   apks, (unsigned long long)st.size, (unsigned long long)st.comp_size);
		goto out;
	}
	tmp = sw__asprintf("%s.part-%ld", dest, (long)getpid());
	if (!tmp) {
		rc = sw__error_nomem(err);
		goto out;
	}
	unlink(tmp);
	fd = sw__confine_open(root, tmp, O_WRONLY | O_CREAT | O_EXCL, 0644, 0, NULL, err);
	if (fd < 0) {
		rc = fd;
		goto out;
	}
	f = zip_fopen_index(z, (zip_uint64_t)idx, 0);
	char *buf = malloc(COPY_CHUNK);
	if (!f || !buf) {
		free(buf);
		rc = f ? sw__error_nomem(err)
		       : sw__error_set(err, SW_EIO, "AAB_BUILD_APKS_FAILED", NULL, "cannot read universal.apk in %s", apks);
		goto out;
	}
	zip_uint64_t total = 0;
	for (;;) {
		zip_int64_t got = zip_fread(f, buf, COPY_CHUNK);
		if (got < 0) {
			rc = sw__error_set(err, SW_EIO, "AAB_BUILD_APKS_FAILED", NULL, "universal.apk in %s is damaged", apks);
			break;
		}
		if (got == 0)
			break;
		total += (zip_uint64_t)got;
		/* the directory may lie about the size: stop at what it declared */
		if (total > st.size || total > MAX_UNIVERSAL_APK) {
			rc = sw__error_set(err, SW_EIO, "AAB_BUILD_APKS_FAILED", NULL,
			                   "universal.apk in %s inflates past its declared %llu bytes: refused", apks,
			                   (unsigned long long)st.size);
			break;
		}
		if (sw__write_all(fd, buf, (size_t)got) != 0) {
			rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot write %s: %s", tmp, strerror(errno));
			break;
		}
	}
	free(buf);
	if (rc == SW_OK && fsync(fd) != 0)
		rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot write %s: %s", tmp, strerror(errno));
	close(fd);
	fd = -1;
	if (rc == SW_OK && rename(tmp, dest) != 0)
		rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot move the APK to %s: %s", dest, strerror(errno));
out:
	if (fd >= 0)
		close(fd);
	if (tmp && rc != SW_OK)
		unlink(tmp); /* nothing half-written stays */
	free(tmp);
	if (f)
		zip_fclose(f);
	zip_discard(z);
	return rc;
}

/* The catalog code of a failed build-apks, from what bundletool printed. */
static const char *failure_code_of(const char *log)
{
	static const char *const signing[] = {"keystore", "Keystore", "signing", "Signing", "SigningConfig",
	                                      "KeyStoreException", NULL};
	for (int i = 0; log && signing[i]; i++)
		if (strstr(log, signing[i]))
			return "ANDROID_SIGNING_FAILED";
	return "AAB_BUILD_APKS_FAILED";
}

/* Adds @key: @value to the details of *@err. */
static void add_detail(sw_error **err, const char *key, const char *value)
{
	if (!err || !*err || !value)
		return;
	json_t *d = sw__error_details(*err);
	json_t *nd = json_is_object(d) ? json_deep_copy(d) : json_object();
	json_object_set_new(nd, key, json_string(value));
	sw__error_take_details(*err, nd);
}

/* Converts (unless the plan says the cache is fresh): the log into @log (transfer full). */
static int convert(const char *root, json_t *plan, int (*abort_fn)(void *), void *abort_ud, char **log,
                   sw_error **err)
{
	const char *apks = json_string_value(json_object_get(plan, "apksPath"));
	const char *apk = json_string_value(json_object_get(plan, "generatedApk"));
	json_t *argv = json_object_get(plan, "argv");
	if (!apks || !apk || !json_is_array(argv))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "the plan lacks apksPath, generatedApk or argv (use sw_bundletool_plan's)");
	/* bundletool writes the set itself: never through a link planted where it goes */
	struct stat st;
	if (lstat(apks, &st) == 0 && !S_ISREG(st.st_mode))
		return sw__error_set(err, SW_EDENIED, "UNSAFE_ACTION_REFUSED", "Remove it and run qa_bundletool again",
		                     "%s exists and is not a plain file (a link?): bundletool would write through it", apks);
	int rc = SW_OK;
	sw__argv a = SW_ARGV_INIT;
	sw__proc_result r = {0};
	size_t i;
	json_t *v;
	json_array_foreach(argv, i, v) sw__argv_add(&a, json_string_value(v));
	const char *const *av = sw__argv_finish(&a, err);
	if (!av) {
		sw__argv_free(&a);
		return SW_ENOMEM;
	}
	sw__proc_opts o = {.timeout_ms = BUNDLETOOL_TIMEOUT_MS,
	                   .max_out = LOG_CAP,
	                   .abort_fn = abort_fn,
	                   .abort_ud = abort_ud,
	                   .search_path = true,
	                   .cwd = root};
	if (sw__proc_run(av, &o, &r, NULL) < 0) {
		rc = sw__error_set(err, SW_EUNSUPPORTED, "AAB_NEEDS_BUNDLETOOL", NULL, "bundletool could not be started (%s)",
		                   strerror(r.exec_errno ? r.exec_errno : ENOENT));
		goto out;
	}
	const char *cmd = json_string_value(json_object_get(plan, "command"));
	*log = sw__asprintf("$ %s\n%s%s%s%s\n", cmd ? cmd : "bundletool build-apks", r.out, r.err[0] ? "\n" : "", r.err,
	                    r.truncated ? "\n[output beyond 4 MiB left out]" : "");
	if (r.cancelled) {
		rc = sw__error_set(err, SW_ECANCELLED, "CANCELLED", NULL, "bundletool was stopped (the job was cancelled)");
		goto out;
	}
	if (r.timed_out || r.status != 0) {
		char *both = sw__asprintf("%s\n%s", r.out, r.err);
		char *cut = sw_text_cap(both, (size_t)-1, 1500, SW_CAP_TAIL);
		rc = sw__error_set(err, SW_EIO, failure_code_of(both),
		                   "Read the bundletool log (logUri) and fix the bundle or its signing",
		                   "bundletool build-apks %s: %s",
		                   r.timed_out ? "timed out after 10 minutes" : "failed", cut ? cut : "");
		sw_free(cut);
		free(both);
		goto out;
	}
	unlink(apk); /* a stale APK never survives a failed extraction */
	rc = extract_universal(root, apks, apk, err);
out:
	sw__argv_free(&a);
	sw__proc_result_clear(&r);
	return rc;
}

SW_API int sw_bundletool_device(sw_ctx *ctx, const char *apk, const char *options_json, int (*abort_fn)(void *),
                                void *abort_ud, char **out_json, sw_error **err)
{
	if (!apk || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_bundletool_device: apk and out_json are required");
	*out_json = NULL;
	json_t *opts = options_json && *options_json ? json_loads(options_json, 0, NULL) : json_object();
	bool install = json_is_true(json_object_get(opts, "install"));
	json_t *p = json_pack("{s:s,s:b,s:b}", "apk", apk, "launch", 0, "checkOnly", !install);
	if (json_is_string(json_object_get(opts, "device")))
		json_object_set(p, "device", json_object_get(opts, "device"));
	json_decref(opts);
	char *pj = sw__json_compact(p);
	json_decref(p);
	char *out = NULL;
	int rc = sw_android_prepare_abortable(ctx, pj, abort_fn, abort_ud, &out, err);
	free(pj);
	if (rc != SW_OK) {
		/* a refusal of the device that is not one of the typed ones is the bundle's install failure */
		if (err && *err && !strcmp(sw_error_failure_code(*err), "INSTALL_FAILED")) {
			sw_error *e = *err;
			*err = NULL;
			rc = sw__error_set(err, sw_error_code(e), "AAB_INSTALL_FAILED", sw_error_hint(e), "%s",
			                   sw_error_message(e));
			sw_error_free(e);
		}
		return rc;
	}
	json_t *res = json_loads(out, 0, NULL);
	sw_free(out);
	json_t *o = json_pack("{s:O,s:O,s:b}", "device", json_object_get(res, "device"), "deviceCheck",
	                      json_object_get(res, "installCheck") ? json_object_get(res, "installCheck") : json_null(),
	                      "installed", json_is_true(json_object_get(res, "installed")));
	json_decref(res);
	*out_json = o ? sw__json_compact(o) : NULL;
	json_decref(o);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

SW_API int sw_bundletool_run(sw_ctx *ctx, sw_session *s, const char *plan_json, const char *device_json,
                             int (*abort_fn)(void *), void *abort_ud, char **out_json, sw_error **err)
{
	if (!s || !plan_json || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_bundletool_run: session, plan and out_json are required");
	*out_json = NULL;
	json_t *plan = json_loads(plan_json, 0, NULL);
	if (!json_is_object(plan)) {
		json_decref(plan);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "the plan must be sw_bundletool_plan()'s");
	}
	const char *root = sw_session_root(s);
	const char *apks = json_string_value(json_object_get(plan, "apksPath"));
	const char *apk = json_string_value(json_object_get(plan, "generatedApk"));
	const char *aab = json_string_value(json_object_get(plan, "aab"));
	bool cached = json_is_true(json_object_get(plan, "fromCache"));
	char *log = NULL, *log_uri = NULL;
	int rc = SW_OK;
	if (!apks || !apk || !aab) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "the plan lacks aab, apksPath or generatedApk");
		goto out;
	}
	if (!cached) {
		rc = convert(root, plan, abort_fn, abort_ud, &log, err);
		if (log) {
			/* kept on success and failure; text artifacts are redacted with the session's secrets as saved */
			char *meta = NULL;
			if (sw_artifact_save(s, "logs", "bundletool.log", "text/plain", log, strlen(log),
			                     "bundletool build-apks output", &meta, NULL) == SW_OK) {
				json_t *m = json_loads(meta, 0, NULL);
				const char *u = json_string_value(json_object_get(m, "uri"));
				log_uri = u ? sw__strdup(u) : NULL;
				json_decref(m);
			}
			sw_free(meta);
		}
		if (rc != SW_OK) {
			add_detail(err, "logUri", log_uri);
			add_detail(err, "aab", aab);
			goto out;
		}
	}
	json_t *res = json_pack("{s:b,s:b,s:s,s:s,s:s,s:O}", "converted", true, "fromCache", cached,
	                        "originalArtifact", aab, "generatedApk", apk, "apksPath", apks, "command",
	                        json_object_get(plan, "command"));
	if (res && log_uri)
		json_object_set_new(res, "logUri", json_string(log_uri));
	if (res && device_json) {
		char *dev = NULL;
		rc = sw_bundletool_device(ctx, apk, device_json, abort_fn, abort_ud, &dev, err);
		if (rc != SW_OK) {
			json_decref(res);
			goto out;
		}
		json_t *d = json_loads(dev, 0, NULL);
		sw_free(dev);
		json_object_update(res, d);
		json_decref(d);
	}
	*out_json = res ? sw__json_compact(res) : NULL;
	json_decref(res);
	if (!*out_json)
		rc = sw__error_nomem(err);
out:
	free(log);
	free(log_uri);
	json_decref(plan);
	return rc;
}

/* ---- the job (qa_bundletool) ----------------------------------------------------------------------- */

struct bundle_job {
	char *home, *plan, *device; /* device NULL: no device part */
};

static void bundle_job_free(void *ud)
{
	struct bundle_job *bj = ud;
	free(bj->home);
	free(bj->plan);
	free(bj->device);
	free(bj);
}

static int bundle_job_run(sw_job *job, void *ud, char **result_json, sw_error **err)
{
	struct bundle_job *bj = ud;
	json_t *plan = json_loads(bj->plan, 0, NULL);
	bool cached = json_is_true(json_object_get(plan, "fromCache"));
	json_decref(plan);
	sw_job_set_progress(job, cached ? "checking the cached universal APK against the device"
	                                : "bundletool build-apks (universal APK)",
	                    NULL, NULL);
	sw_ctx *ctx = NULL;
	int rc = sw_ctx_new(&ctx, err);
	if (rc != SW_OK)
		return rc;
	if (bj->home)
		sw_ctx_set_home(ctx, bj->home, NULL);
	char *out = NULL;
	rc = sw_bundletool_run(ctx, sw_job_session(job), bj->plan, bj->device, sw_job_abort, job, &out, err);
	sw_ctx_free(ctx);
	if (rc != SW_OK)
		return rc;
	json_t *res = json_loads(out, 0, NULL);
	sw_free(out);
	const char *log = json_string_value(json_object_get(res, "logUri"));
	if (log)
		sw_job_add_artifact(job, log, NULL);
	*result_json = res ? sw__json_compact(res) : NULL;
	json_decref(res);
	return *result_json ? SW_OK : sw__error_nomem(err);
}

/* @device_json with the session's bound device filled in when it names none. (transfer full, nullable) */
static char *device_for_session(sw_session *s, const char *device_json, sw_error **err)
{
	json_t *d = device_json && *device_json ? json_loads(device_json, 0, NULL) : json_object();
	if (!json_is_object(d)) {
		json_decref(d);
		sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "the device part must be a JSON object {device?, install?}");
		return NULL;
	}
	if (!json_is_string(json_object_get(d, "device"))) {
		json_t *bound = NULL;
		if (sw__session_get(s, "device", &bound, NULL) >= 0 && json_is_string(json_object_get(bound, "serial")))
			json_object_set(d, "device", json_object_get(bound, "serial"));
		json_decref(bound);
	}
	char *out = sw__json_compact(d);
	json_decref(d);
	if (!out)
		sw__error_nomem(err);
	return out;
}

SW_API int sw_bundletool_start(sw_ctx *ctx, sw_session *s, const char *plan_json, const char *device_json,
                               char **job_id, sw_error **err)
{
	if (!s || !plan_json || !job_id)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_bundletool_start: session, plan and job_id are required");
	struct bundle_job *bj = calloc(1, sizeof(*bj));
	if (!bj)
		return sw__error_nomem(err);
	const char *home = ctx ? sw_ctx_get_home(ctx) : NULL;
	bj->home = home ? sw__strdup(home) : NULL;
	bj->plan = sw__strdup(plan_json);
	if (!bj->plan || (home && !bj->home)) {
		bundle_job_free(bj);
		return sw__error_nomem(err);
	}
	if (device_json && !(bj->device = device_for_session(s, device_json, err))) {
		bundle_job_free(bj);
		return err && *err ? sw_error_code(*err) : SW_ENOMEM;
	}
	int rc = sw_job_start(s, "bundletool", bundle_job_run, bj, bundle_job_free, job_id, err);
	if (rc != SW_OK)
		bundle_job_free(bj);
	return rc;
}
