/* inspect.c: what one build artifact is (.apk, .aab, .ipa, .app): app id, versions, min SDK, ABIs, warnings. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <plist/plist.h>
#include <zip.h>

#include "artifacts-internal.h"

#define READ_CHUNK ((size_t)64 << 10)

static void warn(json_t *warnings, const char *fmt, ...) SW_PRINTF(2, 3);
static void warn(json_t *warnings, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	/* paths and entry names come from the repository: cut on a character boundary, never mid-sequence */
	char *capped = msg ? sw_text_cap(msg, (size_t)-1, 1000, SW_CAP_HEAD_TAIL) : NULL;
	if (capped)
		json_array_append_new(warnings, json_string(capped));
	sw_free(capped);
	free(msg);
}

/*
 * Reads zip entry @idx into memory, at most @max bytes inflated, 64 KiB at a time: a larger entry, or one whose
 * declared inflated size is more than SW__ART_MAX_RATIO times its compressed size (a bomb), is refused with
 * a reason in @why, and no more than @max + one chunk is ever held.
 */
static int read_entry(zip_t *z, zip_int64_t idx, size_t max, uint8_t **out, size_t *len, char *why, size_t whylen)
{
	zip_stat_t st;
	zip_stat_init(&st);
	if (zip_stat_index(z, (zip_uint64_t)idx, 0, &st) != 0) {
		sw_text_snprintf(why, whylen, "cannot read the zip entry's header");
		return -1;
	}
	const char *name = st.name ? st.name : "entry";
	if ((st.valid & ZIP_STAT_SIZE) && st.size > max) {
		sw_text_snprintf(why, whylen, "%s inflates to %llu bytes, over the %zu MiB limit", name,
		                 (unsigned long long)st.size, max >> 20);
		return -1;
	}
	if ((st.valid & ZIP_STAT_SIZE) && (st.valid & ZIP_STAT_COMP_SIZE) && st.size > ((zip_uint64_t)1 << 20) &&
	    st.size / (st.comp_size ? st.comp_size : 1) > SW__ART_MAX_RATIO) {
		sw_text_snprintf(why, whylen, "%s is a compression bomb (%llu bytes from %llu compressed)", name,
		                 (unsigned long long)st.size, (unsigned long long)st.comp_size);
		return -1;
	}
	zip_file_t *f = zip_fopen_index(z, (zip_uint64_t)idx, 0);
	if (!f) {
		sw_text_snprintf(why, whylen, "cannot open %s: %s", name, zip_strerror(z));
		return -1;
	}
	sw_buf b = SW_BUF_INIT;
	int rc = 0;
	for (;;) {
		if (!sw__buf_reserve(&b, READ_CHUNK)) {
			sw_text_snprintf(why, whylen, "out of memory reading %s", name);
			rc = -1;
			break;
		}
		zip_int64_t got = zip_fread(f, b.data + b.len, READ_CHUNK);
		if (got < 0) {
			sw_text_snprintf(why, whylen, "cannot inflate %s: %s", name, zip_file_strerror(f));
			rc = -1;
			break;
		}
		if (got == 0)
			break;
		b.len += (size_t)got;
		b.data[b.len] = '\0';
		if (b.len > max) {
			sw_text_snprintf(why, whylen, "%s inflates to more than the %zu MiB limit", name, max >> 20);
			rc = -1;
			break;
		}
	}
	zip_fclose(f);
	if (rc != 0 || b.failed) {
		if (rc == 0)
			sw_text_snprintf(why, whylen, "out of memory reading %s", name);
		sw__buf_free(&b);
		return -1;
	}
	*len = b.len;
	*out = (uint8_t *)sw__buf_steal(&b, NULL);
	if (!*out)
		*out = (uint8_t *)sw__strdup("");
	return 0;
}

/* Adds the ABIs named by lib/<abi>/... (or base/lib/<abi>/... in a bundle) entries, sorted and unique as aapt. */
static void collect_abi(json_t *abis, const char *name, const char *prefix)
{
	size_t pl = strlen(prefix);
	if (strncmp(name, prefix, pl) != 0)
		return;
	const char *abi = name + pl;
	const char *slash = strchr(abi, '/');
	if (!slash || slash == abi)
		return;
	size_t n = (size_t)(slash - abi);
	if (n > 64 || !sw__utf8_valid(abi, n))
		return;
	char tmp[65];
	memcpy(tmp, abi, n);
	tmp[n] = '\0';
	size_t i, at = json_array_size(abis);
	json_t *v;
	json_array_foreach(abis, i, v)
	{
		int c = strcmp(json_string_value(v), tmp);
		if (c == 0)
			return;
		if (c > 0) {
			at = i;
			break;
		}
	}
	json_array_insert_new(abis, at, json_string(tmp));
}

static bool looks_like_lfs_pointer(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	char head[64];
	ssize_t n = read(fd, head, sizeof(head) - 1);
	close(fd);
	if (n <= 0)
		return false;
	head[n] = '\0';
	return sw__str_has_prefix(head, "version https://git-lfs.github.com/spec/");
}

static void set_str(json_t *o, const char *key, const char *v)
{
	json_object_set_new(o, key, v ? json_string(v) : json_null());
}

/* Reads the manifest values into @o (appId, versionName, versionCode, minSdk) as `aapt dump badging` shows them. */
static void apk_manifest(zip_t *z, zip_int64_t midx, json_t *o, json_t *warnings)
{
	char why[300];
	uint8_t *xml = NULL, *arsc = NULL;
	size_t xml_len = 0, arsc_len = 0;
	sw__axml_manifest m;
	memset(&m, 0, sizeof(m));
	if (read_entry(z, midx, SW__ART_MAX_MANIFEST, &xml, &xml_len, why, sizeof(why)) != 0) {
		warn(warnings, "AndroidManifest.xml not read: %s", why);
		return;
	}
	if (sw__axml_parse_manifest(xml, xml_len, &m, why, sizeof(why)) != 0) {
		warn(warnings, "%s", why);
		goto out;
	}
	if (sw__axml_manifest_has_refs(&m)) {
		zip_int64_t aidx = zip_name_locate(z, "resources.arsc", ZIP_FL_ENC_RAW);
		if (aidx < 0)
			warn(warnings, "the manifest refers to resources but the APK has no resources.arsc");
		else if (read_entry(z, aidx, SW__ART_MAX_ARSC, &arsc, &arsc_len, why, sizeof(why)) != 0)
			warn(warnings, "resources.arsc not read: %s", why);
		struct {
			sw__axml_value *v;
			const char *name;
		} refs[] = {{&m.version_code, "versionCode"}, {&m.version_name, "versionName"}, {&m.min_sdk, "minSdk"}};
		for (size_t i = 0; i < SW_ARRAY_SIZE(refs); i++) {
			if (!refs[i].v->present || refs[i].v->type != SW__RV_REFERENCE)
				continue;
			if (!arsc) {
				refs[i].v->present = false;
				continue;
			}
			if (sw__arsc_resolve(arsc, arsc_len, refs[i].v, why, sizeof(why)) != 0) {
				warn(warnings, "%s not resolved: %s", refs[i].name, why);
				refs[i].v->present = false;
			} else if (refs[i].v->type != SW__RV_STRING) {
				/* aapt dump badging reads these attributes as integers or strings, never through an
				 * integer resource: it refuses the APK there, so the value stays unknown here */
				warn(warnings,
				     "%s is a reference to a non-string resource, which aapt dump badging refuses",
				     refs[i].name);
				refs[i].v->present = false;
			}
		}
	}
	set_str(o, "appId", m.package.present ? m.package.str : NULL);
	if (m.package.present && !m.package.str)
		warn(warnings, "the manifest's package attribute is not a string");
	/* aapt prints versionCode only when it is a positive integer */
	sw__axml_value *vc = &m.version_code;
	if (vc->present && vc->type >= SW__RV_FIRST_INT && vc->type <= SW__RV_LAST_INT && (int32_t)vc->data > 0)
		json_object_set_new(o, "versionCode", json_integer((int32_t)vc->data));
	else
		json_object_set_new(o, "versionCode", json_null());
	sw__axml_value *vn = &m.version_name;
	set_str(o, "versionName", vn->present && vn->type == SW__RV_STRING ? vn->str : NULL);
	sw__axml_value *ms = &m.min_sdk;
	if (ms->present && ms->type >= SW__RV_FIRST_INT && ms->type <= SW__RV_LAST_INT)
		json_object_set_new(o, "minSdk", json_integer((int32_t)ms->data));
	else if (ms->present && ms->type == SW__RV_STRING && ms->str)
		json_object_set_new(o, "minSdk", json_string(ms->str)); /* a preview codename, as aapt prints it */
	else
		json_object_set_new(o, "minSdk", json_null());
out:
	sw__axml_manifest_clear(&m);
	free(xml);
	free(arsc);
}

/*
 * A plist string node's text, or NULL. plist_get_string_val() asserts (aborts the process) on a string
 * with an embedded NUL, which a crafted bplist00 can hold (found by tests/fuzz/fuzz-plist): read the
 * pointer and its length instead, and treat such a string as absent. (transfer full)
 */
static char *plist_text(plist_t n)
{
	if (!n || plist_get_node_type(n) != PLIST_STRING)
		return NULL;
	uint64_t len = 0;
	const char *p = plist_get_string_ptr(n, &len);
	if (!p || len > SW__ART_MAX_MANIFEST || memchr(p, '\0', (size_t)len))
		return NULL;
	return sw__strndup(p, (size_t)len);
}

static void plist_string(plist_t dict, const char *key, json_t *o, const char *field)
{
	char *s = plist_text(plist_dict_get_item(dict, key));
	if (s && sw__utf8_valid(s, strlen(s)))
		json_object_set_new(o, field, json_string(s));
	else
		json_object_set_new(o, field, json_null());
	free(s);
}

static json_t *plist_str_json(plist_t n)
{
	char *s = plist_text(n);
	json_t *v = s && sw__utf8_valid(s, strlen(s)) ? json_string(s) : json_null();
	free(s);
	return v;
}

int sw__info_plist_read(const char *data, size_t len, json_t **out, char *why, size_t whylen)
{
	if (len > SW__ART_MAX_MANIFEST) {
		snprintf(why, whylen, "Info.plist is over the 8 MiB limit");
		return -1;
	}
	if (len < 8) {
		snprintf(why, whylen, "Info.plist is %s", len ? "too short to be a property list" : "empty");
		return -1;
	}
	plist_t root = NULL;
	plist_from_memory(data, (uint32_t)len, &root);
	if (!root || plist_get_node_type(root) != PLIST_DICT) {
		snprintf(why, whylen, "Info.plist is %s", root ? "a property list without a dictionary at its root"
		                                               : "neither an XML nor a binary property list");
		plist_free(root);
		return -1;
	}
	json_t *plats = json_array(), *schemes = json_array();
	plist_t pa = plist_dict_get_item(root, "CFBundleSupportedPlatforms");
	for (uint32_t i = 0; pa && plist_get_node_type(pa) == PLIST_ARRAY && i < plist_array_get_size(pa); i++) {
		json_t *v = plist_str_json(plist_array_get_item(pa, i));
		if (json_is_string(v))
			json_array_append_new(plats, v);
		else
			json_decref(v);
	}
	plist_t types = plist_dict_get_item(root, "CFBundleURLTypes");
	for (uint32_t i = 0; types && plist_get_node_type(types) == PLIST_ARRAY && i < plist_array_get_size(types);
	     i++) {
		plist_t t = plist_array_get_item(types, i);
		plist_t sch = t && plist_get_node_type(t) == PLIST_DICT ? plist_dict_get_item(t, "CFBundleURLSchemes") : NULL;
		for (uint32_t j = 0; sch && plist_get_node_type(sch) == PLIST_ARRAY && j < plist_array_get_size(sch); j++) {
			json_t *v = plist_str_json(plist_array_get_item(sch, j));
			if (json_is_string(v) && json_array_size(schemes) < 64)
				json_array_append_new(schemes, v);
			else
				json_decref(v);
		}
	}
	*out = json_pack("{s:o,s:o,s:o,s:o}", "bundleId", plist_str_json(plist_dict_get_item(root, "CFBundleIdentifier")),
	                 "platforms", plats, "dtPlatformName", plist_str_json(plist_dict_get_item(root, "DTPlatformName")),
	                 "urlSchemes", schemes);
	plist_free(root);
	if (!*out) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	return 0;
}

/* Reads an Info.plist (XML or binary) into @o: appId, versionName, versionCode, minSdk, and which platforms. */
static void apply_plist(const char *data, size_t len, json_t *o, json_t *warnings, json_t *installable)
{
	plist_t root = NULL;
	if (len > UINT32_MAX) {
		warn(warnings, "Info.plist is too large");
		return;
	}
	plist_from_memory(data, (uint32_t)len, &root);
	if (!root || plist_get_node_type(root) != PLIST_DICT) {
		warn(warnings, "Info.plist is neither an XML nor a binary property list");
		plist_free(root);
		return;
	}
	plist_string(root, "CFBundleIdentifier", o, "appId");
	plist_string(root, "CFBundleShortVersionString", o, "versionName");
	plist_string(root, "CFBundleVersion", o, "versionCode");
	plist_string(root, "MinimumOSVersion", o, "minSdk");
	plist_t plats = plist_dict_get_item(root, "CFBundleSupportedPlatforms");
	if (plats && plist_get_node_type(plats) == PLIST_ARRAY && installable) {
		for (uint32_t i = 0; i < plist_array_get_size(plats); i++) {
			char *p = plist_text(plist_array_get_item(plats, i));
			if (p && !strcmp(p, "iPhoneSimulator"))
				json_array_append_new(installable, json_string("ios-simulator"));
			else if (p && !strcmp(p, "iPhoneOS"))
				json_array_append_new(installable, json_string("ios-real"));
			free(p);
		}
	}
	if (json_is_null(json_object_get(o, "appId")))
		warn(warnings, "Info.plist has no CFBundleIdentifier");
	plist_free(root);
}

static void android_installable(json_t *abis, json_t *installable)
{
	if (!json_array_size(abis)) {
		json_array_append_new(installable, json_string("android-emulator"));
		json_array_append_new(installable, json_string("android-real"));
		return;
	}
	bool emu = false, real = false;
	size_t i;
	json_t *v;
	json_array_foreach(abis, i, v)
	{
		const char *a = json_string_value(v);
		if (!strcmp(a, "x86") || !strcmp(a, "x86_64") || !strcmp(a, "arm64-v8a"))
			emu = true;
		if (sw__str_has_prefix(a, "arm"))
			real = true;
	}
	if (emu)
		json_array_append_new(installable, json_string("android-emulator"));
	if (real)
		json_array_append_new(installable, json_string("android-real"));
}

static void inspect_zip(const char *path, const char *type, json_t *o, json_t *warnings, json_t *abis,
                        json_t *installable)
{
	int zerr = 0;
	zip_t *z = zip_open(path, ZIP_RDONLY, &zerr);
	if (!z) {
		if (looks_like_lfs_pointer(path))
			warn(warnings, "%s is a Git LFS pointer, not the file itself: run git lfs pull", path);
		else if (zerr == ZIP_ER_NOZIP)
			warn(warnings, "%s is not a zip archive, so not an installable .%s", path, type);
		else {
			zip_error_t ze;
			zip_error_init_with_code(&ze, zerr);
			warn(warnings, "%s cannot be read as a zip archive: %s", path, zip_error_strerror(&ze));
			zip_error_fini(&ze);
		}
		return;
	}
	zip_int64_t n = zip_get_num_entries(z, 0);
	if (n < 0 || n > SW__ART_MAX_ENTRIES) {
		warn(warnings, "%s has %lld entries, over the %d entry limit: not read", path, (long long)n,
		     SW__ART_MAX_ENTRIES);
		zip_discard(z);
		return;
	}
	zip_int64_t manifest = -1, plist = -1;
	bool android = !strcmp(type, "apk") || !strcmp(type, "aab");
	for (zip_int64_t i = 0; i < n; i++) {
		const char *name = zip_get_name(z, (zip_uint64_t)i, ZIP_FL_ENC_RAW);
		if (!name)
			continue;
		if (!strcmp(type, "apk")) {
			if (manifest < 0 && !strcmp(name, "AndroidManifest.xml"))
				manifest = i;
			collect_abi(abis, name, "lib/");
		} else if (!strcmp(type, "aab")) {
			collect_abi(abis, name, "base/lib/");
		} else if (plist < 0 && sw__str_has_prefix(name, "Payload/")) {
			/* Payload/<Name>.app/Info.plist */
			const char *app = name + 8;
			const char *slash = strchr(app, '/');
			if (slash && slash - app > 4 && !strncmp(slash - 4, ".app", 4) && !strcmp(slash, "/Info.plist"))
				plist = i;
		}
	}
	if (!strcmp(type, "apk")) {
		if (manifest < 0)
			warn(warnings, "%s has no AndroidManifest.xml", path);
		else
			apk_manifest(z, manifest, o, warnings);
	} else if (!strcmp(type, "aab")) {
		warn(warnings, "an .aab is not installable as it is: qa_bundletool converts it to an APK");
	} else if (plist < 0) {
		warn(warnings, "%s has no Payload/<App>.app/Info.plist", path);
	} else {
		uint8_t *data = NULL;
		size_t len = 0;
		char why[300];
		if (read_entry(z, plist, SW__ART_MAX_MANIFEST, &data, &len, why, sizeof(why)) != 0)
			warn(warnings, "Info.plist not read: %s", why);
		else
			apply_plist((const char *)data, len, o, warnings, NULL);
		free(data);
	}
	/* an APK whose manifest could not be read is no app a device would take */
	if (android && !strcmp(type, "apk") && json_is_string(json_object_get(o, "appId")))
		android_installable(abis, installable);
	zip_discard(z);
}

static const char *type_of(const char *path, bool is_dir)
{
	static const char *const types[] = {"apk", "aab", "ipa", "app", NULL};
	const char *dot = strrchr(path, '.');
	if (!dot)
		return NULL;
	for (int i = 0; types[i]; i++)
		if (!strcmp(dot + 1, types[i]))
			return (!strcmp(types[i], "app")) == is_dir ? types[i] : NULL;
	return NULL;
}

int sw__artifact_inspect_json(const char *path, json_t **out, sw_error **err)
{
	struct stat st;
	if (!path || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "path and out must not be NULL");
	if (stat(path, &st) != 0)
		return sw__error_set(err, SW_ENOTFOUND, "NO_ARTIFACT", "Pass the path of an .apk, .aab, .ipa or .app",
		                     "%s does not exist", path);
	if (!sw__utf8_valid(path, strlen(path)))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Rename it to a UTF-8 name",
		                     "The artifact's path is not valid UTF-8");
	const char *type = type_of(path, S_ISDIR(st.st_mode));
	if (!type || (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Pass the path of an .apk, .aab, .ipa or .app",
		                     "%s is not an .apk, .aab or .ipa file nor an .app folder", path);
	json_t *o = json_object(), *warnings = json_array(), *abis = json_array(), *installable = json_array();
	if (!o || !warnings || !abis || !installable) {
		json_decref(o);
		json_decref(warnings);
		json_decref(abis);
		json_decref(installable);
		return sw__error_nomem(err);
	}
	bool ios = !strcmp(type, "ipa") || !strcmp(type, "app");
	json_object_set_new(o, "path", json_string(path));
	json_object_set_new(o, "type", json_string(type));
	json_object_set_new(o, "platform", json_string(ios ? "ios" : "android"));
	static const char *const fields[] = {"appId", "versionName", "versionCode", "minSdk", NULL};
	for (int i = 0; fields[i]; i++)
		json_object_set_new(o, fields[i], json_null());
	json_object_set_new(o, "sizeBytes", json_integer(S_ISDIR(st.st_mode) ? 0 : (json_int_t)st.st_size));
	if (!strcmp(type, "app")) {
		char *pl = sw__path_join(path, "Info.plist");
		char *data = NULL;
		size_t len = 0;
		sw_error *e = NULL;
		if (!pl || sw__read_file(pl, SW__ART_MAX_MANIFEST, &data, &len, &e) != SW_OK)
			warn(warnings, "Info.plist not read: %s", e ? sw_error_message(e) : "out of memory");
		else
			apply_plist(data, len, o, warnings, installable);
		sw_error_free(e);
		free(data);
		free(pl);
		if (!json_array_size(installable))
			json_array_append_new(installable, json_string("ios-simulator"));
	} else {
		inspect_zip(path, type, o, warnings, abis, installable);
		if (!strcmp(type, "ipa")) {
			json_array_clear(installable);
			json_array_append_new(installable, json_string("ios-real"));
		}
	}
	json_object_set_new(o, "abis", abis);
	json_object_set_new(o, "installableOn", installable);
	json_object_set_new(o, "warnings", warnings);
	*out = o;
	return SW_OK;
}

int sw_artifact_inspect(const char *path, char **out_json, sw_error **err)
{
	if (!out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "out_json must not be NULL");
	json_t *o = NULL;
	int rc = sw__artifact_inspect_json(path, &o, err);
	if (rc != SW_OK)
		return rc;
	char *s = sw__json_compact(o);
	json_decref(o);
	if (!s)
		return sw__error_nomem(err);
	*out_json = s;
	return SW_OK;
}
