/* fs.c: the device's small in-memory file system (what push, pull, cat, ls, rm and uiautomator dump see). */
#include "vdevice.h"

#include <stdlib.h>
#include <string.h>

/* Directories that always exist on the simulated device. */
static const char *const fixed_dirs[] = {
    "/",
    "/sdcard",
    "/storage",
    "/storage/emulated",
    "/storage/emulated/0",
    "/storage/self",
    "/storage/self/primary",
    "/data",
    "/data/local",
    "/data/local/tmp",
    "/system",
    "/system/bin",
    "/sdcard/Download",
    "/sdcard/Pictures",
    "/dev",
    "/proc",
};

char *vd_fs_normalize(const char *path)
{
	static const char *const aliases[] = {"/storage/emulated/0", "/storage/self/primary", "/mnt/sdcard"};
	if (!path || path[0] != '/')
		return NULL;
	for (size_t i = 0; i < VD_ARRAY_SIZE(aliases); i++) {
		size_t n = strlen(aliases[i]);
		if (strncmp(path, aliases[i], n) == 0 && (path[n] == '/' || path[n] == '\0'))
			return vd_strdup_printf("/sdcard%s", path + n);
	}
	char *p = vd_strdup(path);
	if (!p)
		return NULL;
	/* Collapse duplicate slashes and drop a trailing one. */
	size_t w = 0;
	for (size_t r = 0; p[r]; r++) {
		if (p[r] == '/' && w > 0 && p[w - 1] == '/')
			continue;
		p[w++] = p[r];
	}
	if (w > 1 && p[w - 1] == '/')
		w--;
	p[w] = '\0';
	return p;
}

struct vd_file *vd_fs_get(struct vd_fs *fs, const char *path)
{
	char *p = vd_fs_normalize(path);
	struct vd_file *found = NULL;
	for (size_t i = 0; p && i < fs->n; i++) {
		if (strcmp(fs->files[i].path, p) == 0) {
			found = &fs->files[i];
			break;
		}
	}
	free(p);
	return found;
}

bool vd_fs_writable(const char *path)
{
	char *p = vd_fs_normalize(path);
	bool ok = p && (strncmp(p, "/sdcard/", 8) == 0 || strncmp(p, "/data/local/tmp/", 16) == 0);
	free(p);
	return ok;
}

bool vd_fs_put(struct vd_fs *fs, const char *path, const void *data, size_t len, uint32_t mode, uint32_t mtime)
{
	struct vd_file *f = vd_fs_get(fs, path);
	size_t old = f ? f->len : 0;
	if (len > VD_FS_MAX || fs->total - old + len > VD_FS_MAX)
		return false;
	char *copy = malloc(len + 1);
	if (!copy)
		return false;
	if (len)
		memcpy(copy, data, len);
	copy[len] = '\0';
	if (!f) {
		char *p = vd_fs_normalize(path);
		struct vd_file *files = p ? realloc(fs->files, (fs->n + 1) * sizeof(*files)) : NULL;
		if (!files) {
			free(p);
			free(copy);
			return false;
		}
		fs->files = files;
		f = &fs->files[fs->n++];
		memset(f, 0, sizeof(*f));
		f->path = p;
	}
	free(f->data);
	f->data = copy;
	f->len = len;
	f->mode = mode;
	f->mtime = mtime;
	fs->total = fs->total - old + len;
	return true;
}

bool vd_fs_remove(struct vd_fs *fs, const char *path)
{
	struct vd_file *f = vd_fs_get(fs, path);
	if (!f)
		return false;
	fs->total -= f->len;
	free(f->path);
	free(f->data);
	size_t i = (size_t)(f - fs->files);
	memmove(&fs->files[i], &fs->files[i + 1], (fs->n - i - 1) * sizeof(*f));
	fs->n--;
	return true;
}

bool vd_fs_is_dir(struct vd_fs *fs, const char *path)
{
	char *p = vd_fs_normalize(path);
	bool dir = false;
	if (!p)
		return false;
	for (size_t i = 0; i < VD_ARRAY_SIZE(fixed_dirs) && !dir; i++)
		dir = strcmp(fixed_dirs[i], p) == 0;
	size_t n = strlen(p);
	for (size_t i = 0; i < fs->n && !dir; i++)
		dir = strncmp(fs->files[i].path, p, n) == 0 && fs->files[i].path[n] == '/';
	free(p);
	return dir;
}

void vd_fs_clear(struct vd_fs *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		free(fs->files[i].path);
		free(fs->files[i].data);
	}
	free(fs->files);
	memset(fs, 0, sizeof(*fs));
}
