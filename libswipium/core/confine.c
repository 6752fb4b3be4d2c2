/* confine.c: the one confinement rule for project files (resolve inside the root, never follow a final link). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sw-internal.h"

#ifndef O_PATH
#define O_PATH O_RDONLY
#endif

/* Non-zero when @path (a real path) is @root (a real path) or lies below it. */
static bool inside(const char *root, const char *path)
{
	size_t n = strlen(root);
	while (n > 1 && root[n - 1] == '/')
		n--;
	if (n == 1 && root[0] == '/')
		return path[0] == '/';
	return !strncmp(root, path, n) && (path[n] == '\0' || path[n] == '/');
}

static int refuse(sw_error **err, const char *path, const char *real, const char *root, const char *why)
{
	if (real && strcmp(real, path))
		return sw__error_set(err, SW_EDENIED, "UNSAFE_ACTION_REFUSED",
		                     "Keep the file inside the project and remove any symbolic link that leads out of it.",
		                     "%s %s the project root %s (it leads to %s), so Swipium will not touch it", path,
		                     why, root, real);
	return sw__error_set(err, SW_EDENIED, "UNSAFE_ACTION_REFUSED",
	                     "Keep the file inside the project and remove any symbolic link that leads out of it.",
	                     "%s %s the project root %s, so Swipium will not touch it", path, why, root);
}

/* realpath() of the longest existing prefix of @lex (absolute, lexically normal) with the missing tail appended;
 * *exists tells whether the whole path exists. A dangling symbolic link on the way is a refusal. */
static int resolve_existing(const char *lex, const char *rroot, char **out, bool *exists, sw_error **err)
{
	char *head = sw__strdup(lex);
	if (!head)
		return sw__error_nomem(err);
	size_t hl = strlen(head);
	*exists = true;
	for (;;) {
		struct stat st;
		if (lstat(head, &st) == 0) {
			char *r = realpath(head, NULL);
			if (!r) {
				int e = errno;
				free(head);
				if (S_ISLNK(st.st_mode))
					return refuse(err, lex, NULL, rroot,
					              "goes through a symbolic link whose target is missing, not inside");
				return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot resolve %s: %s", lex, strerror(e));
			}
			char *res = hl == strlen(lex) ? sw__strdup(r)
			            : strcmp(r, "/")  ? sw__asprintf("%s%s", r, lex + hl)
			                              : sw__strdup(lex + hl);
			free(r);
			free(head);
			if (!res)
				return sw__error_nomem(err);
			*out = res;
			return SW_OK;
		}
		if (errno != ENOENT && errno != ENOTDIR) {
			int e = errno;
			free(head);
			return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot look at %s: %s", lex, strerror(e));
		}
		*exists = false;
		char *slash = strrchr(head, '/');
		if (!slash || slash == head) {
			/* nothing but "/" exists: cannot be inside a real root */
			free(head);
			*out = sw__strdup(lex);
			return *out ? SW_OK : sw__error_nomem(err);
		}
		*slash = '\0';
		hl = (size_t)(slash - head);
	}
}

int sw__confine(const char *root, const char *path, unsigned flags, char **real_out, sw_error **err)
{
	if (!root || !*root || !path || !*path || !real_out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "a project root and a path are needed");
	int rc = SW_OK;
	char *rroot = realpath(root, NULL), *abs = NULL, *lex = NULL, *real = NULL;
	if (!rroot || !sw__is_dir(rroot)) {
		rc = sw__error_set(err, SW_ENOTFOUND, "PROJECT_ROOT_UNRESOLVED", "Pass an existing project directory.",
		                   "the project root %s does not exist or is not a directory", root);
		goto out;
	}
	/* an absolute path may name the root through the spelling the caller used (before symlinks) */
	abs = path[0] == '/' ? sw__strdup(path) : sw__path_join(rroot, path);
	lex = abs ? sw__path_resolve(rroot, abs) : NULL;
	if (!lex) {
		rc = sw__error_nomem(err);
		goto out;
	}
	bool exists = false;
	if ((rc = resolve_existing(lex, rroot, &real, &exists, err)) < 0)
		goto out;
	if (!inside(rroot, real)) {
		rc = refuse(err, path, real, rroot,
		            strcmp(lex, real) ? "resolves (through a symbolic link) outside" : "lies outside");
		goto out;
	}
	if ((flags & SW__CONFINE_EXISTING) && !exists) {
		rc = sw__error_set(err, SW_ENOTFOUND, "UNKNOWN", NULL, "%s does not exist", path);
		goto out;
	}
	*real_out = real;
	real = NULL;
out:
	free(rroot);
	free(abs);
	free(lex);
	free(real);
	return rc;
}

/* Opens the folder holding @real (a confined real path) by walking it from "/" without following any symbolic
 * link, creating missing folders (@dir_mode) when @mkdirs. *base_out points into @real. */
static int open_parent(const char *real, bool mkdirs, mode_t dir_mode, const char **base_out, sw_error **err)
{
	const char *slash = strrchr(real, '/');
	if (!slash || !slash[1])
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "%s names a folder, not a file", real);
	*base_out = slash + 1;
	char *dir = sw__strndup(real, (size_t)(slash - real));
	if (!dir)
		return sw__error_nomem(err);
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	char *save = NULL;
	for (char *part = strtok_r(dir, "/", &save); fd >= 0 && part; part = strtok_r(NULL, "/", &save)) {
		int next = openat(fd, part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && mkdirs) {
			if (mkdirat(fd, part, dir_mode) != 0 && errno != EEXIST) {
				int e = errno;
				close(fd);
				int rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot create the folder %s in %s: %s",
				                       part, real, strerror(e));
				free(dir);
				return rc;
			}
			next = openat(fd, part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		int e = errno;
		close(fd);
		fd = next;
		if (fd < 0) {
			free(dir);
			if (e == ENOTDIR || e == ELOOP)
				return sw__error_set(err, SW_EDENIED, "UNSAFE_ACTION_REFUSED",
				                     "Keep the file inside the project and remove any symbolic link that leads out of it.",
				                     "a folder on the way to %s changed into a symbolic link or a file while "
				                     "Swipium opened it, so it will not touch it",
				                     real);
			return sw__error_set(err, e == ENOENT ? SW_ENOTFOUND : SW_EIO, "UNKNOWN", NULL,
			                     "cannot open the folder of %s: %s", real, strerror(e));
		}
	}
	free(dir);
	if (fd < 0)
		return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot open /: %s", strerror(errno));
	return fd;
}

static int open_final(int dirfd, const char *base, const char *real, int oflags, mode_t mode, sw_error **err)
{
	int fd = openat(dirfd, base, oflags | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0) {
		int e = errno;
		if (e == ELOOP)
			return sw__error_set(err, SW_EDENIED, "UNSAFE_ACTION_REFUSED",
			                     "Keep the file inside the project and remove any symbolic link that leads out of it.",
			                     "%s became a symbolic link while Swipium opened it, so it will not touch it",
			                     real);
		return sw__error_set(err, e == ENOENT ? SW_ENOTFOUND : SW_EIO, "UNKNOWN", NULL, "cannot open %s: %s", real,
		                     strerror(e));
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || (!S_ISREG(st.st_mode)) ||
	    ((oflags & O_ACCMODE) != O_RDONLY && st.st_nlink > 1)) {
		close(fd);
		return sw__error_set(err, SW_EDENIED, "UNSAFE_ACTION_REFUSED",
		                     "Keep project files as plain files (not hard links, devices or folders).",
		                     "%s is not a plain file with a single name, so Swipium will not write to it", real);
	}
	return fd;
}

int sw__confine_open(const char *root, const char *path, int oflags, mode_t mode, unsigned flags, char **real_out,
                     sw_error **err)
{
	char *real = NULL;
	int rc = sw__confine(root, path, flags & SW__CONFINE_EXISTING, &real, err);
	if (rc < 0)
		return rc;
	const char *base = NULL;
	int dfd = open_parent(real, flags & SW__CONFINE_MKDIRS, (flags & SW__CONFINE_SHARED) ? 0755 : 0700, &base, err);
	if (dfd < 0) {
		free(real);
		return dfd;
	}
	int fd = open_final(dfd, base, real, oflags, mode, err);
	close(dfd);
	if (fd >= 0 && real_out)
		*real_out = real;
	else
		free(real);
	return fd;
}

int sw__confine_mkdirs(const char *root, const char *dir, mode_t mode, char **real_out, sw_error **err)
{
	char *real = NULL, *probe = NULL;
	int rc = sw__confine(root, dir, 0, &real, err);
	if (rc < 0)
		return rc;
	/* open_parent creates every folder of the parent of "<dir>/."; the last one is checked below */
	probe = sw__asprintf("%s/.", real);
	const char *base = NULL;
	int dfd = probe ? open_parent(probe, true, mode, &base, err) : sw__error_nomem(err);
	free(probe);
	if (dfd < 0) {
		free(real);
		return dfd;
	}
	close(dfd);
	if (real_out)
		*real_out = real;
	else
		free(real);
	return SW_OK;
}

SW_API int sw_project_write_file(const char *project_root, const char *path, const void *data, size_t len,
                                 unsigned flags, sw_error **err)
{
	if (!project_root || !path || !*path || (!data && len))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_project_write_file: bad arguments");
	char *real = NULL, *tmp = NULL;
	int rc = sw__confine(project_root, path, 0, &real, err);
	if (rc < 0)
		return rc;
	const char *base = NULL;
	int fd = -1, dfd = open_parent(real, flags & SW_WRITE_MKDIRS, (flags & SW_WRITE_SHARED) ? 0755 : 0700, &base, err);
	if (dfd < 0) {
		free(real);
		return dfd;
	}
	mode_t mode = 0600;
	if (flags & SW_WRITE_SHARED) {
		mode_t mask = umask(0);
		umask(mask);
		mode = 0644 & ~mask;
	}
	struct stat st;
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISREG(st.st_mode)) {
			rc = sw__error_set(err, SW_EDENIED, "UNSAFE_ACTION_REFUSED",
			                   "Keep project files as plain files (not links, devices or folders).",
			                   "%s is not a plain file, so Swipium will not replace it", real);
			goto out;
		}
		if (flags & SW_WRITE_KEEP_MODE)
			mode = st.st_mode & 07777;
	}
	for (int attempt = 0; attempt < 16 && fd < 0; attempt++) {
		unsigned char rnd[6] = {0};
		if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			unsigned long v = (unsigned long)ts.tv_nsec ^ ((unsigned long)getpid() << 12) ^ (unsigned long)attempt;
			memcpy(rnd, &v, sizeof(rnd) < sizeof(v) ? sizeof(rnd) : sizeof(v));
		}
		free(tmp);
		tmp = sw__asprintf(".%s.tmp-%02x%02x%02x%02x%02x%02x", base, rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5]);
		if (!tmp) {
			rc = sw__error_nomem(err);
			goto out;
		}
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot create a file next to %s: %s", real, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	if (fchmod(fd, mode) != 0 || sw__write_all(fd, data, len) != 0 || fsync(fd) != 0) {
		rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot write %s: %s", real, strerror(errno));
		goto out;
	}
	int c = close(fd);
	fd = -1;
	if (c != 0) {
		rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot write %s: %s", real, strerror(errno));
		goto out;
	}
	/* renameat replaces the name itself: a link put there meanwhile is replaced, never followed */
	if (renameat(dfd, tmp, dfd, base) != 0) {
		rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot replace %s: %s", real, strerror(errno));
		goto out;
	}
	free(tmp);
	tmp = NULL;
	int sfd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd >= 0) {
		(void)fsync(sfd);
		close(sfd);
	}
out:
	if (fd >= 0)
		close(fd);
	if (tmp) {
		unlinkat(dfd, tmp, 0);
		free(tmp);
	}
	close(dfd);
	free(real);
	return rc;
}

SW_API int sw_project_path_confine(const char *project_root, const char *path, int must_exist, char **real_out,
                                   sw_error **err)
{
	return sw__confine(project_root, path, must_exist ? SW__CONFINE_EXISTING : 0, real_out, err);
}
