/*
 * writeset.c: many project files written as one set. Every path is confined first (nothing is created when one
 * is refused), then each file goes to a temporary name next to its final one, the data of the whole set is flushed
 * after all of it is written, the temporaries are renamed over the final names, and each folder of the set is flushed
 * once. A file is never seen half-written; a failure before the renames leaves none of the set behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <swipium/util.h>

#include "sw-internal.h"

#ifndef O_PATH
#define O_PATH O_RDONLY
#endif

typedef struct ws_file {
	char *path;       /* as given (relative to the root, or absolute) */
	const void *data; /* borrowed until the commit */
	size_t len;
	char *real; /* the confined real path */
	size_t dir; /* index into dirs */
	char *tmp;  /* the temporary name in its folder, while it exists */
	bool renamed;
	bool unchanged; /* the final file holds this content already: left as it is */
} ws_file;

typedef struct ws_dir {
	char *path; /* the real folder */
	int fd;     /* opened by walking from "/" without following links */
} ws_dir;

struct sw__writeset {
	char *root;
	unsigned flags;
	ws_file *files;
	size_t n, cap;
	ws_dir *dirs;
	size_t nd, capd;
};

sw__writeset *sw__writeset_new(const char *root, unsigned flags)
{
	sw__writeset *ws = calloc(1, sizeof(*ws));
	if (!ws)
		return NULL;
	ws->root = root ? sw__strdup(root) : NULL;
	if (!ws->root) {
		free(ws);
		return NULL;
	}
	ws->flags = flags;
	return ws;
}

int sw__writeset_add(sw__writeset *ws, const char *path, const void *data, size_t len, sw_error **err)
{
	if (!ws || !path || !*path || (!data && len))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw__writeset_add: bad arguments");
	if (ws->n == ws->cap) {
		size_t cap = ws->cap ? ws->cap * 2 : 16;
		ws_file *f = realloc(ws->files, cap * sizeof(*f));
		if (!f)
			return sw__error_nomem(err);
		ws->files = f;
		ws->cap = cap;
	}
	ws_file *f = &ws->files[ws->n];
	memset(f, 0, sizeof(*f));
	if (!(f->path = sw__strdup(path)))
		return sw__error_nomem(err);
	f->data = data ? data : "";
	f->len = len;
	ws->n++;
	return SW_OK;
}

size_t sw__writeset_count(const sw__writeset *ws)
{
	return ws ? ws->n : 0;
}

/* Opens @dir (a confined real folder) by walking from "/" without following any link, creating what is missing
 * when @mkdirs. Returns the descriptor or a negative SW_E* code. */
static int walk_dir(const char *dir, bool mkdirs, mode_t mode, const char *real, sw_error **err)
{
	char *copy = sw__strdup(dir);
	if (!copy)
		return sw__error_nomem(err);
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	char *save = NULL;
	for (char *part = strtok_r(copy, "/", &save); fd >= 0 && part; part = strtok_r(NULL, "/", &save)) {
		int next = openat(fd, part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && mkdirs) {
			if (mkdirat(fd, part, mode) != 0 && errno != EEXIST) {
				int e = errno;
				close(fd);
				free(copy);
				return sw__error_set(err, SW_EIO, "UNKNOWN", NULL,
				                     "cannot create the folder %s on the way to %s: %s", part, real,
				                     strerror(e));
			}
			next = openat(fd, part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		int e = errno;
		close(fd);
		fd = next;
		if (fd < 0) {
			free(copy);
			if (e == ENOTDIR || e == ELOOP)
				return sw__error_set(
				    err, SW_EDENIED, "UNSAFE_ACTION_REFUSED",
				    "Keep the file inside the project and remove any symbolic link that leads out of "
				    "it.",
				    "a folder on the way to %s is a symbolic link or a file, so Swipium will not "
				    "write there",
				    real);
			return sw__error_set(err, e == ENOENT ? SW_ENOTFOUND : SW_EIO, "UNKNOWN", NULL,
			                     "cannot open the folder of %s: %s", real, strerror(e));
		}
	}
	free(copy);
	if (fd < 0)
		return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot open /: %s", strerror(errno));
	return fd;
}

/* The index of the folder of @f in ws->dirs, opened on first use. */
static int dir_of(sw__writeset *ws, ws_file *f, sw_error **err)
{
	const char *slash = strrchr(f->real, '/');
	if (!slash || !slash[1])
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "%s names a folder, not a file",
		                     f->real);
	size_t dl = (size_t)(slash - f->real);
	/* the files of one generation share a few folders: the last one used is tried first */
	for (size_t k = ws->nd; k-- > 0;)
		if (strlen(ws->dirs[k].path) == dl && !memcmp(ws->dirs[k].path, f->real, dl)) {
			f->dir = k;
			return SW_OK;
		}
	if (ws->nd == ws->capd) {
		size_t cap = ws->capd ? ws->capd * 2 : 8;
		ws_dir *d = realloc(ws->dirs, cap * sizeof(*d));
		if (!d)
			return sw__error_nomem(err);
		ws->dirs = d;
		ws->capd = cap;
	}
	char *dir = sw__strndup(f->real, dl ? dl : 1);
	if (!dir)
		return sw__error_nomem(err);
	int fd = walk_dir(dir, ws->flags & SW_WRITE_MKDIRS, (ws->flags & SW_WRITE_SHARED) ? 0755 : 0700, f->real, err);
	if (fd < 0) {
		free(dir);
		return fd;
	}
	/* an O_PATH descriptor cannot be fsync'd: the folder is reopened for reading through it */
	int rfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(fd);
	if (rfd < 0) {
		int e = errno;
		free(dir);
		return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot open the folder of %s: %s", f->real,
		                     strerror(e));
	}
	ws->dirs[ws->nd].path = dir;
	ws->dirs[ws->nd].fd = rfd;
	f->dir = ws->nd++;
	return SW_OK;
}

/* Non-zero when the plain file @base in @dfd holds exactly @len bytes @data. */
static bool same_content(int dfd, const char *base, const void *data, size_t len)
{
	int fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	bool same = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == len;
	char buf[16384];
	size_t off = 0;
	while (same && off < len) {
		ssize_t r = read(fd, buf, len - off < sizeof(buf) ? len - off : sizeof(buf));
		if (r <= 0 || memcmp(buf, (const char *)data + off, (size_t)r) != 0)
			same = false;
		else
			off += (size_t)r;
	}
	if (same && read(fd, buf, 1) != 0)
		same = false;
	close(fd);
	return same;
}

/* Creates @f's temporary file (O_EXCL, a random name) in its folder and writes the data; no flush yet. */
static int write_temp(sw__writeset *ws, ws_file *f, mode_t mode, sw_error **err)
{
	int dfd = ws->dirs[f->dir].fd;
	const char *base = strrchr(f->real, '/') + 1;
	struct stat st;
	bool there = fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (there && !S_ISREG(st.st_mode))
		return sw__error_set(err, SW_EDENIED, "UNSAFE_ACTION_REFUSED",
		                     "Keep project files as plain files (not links, devices or folders).",
		                     "%s is not a plain file, so Swipium will not replace it", f->real);
	if (there && (size_t)st.st_size == f->len && (st.st_mode & 07777) == mode && st.st_nlink == 1 &&
	    same_content(dfd, base, f->data, f->len)) {
		f->unchanged = true; /* the file holds this content already: no new file, no rename */
		return SW_OK;
	}
	int fd = -1;
	for (int attempt = 0; attempt < 16 && fd < 0; attempt++) {
		unsigned char rnd[6] = {0};
		if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			unsigned long v =
			    (unsigned long)ts.tv_nsec ^ ((unsigned long)getpid() << 12) ^ (unsigned long)attempt;
			memcpy(rnd, &v, sizeof(rnd));
		}
		free(f->tmp);
		f->tmp = sw__asprintf(".%s.tmp-%02x%02x%02x%02x%02x%02x", base, rnd[0], rnd[1], rnd[2], rnd[3], rnd[4],
		                      rnd[5]);
		if (!f->tmp)
			return sw__error_nomem(err);
		fd = openat(dfd, f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		int e = errno;
		free(f->tmp);
		f->tmp = NULL;
		return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot create a file next to %s: %s", f->real,
		                     strerror(e));
	}
	if (fchmod(fd, mode) != 0 || sw__write_all(fd, f->data, f->len) != 0) {
		int e = errno;
		close(fd);
		return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot write %s: %s", f->real, strerror(e));
	}
	if (close(fd) != 0)
		return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot write %s: %s", f->real, strerror(errno));
	return SW_OK;
}

/* The data of every temporary on the disk: one fsync per file, after all of them are written (the kernel writes
 * them back together). Never syncfs(): that would flush every other program's data on the file system too. */
static int flush_temps(sw__writeset *ws, sw_error **err)
{
	if (ws->nd == 0 || (ws->flags & SW__WRITE_NO_SYNC))
		return SW_OK;
	for (size_t i = 0; i < ws->n; i++) {
		ws_file *f = &ws->files[i];
		if (f->unchanged)
			continue;
		int fd = openat(ws->dirs[f->dir].fd, f->tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fsync(fd) != 0) {
			int e = errno;
			if (fd >= 0)
				close(fd);
			return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot write %s: %s", f->real, strerror(e));
		}
		close(fd);
	}
	return SW_OK;
}

int sw__writeset_commit(sw__writeset *ws, sw_error **err)
{
	if (!ws)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw__writeset_commit: no set");
	int rc = SW_OK;
	/* 1. every path confined before anything is created */
	for (size_t i = 0; i < ws->n; i++)
		if ((rc = sw__confine(ws->root, ws->files[i].path, 0, &ws->files[i].real, err)) < 0)
			return rc;
	mode_t mode = 0600;
	if (ws->flags & SW_WRITE_SHARED) {
		mode_t mask = umask(0);
		umask(mask);
		mode = 0644 & ~mask;
	}
	/* 2. each file to a temporary name in its folder (folders walked from "/" without following links) */
	for (size_t i = 0; i < ws->n && rc == SW_OK; i++) {
		if ((rc = dir_of(ws, &ws->files[i], err)) == SW_OK)
			rc = write_temp(ws, &ws->files[i], mode, err);
	}
	/* 3. the data of the whole set on the disk, once */
	if (rc == SW_OK)
		rc = flush_temps(ws, err);
	/* 4. the renames (renameat replaces the name: a link put there meanwhile is replaced, never followed) */
	for (size_t i = 0; i < ws->n && rc == SW_OK; i++) {
		ws_file *f = &ws->files[i];
		if (f->unchanged)
			continue;
		int dfd = ws->dirs[f->dir].fd;
		if (renameat(dfd, f->tmp, dfd, strrchr(f->real, '/') + 1) != 0) {
			rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot replace %s: %s", f->real,
			                   strerror(errno));
			break;
		}
		free(f->tmp);
		f->tmp = NULL;
		f->renamed = true;
	}
	/* 5. each folder's new names on the disk, once per folder */
	if (rc == SW_OK && !(ws->flags & SW__WRITE_NO_SYNC))
		for (size_t k = 0; k < ws->nd; k++)
			(void)fsync(ws->dirs[k].fd);
	/* a failure: every temporary still there is removed */
	for (size_t i = 0; i < ws->n; i++) {
		ws_file *f = &ws->files[i];
		if (f->tmp) {
			(void)unlinkat(ws->dirs[f->dir].fd, f->tmp, 0);
			free(f->tmp);
			f->tmp = NULL;
		}
	}
	return rc;
}

void sw__writeset_free(sw__writeset *ws)
{
	if (!ws)
		return;
	for (size_t i = 0; i < ws->n; i++) {
		free(ws->files[i].path);
		free(ws->files[i].real);
		free(ws->files[i].tmp);
	}
	for (size_t k = 0; k < ws->nd; k++) {
		free(ws->dirs[k].path);
		close(ws->dirs[k].fd);
	}
	free(ws->files);
	free(ws->dirs);
	free(ws->root);
	free(ws);
}
