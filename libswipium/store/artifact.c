/* artifact.c: session artifacts: URIs, name sanitising, kind folders, redaction on save, capped reads. */
#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store-internal.h"
#include "store-redact.h"

#define NAME_MAX_UNITS 180
#define EXT_MAX_UNITS 16
#define TEXT_CAP ((size_t)1024 * 1024)
#define BINARY_CAP ((size_t)8 * 1024 * 1024)
#define URI_PREFIX "swipium://session/"

static bool uri_keep(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       strchr("-._~:@!$&'()*+;=", c);
}

static void put_segment(sw_buf *b, const char *seg)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)seg; *p; p++) {
		if (*p && uri_keep(*p)) {
			sw__buf_putc(b, (char)*p);
		} else {
			char e[3] = {'%', hex[*p >> 4], hex[*p & 15]};
			sw__buf_append(b, e, 3);
		}
	}
}

SW_API int sw_artifact_uri(const char *session_id, const char *kind, const char *name, char **out, sw_error **err)
{
	if (!session_id || !kind || !name || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_artifact_uri: bad arguments");
	sw_buf b = SW_BUF_INIT;
	sw__buf_puts(&b, URI_PREFIX);
	put_segment(&b, session_id);
	sw__buf_putc(&b, '/');
	put_segment(&b, kind);
	sw__buf_putc(&b, '/');
	put_segment(&b, name);
	char *s = sw__buf_steal(&b, NULL);
	if (!s)
		return sw__error_nomem(err);
	*out = s;
	return SW_OK;
}

/* Percent-decodes one segment; NULL on a bad escape or an embedded NUL. */
static char *decode_segment(const char *s, size_t n)
{
	char *out = malloc(n + 1);
	if (!out)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%') {
			int v = 0;
			for (int k = 1; k <= 2; k++) {
				char c = i + (size_t)k < n ? s[i + (size_t)k] : '\0';
				int d = c >= '0' && c <= '9'   ? c - '0'
				        : c >= 'a' && c <= 'f' ? c - 'a' + 10
				        : c >= 'A' && c <= 'F' ? c - 'A' + 10
				                               : -1;
				if (d < 0) {
					free(out);
					return NULL;
				}
				v = v * 16 + d;
			}
			if (v == 0) {
				free(out);
				return NULL;
			}
			out[o++] = (char)v;
			i += 2;
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
	return out;
}

SW_API int sw_artifact_sanitize_name(const char *name, char **out, sw_error **err)
{
	if (!name || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_artifact_sanitize_name: bad arguments");
	char *clean = sw__utf8_sanitize(name, strlen(name));
	if (!clean)
		return sw__error_nomem(err);
	sw_buf b = SW_BUF_INIT;
	for (size_t i = 0; clean[i];) {
		unsigned char c = (unsigned char)clean[i];
		if (c == '.' && clean[i + 1] == '.') {
			while (clean[i] == '.')
				i++;
			sw__buf_putc(&b, '_');
			continue;
		}
		sw__buf_putc(&b, (c == '/' || c == '\\' || c < 0x20 || c == 0x7f) ? '_' : (char)c);
		i++;
	}
	free(clean);
	char *s = sw__buf_steal(&b, NULL);
	if (!s)
		return sw__error_nomem(err);
	/* trim ASCII and Unicode-agnostic whitespace at both ends */
	size_t start = 0, end = strlen(s);
	while (start < end && strchr(" \t\r\n\v\f", s[start]))
		start++;
	while (end > start && strchr(" \t\r\n\v\f", s[end - 1]))
		end--;
	memmove(s, s + start, end - start);
	s[end - start] = '\0';
	if (!*s || !strcmp(s, ".")) {
		free(s);
		s = sw__strdup("artifact");
		if (!s)
			return sw__error_nomem(err);
	}
	size_t len = strlen(s);
	if (sw__utf16_len(s, len) > NAME_MAX_UNITS) {
		const char *dot = strrchr(s, '.');
		size_t ext_len = 0;
		if (dot && dot != s && sw__utf16_len(dot, strlen(dot)) <= EXT_MAX_UNITS)
			ext_len = strlen(dot);
		size_t ext_units = ext_len ? sw__utf16_len(dot, ext_len) : 0;
		size_t head = sw__utf16_prefix_bytes(s, len - ext_len, NAME_MAX_UNITS - ext_units);
		if (ext_len)
			memmove(s + head, dot, ext_len);
		s[head + ext_len] = '\0';
	}
	*out = s;
	return SW_OK;
}

/* Kinds name folders, so they are kept to a safe alphabet. */
static bool kind_ok(const char *kind)
{
	if (!kind || !*kind || strlen(kind) > 64)
		return false;
	for (const char *p = kind; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
		      *p == '-'))
			return false;
	return true;
}

static const char *kind_folder(const char *kind)
{
	if (!strcmp(kind, "screenshot"))
		return "screenshots";
	if (!strcmp(kind, "recording"))
		return "videos";
	if (!strcmp(kind, "logs") || !strcmp(kind, "logcat") || !strcmp(kind, "metro") || !strcmp(kind, "wda"))
		return "logs";
	return kind;
}

static bool sensitive_refused_kind(const char *kind)
{
	/* clang-format off */
	static const char *const kinds[] = {
		"screenshot", "recording", "logs", "logcat", "metro", "wda", "dump",
	};
	/* clang-format on */
	for (size_t i = 0; i < SW_ARRAY_SIZE(kinds); i++)
		if (!strcmp(kind, kinds[i]))
			return true;
	return false;
}

/* Checks kind and name and gives the sanitised name and the target path. */
static int artifact_target(sw_session *s, const char *kind, const char *name, char **clean_out, char **path_out,
                           sw_error **err)
{
	if (!kind_ok(kind))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "artifact kind must be letters, digits, '_' or '-' (got \"%s\")",
		                     kind ? kind : "");
	if (!name)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "artifact name is required");
	if (s->sensitive && sensitive_refused_kind(kind))
		return sw__error_set(err, SW_EDENIED, "SENSITIVE_MODE_REFUSED",
		                     "Start a session without sensitive:true to capture evidence.",
		                     "this session is sensitive: %s capture is refused", kind);
	char *clean = NULL;
	int rc = sw_artifact_sanitize_name(name, &clean, err);
	if (rc)
		return rc;
	char *folder = sw__path_join(s->dir, kind_folder(kind));
	char *path = folder ? sw__path_join(folder, clean) : NULL;
	if (!path) {
		free(folder);
		free(clean);
		return sw__error_nomem(err);
	}
	rc = sw__mkdirs(folder, 0700, err);
	if (rc == SW_OK)
		(void)chmod(folder, 0700);
	free(folder);
	if (rc) {
		free(path);
		free(clean);
		return rc;
	}
	*clean_out = clean;
	*path_out = path;
	return SW_OK;
}

SW_API int sw_artifact_path(sw_session *s, const char *kind, const char *name, char **out, sw_error **err)
{
	if (!s || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_artifact_path: bad arguments");
	char *clean = NULL, *path = NULL;
	int rc = artifact_target(s, kind, name, &clean, &path, err);
	if (rc)
		return rc;
	free(clean);
	*out = path;
	return SW_OK;
}

void sw__session_put_artifact_locked(sw_session *s, json_t *rec)
{
	const char *uri = json_string_value(json_object_get(rec, "uri"));
	if (!uri)
		return;
	json_t *arr = json_object_get(s->state, "artifacts");
	if (!json_is_array(arr)) {
		arr = json_array();
		json_object_set_new(s->state, "artifacts", arr);
	}
	size_t i;
	json_t *it;
	bool replaced = false;
	json_array_foreach(arr, i, it)
	{
		const char *u = json_string_value(json_object_get(it, "uri"));
		if (u && !strcmp(u, uri)) {
			json_array_set(arr, i, rec);
			replaced = true;
			break;
		}
	}
	if (!replaced)
		json_array_append(arr, rec);
	sw__session_touch(s);
}

/* Records the artifact in the session (replacing a record with the same URI) and builds its metadata. */
static int record_artifact(sw_session *s, const char *kind, const char *clean, const char *path, const char *mime,
                           size_t bytes, const char *label, const char *tag, char **meta_json, sw_error **err)
{
	char *uri = NULL, *note = NULL;
	int rc = sw_artifact_uri(s->id, kind, clean, &uri, err);
	if (rc)
		return rc;
	if (tag && !strcmp(tag, SW_REDACTION_PARTIAL))
		(void)sw_redactor_partial_note(s->redactor, &note, NULL);
	char *red_label = label ? sw__session_redact_text(s, label) : NULL;
	json_t *rec = json_object();
	if (!rec || (label && !red_label)) {
		rc = sw__error_nomem(err);
		goto out;
	}
	json_object_set_new(rec, "uri", json_string(uri));
	json_object_set_new(rec, "path", json_string(path));
	json_object_set_new(rec, "mime", json_string(mime));
	json_object_set_new(rec, "kind", json_string(kind));
	json_object_set_new(rec, "createdAt", json_integer(sw_wall_ms()));
	if (red_label)
		json_object_set_new(rec, "label", json_string(red_label));
	json_object_set_new(rec, "redaction", json_string(tag));
	if (note)
		json_object_set_new(rec, "redactionNote", json_string(note));
	pthread_mutex_lock(&s->lock);
	sw__session_put_artifact_locked(s, rec);
	(void)sw__journal_append_locked(s, "artifacts", rec);
	pthread_mutex_unlock(&s->lock);
	if (meta_json) {
		json_t *meta = json_pack("{s:s, s:s, s:s, s:I, s:s, s:s}", "uri", uri, "mime", mime, "kind", kind,
		                         "bytes", (json_int_t)bytes, "path", path, "redaction", tag);
		if (meta && note)
			json_object_set_new(meta, "redactionNote", json_string(note));
		if (meta && red_label)
			json_object_set_new(meta, "label", json_string(red_label));
		*meta_json = meta ? sw__json_compact(meta) : NULL;
		json_decref(meta);
		if (!*meta_json)
			rc = sw__error_nomem(err);
	}
out:
	json_decref(rec);
	free(uri);
	free(note);
	free(red_label);
	return rc;
}

/* @name with "-<n>" before its extension (n >= 2). */
static char *nth_name(const char *name, unsigned n)
{
	const char *dot = strrchr(name, '.');
	if (!dot || dot == name)
		dot = name + strlen(name);
	return sw__asprintf("%.*s-%u%s", (int)(dot - name), name, n, dot);
}

static int fsync_dir_of(const char *path)
{
	char *dir = sw__strdup(path);
	char *slash = dir ? strrchr(dir, '/') : NULL;
	if (!slash) {
		free(dir);
		return -1;
	}
	*slash = '\0';
	int fd = open(*dir ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	close(fd);
	return rc;
}

/*
 * Writes @data as a new file: @*clean in @folder, or, when that name is taken (a file, or a record a
 * note may point to), the first free "<stem>-2.<ext>", "-3", ... Evidence is never overwritten. The
 * file appears whole (temporary file, fsync, link: link never replaces an existing name).
 * Updates *clean and *path to the name used.
 */
static int write_new_file(sw_session *s, const char *kind, char **clean, char **path, const void *data, size_t len,
                          sw_error **err)
{
	char *folder = sw__strdup(*path);
	char *slash = folder ? strrchr(folder, '/') : NULL;
	if (!slash) {
		free(folder);
		return sw__error_nomem(err);
	}
	*slash = '\0';
	static _Atomic unsigned long seq;
	char *tmp = sw__asprintf("%s/.new-%s-%lu.tmp", folder, s->writer, (unsigned long)atomic_fetch_add(&seq, 1));
	int fd = tmp ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600) : -1;
	int rc = SW_OK;
	if (fd < 0) {
		rc = sw__error_set(err, SW_EIO, "ARTIFACT_PATH_UNWRITABLE", NULL, "cannot write an artifact in %s: %s",
		                   folder, strerror(errno));
		goto out;
	}
	const char *p = data;
	size_t left = len;
	while (left > 0) {
		ssize_t w = write(fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : ENOSPC;
			close(fd);
			unlink(tmp);
			rc = sw__error_set(err, SW_EIO, "ARTIFACT_PATH_UNWRITABLE", NULL, "cannot write %s: %s", *path,
			                   strerror(e));
			goto out;
		}
		p += w;
		left -= (size_t)w;
	}
	if (fsync(fd) != 0) {
		int e = errno;
		close(fd);
		unlink(tmp);
		rc = sw__error_set(err, SW_EIO, "ARTIFACT_PATH_UNWRITABLE", NULL, "cannot write %s: %s", *path, strerror(e));
		goto out;
	}
	close(fd);
	for (unsigned n = 2;; n++) {
		char *uri = NULL;
		bool recorded = false;
		if (sw_artifact_uri(s->id, kind, *clean, &uri, NULL) == SW_OK) {
			pthread_mutex_lock(&s->lock);
			size_t i;
			json_t *it;
			json_array_foreach(json_object_get(s->state, "artifacts"), i, it)
			{
				const char *u = json_string_value(json_object_get(it, "uri"));
				if (u && !strcmp(u, uri)) {
					recorded = true;
					break;
				}
			}
			pthread_mutex_unlock(&s->lock);
		}
		free(uri);
		if (!recorded && link(tmp, *path) == 0)
			break;
		if (!recorded && errno != EEXIST) {
			rc = sw__error_set(err, SW_EIO, "ARTIFACT_PATH_UNWRITABLE", NULL, "cannot write %s: %s", *path,
			                   strerror(errno));
			unlink(tmp);
			goto out;
		}
		char *next = n < 100000 ? nth_name(*clean, n) : NULL;
		char *next_path = next ? sw__path_join(folder, next) : NULL;
		if (!next_path) {
			free(next);
			unlink(tmp);
			rc = n < 100000 ? sw__error_nomem(err)
			                : sw__error_set(err, SW_EIO, "ARTIFACT_PATH_UNWRITABLE", NULL,
			                                "too many artifacts named like %s", *clean);
			goto out;
		}
		free(*clean);
		free(*path);
		*clean = next;
		*path = next_path;
	}
	unlink(tmp);
	(void)fsync_dir_of(*path);
out:
	free(tmp);
	free(folder);
	return rc;
}

SW_API int sw_artifact_next_name(sw_session *s, const char *kind, const char *stem, const char *ext, char **out,
                                 sw_error **err)
{
	if (!s || !stem || !ext || !out || !*stem)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_artifact_next_name: bad arguments");
	char *probe = sw__asprintf("%s-001%s", stem, ext);
	char *clean = NULL, *path = NULL;
	int rc = probe ? artifact_target(s, kind, probe, &clean, &path, err) : sw__error_nomem(err);
	free(probe);
	if (rc)
		return rc;
	unsigned long top = 0;
	size_t sl = strlen(stem), el = strlen(ext);
	/* numbers in use: files in the kind folder (earlier processes, qa_prepare_target) and recorded names */
	char *slash = strrchr(path, '/');
	*slash = '\0';
	DIR *d = opendir(path);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n > sl + 1 + el && !strncmp(e->d_name, stem, sl) && e->d_name[sl] == '-' &&
		    !strcmp(e->d_name + n - el, ext)) {
			char *end = NULL;
			unsigned long v = strtoul(e->d_name + sl + 1, &end, 10);
			if (end == e->d_name + n - el && v > top)
				top = v;
		}
	}
	if (d)
		closedir(d);
	char *prefix = NULL;
	if (sw_artifact_uri(s->id, kind, stem, &prefix, NULL) == SW_OK) {
		size_t pl = strlen(prefix);
		pthread_mutex_lock(&s->lock);
		size_t i;
		json_t *it;
		json_array_foreach(json_object_get(s->state, "artifacts"), i, it)
		{
			const char *u = json_string_value(json_object_get(it, "uri"));
			size_t ul = u ? strlen(u) : 0;
			if (u && ul > pl + 1 + el && !strncmp(u, prefix, pl) && u[pl] == '-' && !strcmp(u + ul - el, ext)) {
				char *end = NULL;
				unsigned long v = strtoul(u + pl + 1, &end, 10);
				if (end == u + ul - el && v > top)
					top = v;
			}
		}
		pthread_mutex_unlock(&s->lock);
	}
	free(prefix);
	free(path);
	free(clean);
	char *name = sw__asprintf("%s-%03lu%s", stem, top + 1, ext);
	if (!name)
		return sw__error_nomem(err);
	*out = name;
	return SW_OK;
}

SW_API int sw_artifact_save(sw_session *s, const char *kind, const char *name, const char *mime, const void *data,
                            size_t len, const char *label, char **meta_json, sw_error **err)
{
	if (!s || !mime || (!data && len))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_artifact_save: bad arguments");
	char *clean = NULL, *path = NULL, *red = NULL;
	size_t red_len = 0;
	const char *tag = SW_REDACTION_NOT_APPLIED;
	int rc = artifact_target(s, kind, name, &clean, &path, err);
	if (rc)
		return rc;
	rc = sw_redactor_redact_artifact(s->redactor, mime, data ? data : "", len, &red, &red_len, &tag, err);
	if (rc)
		goto out;
	rc = write_new_file(s, kind, &clean, &path, red, red_len, err);
	if (rc)
		goto out;
	rc = record_artifact(s, kind, clean, path, mime, red_len, label, tag ? tag : SW_REDACTION_NOT_APPLIED,
	                     meta_json, err);
out:
	free(red);
	free(clean);
	free(path);
	return rc;
}

SW_API int sw_artifact_register(sw_session *s, const char *kind, const char *name, const char *mime, const char *label,
                                char **meta_json, sw_error **err)
{
	if (!s || !mime)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_artifact_register: bad arguments");
	char *clean = NULL, *path = NULL, *data = NULL, *red = NULL;
	size_t len = 0, red_len = 0;
	const char *tag = SW_REDACTION_NOT_APPLIED;
	int rc = artifact_target(s, kind, name, &clean, &path, err);
	if (rc)
		return rc;
	struct stat st;
	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "no regular file at %s to register",
		                   path);
		goto out;
	}
	(void)chmod(path, 0600);
	size_t bytes = (size_t)st.st_size;
	if (sw_redact_mime_is_text(mime)) {
		rc = sw__read_file(path, (size_t)1 << 31, &data, &len, err);
		if (rc)
			goto out;
		rc = sw_redactor_redact_artifact(s->redactor, mime, data, len, &red, &red_len, &tag, err);
		if (rc)
			goto out;
		if (red_len != len || memcmp(red, data, len) != 0) {
			rc = sw_file_write_atomic(path, red, red_len, 0, err);
			if (rc)
				goto out;
		}
		bytes = red_len;
	}
	rc = record_artifact(s, kind, clean, path, mime, bytes, label, tag ? tag : SW_REDACTION_NOT_APPLIED, meta_json,
	                     err);
out:
	free(data);
	free(red);
	free(clean);
	free(path);
	return rc;
}

SW_API int sw_artifact_list(sw_session *s, char **out, sw_error **err)
{
	return sw_session_get_json(s, "artifacts", out, err);
}

/* Splits a session URI into its decoded id, kind and name. */
static int parse_uri(const char *uri, char **id, char **kind, char **name)
{
	if (!sw__str_has_prefix(uri, URI_PREFIX))
		return SW_EINVAL;
	const char *p = uri + strlen(URI_PREFIX);
	const char *s1 = strchr(p, '/');
	const char *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
	if (!s1 || !s2 || strchr(s2 + 1, '/') || s1 == p || s2 == s1 + 1 || !s2[1])
		return SW_EINVAL;
	*id = decode_segment(p, (size_t)(s1 - p));
	*kind = decode_segment(s1 + 1, (size_t)(s2 - s1 - 1));
	*name = decode_segment(s2 + 1, strlen(s2 + 1));
	if (!*id || !*kind || !*name) {
		free(*id);
		free(*kind);
		free(*name);
		*id = *kind = *name = NULL;
		return SW_EINVAL;
	}
	return SW_OK;
}

/* Reads [off, off+n) of a file. */
static int read_range(const char *path, off_t off, size_t n, char **out, sw_error **err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "cannot open %s: %s", path,
		                     strerror(errno));
	char *buf = malloc(n + 1);
	if (!buf) {
		close(fd);
		return sw__error_nomem(err);
	}
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, buf + got, n - got, off + (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	*out = buf;
	return SW_OK;
}

SW_API int sw_artifact_read(sw_store *store, const char *uri, unsigned flags, char **data, size_t *len,
                            char **meta_json, sw_error **err)
{
	if (!store || !uri)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_artifact_read: bad arguments");
	char *id = NULL, *kind = NULL, *name = NULL;
	char *text = NULL, *path = NULL, *mime = NULL, *label = NULL, *red_tag = NULL, *red_note = NULL;
	json_t *meta = NULL;
	int rc;
	if (parse_uri(uri, &id, &kind, &name) != SW_OK)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		                     "Artifact URIs look like swipium://session/<sessionId>/<kind>/<name>.",
		                     "Unknown artifact URI \"%s\"", uri);
	sw_session *s = NULL;
	if (sw_store_get_session(store, id, &s, NULL) != SW_OK) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                   "Unknown artifact URI \"%s\": no session \"%s\"", uri, id);
		goto out;
	}
	pthread_mutex_lock(&s->lock);
	json_t *arr = json_object_get(s->state, "artifacts"), *hit = NULL, *it;
	size_t i;
	json_array_foreach(arr, i, it)
	{
		const char *u = json_string_value(json_object_get(it, "uri"));
		if (u && !strcmp(u, uri)) {
			hit = it;
			break;
		}
	}
	if (!hit) {
		/* fall back to comparing the decoded segments (a client may spell escapes differently) */
		json_array_foreach(arr, i, it)
		{
			char *a = NULL, *b = NULL, *c = NULL;
			const char *u = json_string_value(json_object_get(it, "uri"));
			if (u && parse_uri(u, &a, &b, &c) == SW_OK) {
				bool same = !strcmp(a, id) && !strcmp(b, kind) && !strcmp(c, name);
				free(a);
				free(b);
				free(c);
				if (same) {
					hit = it;
					break;
				}
			}
		}
	}
	if (hit) {
		path = sw__strdup(json_string_value(json_object_get(hit, "path")));
		mime = sw__strdup(json_string_value(json_object_get(hit, "mime")));
		const char *l = json_string_value(json_object_get(hit, "label"));
		label = l ? sw__strdup(l) : NULL;
		const char *t = json_string_value(json_object_get(hit, "redaction"));
		red_tag = t ? sw__strdup(t) : NULL;
		const char *n = json_string_value(json_object_get(hit, "redactionNote"));
		red_note = n ? sw__strdup(n) : NULL;
	}
	pthread_mutex_unlock(&s->lock);
	if (!hit || !path || !mime) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		                   "List the session's artifacts with qa_status or resources/list.",
		                   "Unknown artifact URI \"%s\"", uri);
		goto out;
	}
	/* a record (possibly from an edited state.json) never reads outside its session folder */
	char *real = realpath(path, NULL), *rdir = realpath(s->dir, NULL);
	bool inside = real && rdir && sw__str_has_prefix(real, rdir) && real[strlen(rdir)] == '/';
	free(real);
	free(rdir);
	struct stat st;
	if (!inside || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
		rc =
		    sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                  "artifact %s is recorded but its file is missing or outside the session folder", uri);
		goto out;
	}
	size_t size = (size_t)st.st_size;
	bool is_text = sw_redact_mime_is_text(mime);
	bool truncated = false, inlined = false;
	size_t out_len = 0;
	char *note = NULL;
	if (!(flags & SW_ARTIFACT_READ_METADATA)) {
		if (is_text) {
			bool tail = !strcmp(kind_folder(kind), "logs") || sw__str_has_suffix(path, ".log");
			size_t take = size > TEXT_CAP ? TEXT_CAP : size;
			off_t off = (size > TEXT_CAP && tail) ? (off_t)(size - TEXT_CAP) : 0;
			char *raw = NULL;
			rc = read_range(path, off, take, &raw, err);
			if (rc)
				goto out;
			size_t start = 0, end = strlen(raw) < take ? strlen(raw) : take;
			if (size > TEXT_CAP) {
				truncated = true;
				if (tail) {
					while (start < end && ((unsigned char)raw[start] & 0xC0) == 0x80)
						start++;
				} else {
					size_t e = end;
					while (e > 0 && ((unsigned char)raw[e - 1] & 0xC0) == 0x80)
						e--;
					/* drop a lead byte whose sequence was cut */
					if (e > 0 && ((unsigned char)raw[e - 1] & 0x80)) {
						uint32_t cp;
						if (sw__utf8_decode((const unsigned char *)raw + e - 1, end - (e - 1),
						                    &cp) == 0)
							end = e - 1;
					}
				}
			}
			char *body = sw__strndup(raw + start, end - start);
			free(raw);
			/* redact again: secrets registered after the save are scrubbed too */
			text = body ? sw__session_redact_text(s, body) : NULL;
			free(body);
			if (!text) {
				rc = sw__error_nomem(err);
				goto out;
			}
			if (truncated) {
				char *marked = tail ? sw__asprintf("[swipium: truncated: showing the last %zu of %zu "
				                                   "bytes; full file: %s]\n%s",
				                                   TEXT_CAP, size, path, text)
				                    : sw__asprintf("%s\n[swipium: truncated: showing the first %zu of "
				                                   "%zu bytes; full file: %s]\n",
				                                   text, TEXT_CAP, size, path);
				free(text);
				text = marked;
				if (!text) {
					rc = sw__error_nomem(err);
					goto out;
				}
			}
			out_len = strlen(text);
			inlined = true;
		} else if (size <= BINARY_CAP) {
			rc = read_range(path, 0, size, &text, err);
			if (rc)
				goto out;
			out_len = size;
			inlined = true;
		} else {
			note = sw__asprintf(
			    "binary artifact of %zu bytes is larger than the %zu-byte inline limit; read it at %s",
			    size, BINARY_CAP, path);
		}
	}
	meta = json_pack("{s:s, s:s, s:s, s:I, s:s, s:b, s:b, s:b}", "uri", uri, "mime", mime, "kind", kind, "bytes",
	                 (json_int_t)size, "path", path, "text", is_text, "inlined", inlined, "truncated", truncated);
	if (meta && red_tag)
		json_object_set_new(meta, "redaction", json_string(red_tag));
	if (meta && red_note)
		json_object_set_new(meta, "redactionNote", json_string(red_note));
	if (meta && label)
		json_object_set_new(meta, "label", json_string(label));
	if (meta && note)
		json_object_set_new(meta, "note", json_string(note));
	free(note);
	if (!meta) {
		rc = sw__error_nomem(err);
		goto out;
	}
	if (meta_json) {
		*meta_json = sw__json_compact(meta);
		if (!*meta_json) {
			rc = sw__error_nomem(err);
			goto out;
		}
	}
	if (data) {
		*data = text;
		text = NULL;
	}
	if (len)
		*len = out_len;
	rc = SW_OK;
out:
	json_decref(meta);
	free(text);
	free(path);
	free(mime);
	free(label);
	free(red_tag);
	free(red_note);
	free(id);
	free(kind);
	free(name);
	return rc;
}
