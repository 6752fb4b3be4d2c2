/* fileio.c: atomic writes, directory creation, whole-file reads and path helpers. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sw-internal.h"

bool sw__is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool sw__is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char *sw__path_join(const char *a, const char *b)
{
	size_t la = strlen(a);
	while (la > 1 && a[la - 1] == '/')
		la--;
	while (*b == '/')
		b++;
	return sw__asprintf("%.*s/%s", (int)la, a, b);
}

char *sw__path_resolve(const char *cwd, const char *path)
{
	char cwdbuf[PATH_MAX];
	sw_buf in = SW_BUF_INIT;
	if (path[0] != '/') {
		if (!cwd) {
			if (!getcwd(cwdbuf, sizeof(cwdbuf)))
				return NULL;
			cwd = cwdbuf;
		}
		sw__buf_puts(&in, cwd);
		sw__buf_putc(&in, '/');
	}
	sw__buf_puts(&in, path);
	char *src = sw__buf_steal(&in, NULL);
	if (!src)
		return NULL;
	/* Lexical normalisation: drop "." and empty parts, fold "..". */
	size_t n = strlen(src);
	char *out = malloc(n + 2);
	if (!out) {
		free(src);
		return NULL;
	}
	size_t olen = 0;
	char *save = NULL;
	for (char *part = strtok_r(src, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
		if (strcmp(part, ".") == 0)
			continue;
		if (strcmp(part, "..") == 0) {
			while (olen > 0 && out[olen - 1] != '/')
				olen--;
			if (olen > 0)
				olen--;
			continue;
		}
		out[olen++] = '/';
		size_t pl = strlen(part);
		memcpy(out + olen, part, pl);
		olen += pl;
	}
	if (olen == 0)
		out[olen++] = '/';
	out[olen] = '\0';
	free(src);
	return out;
}

char *sw__path_real_or_resolved(const char *path)
{
	char *r = realpath(path, NULL);
	return r ? r : sw__path_resolve(NULL, path);
}

int sw__mkdirs(const char *path, mode_t mode, sw_error **err)
{
	char *p = sw__strdup(path);
	if (!p)
		return sw__error_nomem(err);
	size_t len = strlen(p);
	for (size_t i = 1; i <= len; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		char c = p[i];
		p[i] = '\0';
		if (mkdir(p, mode) != 0 && errno != EEXIST) {
			int e = errno;
			int rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot create directory %s: %s", p, strerror(e));
			free(p);
			return rc;
		}
		p[i] = c;
	}
	int ok = sw__is_dir(path);
	free(p);
	if (!ok)
		return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "%s exists and is not a directory", path);
	return SW_OK;
}

int sw__read_file(const char *path, size_t max, char **out, size_t *len_out, sw_error **err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		return sw__error_set(err, e == ENOENT ? SW_ENOTFOUND : SW_EIO, "UNKNOWN", NULL, "cannot open %s: %s",
				     path, strerror(e));
	}
	sw_buf b = SW_BUF_INIT;
	char chunk[65536];
	int rc = SW_OK;
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot read %s: %s", path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		if (b.len + (size_t)n > max) {
			rc = sw__error_set(err, SW_ELIMIT, "UNKNOWN", NULL, "%s is larger than %zu bytes", path, max);
			goto out;
		}
		sw__buf_append(&b, chunk, (size_t)n);
		if (b.failed) {
			rc = sw__error_nomem(err);
			goto out;
		}
	}
	size_t len = 0;
	char *data = sw__buf_steal(&b, &len);
	if (!data) {
		rc = sw__error_nomem(err);
		goto out;
	}
	*out = data;
	if (len_out)
		*len_out = len;
out:
	sw__buf_free(&b);
	close(fd);
	return rc;
}

int sw__write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, data, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

SW_API int sw_file_write_atomic(const char *path, const void *data, size_t len, unsigned flags, sw_error **err)
{
	if (!path || !*path || (!data && len))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_file_write_atomic: bad arguments");
	int rc = SW_OK;
	char *dir = NULL, *tmp = NULL;
	int fd = -1;
	const char *slash = strrchr(path, '/');
	dir = slash ? sw__strndup(path, slash == path ? 1 : (size_t)(slash - path)) : sw__strdup(".");
	const char *base = slash ? slash + 1 : path;
	if (!dir)
		return sw__error_nomem(err);
	if (!*base) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "%s names a directory, not a file", path);
		goto out;
	}
	if (flags & SW_WRITE_MKDIRS) {
		rc = sw__mkdirs(dir, 0700, err);
		if (rc)
			goto out;
	}
	tmp = sw__asprintf("%s/.%s.tmp-XXXXXX", dir, base);
	if (!tmp) {
		rc = sw__error_nomem(err);
		goto out;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot create a file in %s: %s", dir, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	mode_t mode = 0600;
	if (flags & SW_WRITE_SHARED) {
		mode_t mask = umask(0);
		umask(mask);
		mode = 0644 & ~mask;
	}
	struct stat old;
	if ((flags & SW_WRITE_KEEP_MODE) && stat(path, &old) == 0 && S_ISREG(old.st_mode))
		mode = old.st_mode & 07777;
	bool durable = !(flags & SW__WRITE_NO_SYNC);
	if (fchmod(fd, mode) != 0 || sw__write_all(fd, data, len) != 0 || (durable && fsync(fd) != 0)) {
		rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot write %s: %s", path, strerror(errno));
		goto out;
	}
	if (close(fd) != 0) {
		fd = -1;
		rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot write %s: %s", path, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) != 0) {
		rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot replace %s: %s", path, strerror(errno));
		goto out;
	}
	free(tmp);
	tmp = NULL;
	int dfd = durable ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (dfd >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
out:
	if (fd >= 0)
		close(fd);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	free(dir);
	return rc;
}
